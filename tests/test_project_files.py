"""The project's declared dependencies: pyproject.toml and the pinned requirement files agree."""

from __future__ import annotations

import tomllib

from tests.conftest import REPO


def _pins(name: str) -> list[str]:
    lines = (REPO / name).read_text().splitlines()
    return [
        line.strip() for line in lines if line.strip() and not line.lstrip().startswith(("#", "-r"))
    ]


def test_pyproject_dependencies_are_the_runtime_requirements():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["dependencies"] == _pins("requirements.txt")


def test_pyproject_dev_group_is_the_dev_requirements():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["dependency-groups"]["dev"] == _pins("requirements-dev.txt")
