"""Specification: the fast lane (``-m "not spark and not browser"``) needs no pyspark.

Collecting it imports every test module; here that runs in a child interpreter in which
importing pyspark (or py4j, or delta-spark) fails, as in a venv without them. The run of
the fast lane itself is guarded too: ``conftest.pytest_sessionfinish`` fails a
``-m "not spark"`` run in which pyspark was imported.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

_COLLECT_WITHOUT_PYSPARK = """
import importlib.abc, sys

class NoPyspark(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("pyspark", "py4j", "delta"):
            raise ImportError(f"No module named {name!r} (blocked: the fast lane needs no pyspark)")
        return None

sys.meta_path.insert(0, NoPyspark())
import pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not spark and not browser"])
sys.exit(code or ("pyspark" in sys.modules and 9))
"""


def test_the_fast_lane_collects_without_pyspark():
    done = subprocess.run(
        [sys.executable, "-c", _COLLECT_WITHOUT_PYSPARK],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "tests/test_cli.py: " in done.stdout  # the modules were collected, not skipped
