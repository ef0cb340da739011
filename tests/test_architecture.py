"""The architecture, enforced: layers, no cycles, no Spark below ``rows``, small modules.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``); ``docs/architecture.md``
says what each package owns and may import.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "inspector"
MAX_LINES = 400
TOO_LONG_FOR_NOW: set[str] = set()
APP_MAX_LINES = 400


def test_import_contracts_hold():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache", "--config", str(REPO / "pyproject.toml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_backend_module_is_longer_than_400_lines():
    lengths = {
        str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    too_long = {p: n for p, n in lengths.items() if n > MAX_LINES and p not in TOO_LONG_FOR_NOW}
    assert not too_long, f"split these modules (over {MAX_LINES} lines): {too_long}"


def test_no_module_of_the_app_is_longer_than_400_lines():
    paths = [REPO / "app.py", *sorted((REPO / "ui").rglob("*.py"))]
    lengths = {
        str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
        for path in paths
    }
    too_long = {p: n for p, n in lengths.items() if n > APP_MAX_LINES}
    assert not too_long, f"split these modules by concept (over {APP_MAX_LINES} lines): {too_long}"


def test_every_package_says_what_it_owns():
    for init in PACKAGE.rglob("__init__.py"):
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring and len(docstring) > 40, f"{init.relative_to(REPO)} needs a docstring"


def test_only_the_cli_reads_settings_from_the_environment():
    readers = sorted(
        str(path.relative_to(REPO))
        for path in PACKAGE.rglob("*.py")
        if "from_env(" in path.read_text(encoding="utf-8")
        and path.relative_to(PACKAGE).parts[0] != "cli"
        and path.name != "settings.py"
    )
    assert not readers, f"library code must take settings explicitly, not read the env: {readers}"


def test_every_command_text_is_rendered_in_present_text():
    """A CLI result's ``text()`` only hands its records to ``inspector/present/text/``."""
    rendering = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "text":
                if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)):
                    rendering.append(f"{path.name}:{node.lineno}")
    assert not rendering, f"render this text in inspector/present/text/: {rendering}"
