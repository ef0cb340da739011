"""The docs cannot drift: generated pages are current, links resolve, the README stays short."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

GENERATED = ["docs/cli.md", "docs/architecture.md", "docs/performance.md"]
REGENERATE = f"{sys.executable} -m cogapp -r " + " ".join(GENERATED)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _pages() -> list:
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", GENERATED)
def test_generated_docs_are_current(page):
    # A subprocess: cog runs the page's code (importing the CLI), which must not leak here.
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", page],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (
        f"{page} is stale (or its generator failed); regenerate it with:\n  {REGENERATE}\n"
        f"{done.stdout}{done.stderr}"
    )


def test_the_readme_is_a_short_front_page():
    readme = (REPO / "README.md").read_text()
    assert len(readme.encode()) < 12 * 1024
    assert "./dev.sh app" in readme and "./dev.sh test" in readme
    assert "(docs/img/timeline.png)" in readme


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "#")):
            continue
        path = target.split("#", 1)[0]
        assert (page.parent / path).exists(), f"{page.name} links to {target}, which is missing"


def test_anchors_into_other_pages_exist():
    for page in _pages():
        for target in LINK.findall(page.read_text()):
            if "#" not in target or target.startswith(("http", "#")):
                continue
            path, anchor = target.split("#", 1)
            headings = (page.parent / path).read_text().splitlines()
            slugs = {
                re.sub(r"[^\w\- ]", "", h.lstrip("#").strip().lower()).replace(" ", "-")
                for h in headings
                if h.startswith("#")
            }
            assert anchor in slugs, f"{page.name} links to {target}: no such heading"


def test_the_screenshots_are_in_the_docs_and_small():
    """The Timeline (retention bands), the Diff's changed rows and the Audit view."""
    guide = (REPO / "docs" / "using-the-app.md").read_text()
    for name in ("timeline.png", "diff-rows.png", "audit.png"):
        assert f"(img/{name})" in guide
        image = REPO / "docs" / "img" / name
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (
            f"{name}: take it with docs/screenshot.py"
        )
        assert image.stat().st_size < 300 * 1024, f"{name} is over 300 KB"
