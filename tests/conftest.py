"""Shared fixtures: the corpus location, temporary copies of tables, and helpers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


def corpus_index() -> list[dict]:
    """The corpus tables, as listed in ``index.json``."""
    return json.loads((CORPUS / "index.json").read_text())["tables"]


@pytest.fixture(autouse=True)
def _no_spark_warm_up(monkeypatch):
    """The app warms Spark up when a row page opens; tests start Spark only when they mean to."""
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_WARMUP", "false")


@pytest.fixture
def corpus() -> Path:
    """The read-only corpus of real Delta tables (never modify it)."""
    if not CORPUS.is_dir():
        pytest.fail(f"The corpus is missing at {CORPUS}; it must sit beside the repository.")
    return CORPUS


@pytest.fixture
def copy_table(tmp_path):
    """Copy a corpus table (by its corpus-relative path) into a temp dir and return the copy."""

    def _copy(relative: str) -> Path:
        target = tmp_path / Path(relative).name
        shutil.copytree(CORPUS / relative, target)
        for p in target.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        target.chmod(0o755)
        return target

    return _copy


@pytest.fixture(scope="session")
def spark():
    """The one real SparkSession of the test run (local[*], started on first use)."""
    from inspector.rows.session import get_spark

    return get_spark()
