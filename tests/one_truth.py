"""What the one-truth tests (CLI on the corpus, Spark on tables Delta writes) check alike."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import run_main


def history_by_version(capsys: Any, table: Any) -> dict[int, dict[str, Any]]:
    """``history --json`` of a table, by version."""
    code, out, _ = run_main(capsys, "history", table, "--json")
    assert code == 0
    return {e["version"]: e for e in json.loads(out)}


def assert_first_deletion_vectors(entry: dict[str, Any], metrics: dict[str, str]) -> None:
    """A commit that gave files their first deletion vector counts them as Delta does."""
    first_dvs = int(metrics.get("numDeletionVectorsUpdated", 0)) == 0 and (
        int(metrics.get("numDeletionVectorsRemoved", 0)) == 0
    )
    if "numDeletionVectorsAdded" in metrics and first_dvs:
        added = int(metrics["numDeletionVectorsAdded"])
        assert entry["numDeletionVectorUpdates"] == added, (entry["version"], entry["operation"])
