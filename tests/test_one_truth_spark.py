"""One truth on a table Delta Lake wrote itself, and on its copy (every file time reset).

Delta's own ``DESCRIBE HISTORY`` is the oracle for each commit's files and rows; Delta's
reader for the rows at each version. ``history --json``, ``diff --json``, ``insights``,
``detail``, the Version page and the Timeline's hover must all say the same, and the time
of each version must read the same in every command (the copy moves the file times).
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import run_app, run_main
from tests.one_truth import assert_first_deletion_vectors, history_by_version

pytestmark = pytest.mark.spark


def _deltas_metrics(spark, table: str) -> dict[int, dict[str, str]]:
    rows = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").collect()
    return {r["version"]: dict(r["operationMetrics"] or {}) for r in rows}


def test_files_and_rows_of_every_commit_are_deltas_own(delta_table, spark, capsys):
    ours = history_by_version(capsys, delta_table)
    theirs = _deltas_metrics(spark, delta_table)
    assert set(ours) == set(theirs)
    for version, metrics in theirs.items():
        e = ours[version]
        for mine, delta in (
            ("numAddedFiles", "numAddedFiles"),
            ("numRemovedFiles", "numRemovedFiles"),
            ("addedBytes", "numAddedBytes"),
            ("removedBytes", "numRemovedBytes"),
            ("rowsDeleted", "numDeletedRows"),
            ("rowsUpdated", "numUpdatedRows"),
            ("rowsInserted", "numTargetRowsInserted"),
            ("rowsUpdated", "numTargetRowsUpdated"),
            ("rowsDeleted", "numTargetRowsDeleted"),
        ):
            if delta in metrics:
                assert e[mine] == int(metrics[delta]), (version, e["operation"], mine)
        assert_first_deletion_vectors(e, metrics)


def test_rows_at_every_version_are_what_delta_reads(delta_table, spark, capsys):
    for version in history_by_version(capsys, delta_table):
        read = spark.read.format("delta").option("versionAsOf", version).load(delta_table)
        expected = read.count()
        _, out, _ = run_main(capsys, "insights", delta_table, "--version", version, "--json")
        assert json.loads(out)["rows"] == expected, version
        _, out, _ = run_main(capsys, "detail", delta_table, "--version", version, "--json")
        assert json.loads(out)["numRecords"] == expected, version


def test_the_timeline_version_page_and_commands_agree_on_a_copy(
    delta_table, capsys, monkeypatch, tmp_path
):
    copy = str(tmp_path / "copy")
    shutil.copytree(delta_table, copy)  # new file times: what a replica or a backup does
    history = history_by_version(capsys, copy)
    latest = max(history)

    at = run_app(monkeypatch, tmp_path, timeout=180, table=copy, view="timeline")
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    hovers = {}
    for trace in figure["data"]:
        for text in trace.get("hovertext") or ():
            hovers[int(re.match(r"<b>v(\d+) ", text).group(1))] = text.split("<br>")
    for version, e in history.items():
        label = f"rows +{e['rowsInserted']:,} / −{e['rowsDeleted']:,}"
        if e["rowsUpdated"]:
            label += f" / {e['rowsUpdated']:,} updated"
        assert label in hovers[version], (version, hovers[version])
        files = f"+{e['numAddedFiles']:,} files"
        assert any(line.startswith(files) for line in hovers[version]), version

    merge = next(v for v, e in history.items() if e["operation"] == "MERGE")
    page = run_app(
        monkeypatch, tmp_path, timeout=180, table=copy, view="version", version=str(merge)
    )
    metrics = {m.label: m.value for m in page.metric}
    e = history[merge]
    assert metrics["Files added"] == f"{e['numAddedFiles']:,}"
    assert metrics["Files removed"] == f"{e['numRemovedFiles']:,}"
    assert metrics["Rows +inserted / −deleted / updated"].startswith(f"+{e['rowsInserted']:,} / ")

    _, out, _ = run_main(capsys, "detail", copy, "--json")
    assert json.loads(out)["lastModified"] == history[latest]["timestamp"]
    _, out, _ = run_main(capsys, "diff", copy, "--from", "0", "--to", latest, "--json")
    for c in json.loads(out)["commits"]:
        assert c["timestamp"] == history[c["version"]]["timestamp"]
