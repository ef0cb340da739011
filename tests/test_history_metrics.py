"""A commit that only adds files is taken from its writer's operationMetrics.

The history shows of each commit its files, bytes and rows. A commit that only adds files,
each changing data, whose metrics give its rows and bytes, is answered from the metrics and
its add lines are not parsed (a 300,000-file CREATE TABLE AS SELECT is 122 MB of them).
Where the metrics agree with the files, nothing changes (``test_history_scan`` holds the
bulk read equal to each commit read on its own on every corpus table). Where a writer
recorded wrong metrics, every page shows the metrics, as Delta's DESCRIBE HISTORY does.
Log-only: no Spark.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.tablegen import make_commits_table, make_files_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import history_record
from inspector.table.history_scan import scan_commits
from inspector.table.rowcounts import commit_rows


def _rewrite_commit_info(root: Path, version: int, **metrics: str) -> None:
    path = root / "_delta_log" / f"{version:020d}.json"
    lines = path.read_bytes().splitlines()
    info = json.loads(lines[0])
    info["commitInfo"]["operationMetrics"].update(metrics)
    lines[0] = json.dumps(info, separators=(",", ":")).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_an_append_whose_metrics_say_what_it_did_is_not_parsed(tmp_path: Path) -> None:
    root = tmp_path / "stream"
    make_commits_table(str(root), 5)
    log = DeltaLog.open(str(root))

    (commit, rows), *_ = list(scan_commits(log, [1, 2]))

    assert commit.counted is not None
    assert (rows.inserted, rows.deleted, rows.updated, rows.exact) == (10, 0, 0, True)
    assert rows.note == "from operation metrics"
    assert rows == commit_rows(DeltaLog.open(str(root)), 1)


def test_wrong_metrics_of_an_append_are_shown_as_the_writer_recorded_them(
    tmp_path: Path,
) -> None:
    # The writer says 999 rows and 5 files of 1,234 bytes; the one add line holds 10 rows.
    root = tmp_path / "stream"
    make_commits_table(str(root), 5)
    _rewrite_commit_info(root, 2, numOutputRows="999", numAddedFiles="5", numOutputBytes="1234")

    entry = history_record(build_history(DeltaLog.open(str(root)), Settings())[2])

    assert (entry["rowsInserted"], entry["rowsDeleted"], entry["rowsUpdated"]) == (999, 0, 0)
    assert (entry["numAddedFiles"], entry["addedBytes"], entry["numAddActions"]) == (5, 1234, 1)
    # The Version page reads the commit on its own, by the same rule: the same figures.
    rows = commit_rows(DeltaLog.open(str(root)), 2)
    assert (rows.inserted, rows.exact, rows.label()) == (999, True, "+999 / −0")


def test_an_append_without_row_metrics_is_counted_from_its_files(tmp_path: Path) -> None:
    root = tmp_path / "stream"
    make_commits_table(str(root), 5)
    path = root / "_delta_log" / f"{3:020d}.json"
    path.write_bytes(path.read_bytes().replace(b'"numOutputRows":"20",', b""))
    log = DeltaLog.open(str(root))

    (commit, rows), *_ = list(scan_commits(log, [3]))

    assert commit.counted is not None
    assert (rows.inserted, rows.note) == (20, "from file stats and deletion vectors")


def test_a_big_create_table_as_select_is_taken_from_its_metrics(tmp_path: Path) -> None:
    # Commit 0 holds 4,000 adds (over a megabyte): a CREATE TABLE AS SELECT whose metrics
    # record files, rows and bytes. Its figures are the metrics'; those of the commits after
    # it, which remove files without their own stats, come from the snapshot of version 0.
    root = tmp_path / "files"
    make_files_table(str(root), 4000)

    history = build_history(DeltaLog.open(str(root)), Settings())

    first = history_record(history[0])
    assert (first["numAddedFiles"], first["numAddActions"], first["rowsInserted"]) == (
        4000,
        4000,
        40000,
    )
    for entry in history:
        assert entry.rows == commit_rows(DeltaLog.open(str(root)), entry.version)
