"""Replica check specifications: replication in flight, reproduced on copies of real tables.

The primary is a copy of a corpus table; the replica a second copy damaged the way an
unfinished asynchronous replication leaves it (newest commit not copied, newest data
files not copied, a file half-copied, a deletion-vector file not copied). Each time
the report names exactly what is missing, the replica's last consistent version, and
the data-loss window, whose expected values are read here straight from the commits.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.connection import StorageOptions
from inspector.delta.errors import InvalidInput, NotADeltaTable
from inspector.health.replica import compare_replica
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table import open_table

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
DV_TABLE = "delta-kernel-java/basic-dv-no-checkpoint"  # 0 write, 1 delete with a deletion vector
OTHER = "delta-kernel-java/kernel-pagination-all-jsons"


def _compare(primary, replica):
    """The replica check of two local tables, with the default settings."""
    return compare_replica(
        open_table(str(primary), Settings()),
        open_table(str(replica), Settings()),
        settings=Settings(),
    )


def _commit(root: Path, version: int) -> list[dict]:
    text = (root / "_delta_log" / f"{version:020d}.json").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _commit_seconds(root: Path, version: int) -> int:
    return next(a["commitInfo"]["timestamp"] for a in _commit(root, version) if "commitInfo" in a)


def _rows_added(root: Path, versions: range) -> int:
    return sum(
        json.loads(a["add"]["stats"])["numRecords"]
        for v in versions
        for a in _commit(root, v)
        if "add" in a
    )


def _window(
    primary: Path, consistent: int, latest: int, *, added: int | None = None, removed: int = 0
) -> dict:
    """The data-loss window from ``consistent`` to ``latest``, read from the primary's commits
    (the rows inserted are those of the commits' adds unless ``added`` says otherwise)."""
    seconds = (_commit_seconds(primary, latest) - _commit_seconds(primary, consistent)) / 1000
    if added is None:
        added = _rows_added(primary, range(consistent + 1, latest + 1))
    return {
        "versions": latest - consistent,
        "seconds": seconds,
        "rowsInserted": added,
        "rowsDeleted": removed,
        "rowsUpdated": 0,
    }


def _adds(root: Path, version: int) -> list[str]:
    return sorted(a["add"]["path"] for a in _commit(root, version) if "add" in a)


def _delete(path: Path) -> int:
    """Delete a file (one the replication has not copied yet); its size."""
    size = path.stat().st_size
    path.unlink()
    return size


@pytest.fixture
def pair(copy_table, tmp_path):
    """(primary, replica): two copies of one table."""

    def _pair(table: str) -> tuple[Path, Path]:
        primary = copy_table(table)
        replica = tmp_path / "replica"
        shutil.copytree(primary, replica)
        return primary, replica

    return _pair


def test_a_complete_replica_has_nothing_to_copy_and_loses_nothing(pair):
    primary, replica = pair(APPENDS)

    report = _compare(primary, replica)

    assert report.to_json() == {
        "primaryLatestVersion": 14,
        "replicaLatestVersion": 14,
        "replicaLastConsistentVersion": 14,
        "missingCommits": [],
        "missingFiles": [],
        "sizeMismatches": [],
        "bytesToCopy": 0,
        "extraFiles": 0,
        "dataLossWindow": {
            "versions": 0,
            "seconds": 0.0,
            "rowsInserted": 0,
            "rowsDeleted": 0,
            "rowsUpdated": 0,
        },
    }
    assert report.replica_consistent


def test_replica_missing_the_newest_commit(pair):
    primary, replica = pair(APPENDS)
    size = _delete(replica / "_delta_log" / f"{14:020d}.json")

    report = _compare(primary, replica)

    assert [f.version for f in report.missing_commits] == [14]
    assert report.missing_files == () and report.size_mismatches == ()
    assert report.bytes_to_copy == size
    assert (report.replica_latest_version, report.replica_last_consistent_version) == (13, 13)
    assert report.replica_consistent  # what it has is whole; it is one version behind
    assert report.window.to_json() == _window(primary, 13, 14)


def test_replica_missing_the_newest_data_files(pair):
    primary, replica = pair(APPENDS)
    for path in _adds(primary, 14):
        (replica / path).unlink()

    report = _compare(primary, replica)

    assert report.missing_commits == ()
    assert [(f.version, f.path) for f in report.missing_files] == [
        (14, p) for p in _adds(primary, 14)
    ]
    assert report.bytes_to_copy == sum((primary / p).stat().st_size for p in _adds(primary, 14))
    assert report.replica_last_consistent_version == 13
    assert not report.replica_consistent
    assert report.window.versions == 1
    assert report.window.rows_inserted == _rows_added(primary, range(14, 15))


def test_replica_with_a_truncated_file(pair):
    primary, replica = pair(APPENDS)
    victim = _adds(primary, 12)[0]
    data = (replica / victim).read_bytes()
    (replica / victim).write_bytes(data[: len(data) // 2])

    report = _compare(primary, replica)

    assert report.missing_files == ()
    assert [(f.version, f.path, f.size, f.replica_size) for f in report.size_mismatches] == [
        (12, victim, len(data), len(data) // 2)
    ]
    assert report.replica_last_consistent_version == 11
    assert report.window.to_json() == _window(primary, 11, 14)


def test_replica_missing_a_deletion_vector_file(pair):
    primary, replica = pair(DV_TABLE)
    dv = next(p.name for p in replica.glob("deletion_vector_*.bin"))
    (replica / dv).unlink()
    cardinality = next(
        a["add"]["deletionVector"]["cardinality"] for a in _commit(primary, 1) if "add" in a
    )

    report = _compare(primary, replica)

    assert [(f.version, f.path) for f in report.missing_files] == [(1, dv)]
    assert report.replica_last_consistent_version == 0 and not report.replica_consistent
    assert report.window.to_json() == _window(primary, 0, 1, added=0, removed=cardinality)


def test_files_only_on_the_replica_are_counted(pair):
    primary, replica = pair(APPENDS)
    (replica / "leftover.parquet").write_bytes(b"x")

    assert _compare(primary, replica).to_json()["extraFiles"] == 1


def test_two_different_tables_are_refused(copy_table):
    with pytest.raises(InvalidInput, match="two different tables"):
        _compare(copy_table(APPENDS), copy_table(OTHER))


def test_a_replica_that_is_not_a_table_is_refused_naming_the_side(tmp_path):
    with pytest.raises(NotADeltaTable, match="The replica is not a Delta table"):
        open_table(str(tmp_path), Settings(), role="replica")


# --- the CLI contract -----------------------------------------------------------------------


def _run(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_replica_cli_exits_4_while_the_replica_is_inconsistent_and_0_when_whole(pair, capsys):
    primary, replica = pair(APPENDS)
    for path in _adds(primary, 14):
        (replica / path).unlink()

    code, body, _ = _run(capsys, "replica", str(primary), str(replica), "--json")
    assert code == 4
    assert list(body) == [
        "primaryLatestVersion",
        "replicaLatestVersion",
        "replicaLastConsistentVersion",
        "missingCommits",
        "missingFiles",
        "sizeMismatches",
        "bytesToCopy",
        "extraFiles",
        "dataLossWindow",
    ]
    assert {f["version"] for f in body["missingFiles"]} == {14}
    assert set(body["missingFiles"][0]) == {"version", "path", "size"}
    assert list(body["dataLossWindow"]) == [
        "versions",
        "seconds",
        "rowsInserted",
        "rowsDeleted",
        "rowsUpdated",
    ]

    for path in _adds(primary, 14):
        shutil.copy2(primary / path, replica / path)
    code, body, _ = _run(capsys, "replica", str(primary), str(replica), "--json")
    assert code == 0 and body["replicaLastConsistentVersion"] == 14


def test_replica_cli_text_names_what_to_copy(pair, capsys):
    primary, replica = pair(APPENDS)
    (replica / "_delta_log" / f"{14:020d}.json").unlink()

    code = main(["replica", str(primary), str(replica)])

    out = capsys.readouterr().out
    assert code == 0
    assert "Commits still to copy: 14" in out and "window of a failover now: 1 version," in out


@pytest.mark.parametrize("which", ["primary", "replica"])
def test_replica_cli_refuses_a_location_that_is_not_a_table(copy_table, tmp_path, capsys, which):
    table, empty = str(copy_table(APPENDS)), str(tmp_path)
    args = [table, empty] if which == "replica" else [empty, table]

    code, body, err = _run(capsys, "replica", *args, "--json")

    assert code == 2
    assert body["error"]["type"] == "NotADeltaTable"
    assert f"The {which} is not a Delta table" in err
    assert "Traceback" not in err


def test_replica_cli_refuses_two_different_tables(copy_table, capsys):
    code, body, err = _run(
        capsys, "replica", str(copy_table(APPENDS)), str(copy_table(OTHER)), "--json"
    )

    assert code == 2 and body["error"]["type"] == "InvalidInput"
    assert "two different tables" in err and "table id" in err


def test_check_json_reports_the_data_loss_window(copy_table, capsys):
    root = copy_table(APPENDS)
    for path in _adds(root, 13):
        (root / path).unlink()

    code, body, _ = _run(capsys, "check", str(root), "--json")

    assert code == 4
    assert body["lastConsistentVersion"] == 12
    assert body["dataLossWindow"] == {
        "versions": 2,
        "seconds": (_commit_seconds(root, 14) - _commit_seconds(root, 12)) / 1000,
        "rowsInserted": _rows_added(root, range(13, 15)),
        "rowsDeleted": 0,
        "rowsUpdated": 0,
    }


def test_check_json_of_a_consistent_table_has_an_empty_window(corpus, capsys):
    code, body, _ = _run(capsys, "check", str(corpus / APPENDS), "--json")

    assert code == 0
    assert body["dataLossWindow"] == {
        "versions": 0,
        "seconds": 0.0,
        "rowsInserted": 0,
        "rowsDeleted": 0,
        "rowsUpdated": 0,
    }


def test_replica_missing_commits_of_a_version_behind_a_checkpoint_still_lists_them(pair):
    primary, replica = pair(APPENDS)
    for version in (13, 14):
        (replica / "_delta_log" / f"{version:020d}.json").unlink()

    report = _compare(primary, replica)

    assert [f.version for f in report.missing_commits] == [13, 14]
    assert report.window.versions == 2
    assert DeltaLog.open(str(replica)).latest_version == 12


def test_replica_missing_a_checkpoint_lists_it_under_its_version(pair):
    primary, replica = pair(APPENDS)
    size = _delete(replica / "_delta_log" / f"{10:020d}.checkpoint.parquet")

    report = _compare(primary, replica)

    assert [(f.version, f.path, f.size) for f in report.missing_files] == [
        (10, f"_delta_log/{10:020d}.checkpoint.parquet", size)
    ]
    assert report.bytes_to_copy == size


def test_the_window_counts_data_changes_only_by_the_one_row_rule(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from inspector.health.replica import data_loss_window

    root = str(tmp_path / "t")
    write_deltalake(root, pa.table({"id": list(range(10))}))
    write_deltalake(root, pa.table({"id": list(range(10, 15))}), mode="append")
    DeltaTable(root).optimize.compact()  # v2: rows moved, not changed
    DeltaTable(root).delete("id < 3")  # v3: the compacted file rewritten without 3 rows
    log = DeltaLog.open(root)

    assert data_loss_window(log, 1, 2).to_json() | {"seconds": None} == {
        "versions": 1,
        "seconds": None,
        "rowsInserted": 0,
        "rowsDeleted": 0,
        "rowsUpdated": 0,
    }
    window = data_loss_window(log, 0, 3)
    # The DELETE's metrics say 3 rows, not the 15 of the file it rewrote (the Version page's figures)
    assert (window.versions, window.rows_inserted, window.rows_deleted) == (3, 5, 3)
    assert data_loss_window(log, None, 3).rows_inserted == 12


def test_the_window_counts_an_updated_row_once_as_delta_does(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from inspector.health.replica import data_loss_window

    root = str(tmp_path / "t")
    write_deltalake(root, pa.table({"id": list(range(10)), "x": [0] * 10}))
    DeltaTable(root).update(updates={"x": "1"}, predicate="id < 4")  # v1: 4 rows updated
    write_deltalake(root, pa.table({"id": [10, 11], "x": [0, 0]}), mode="append")  # v2
    DeltaTable(root).delete("id = 9")  # v3
    log = DeltaLog.open(root)
    metrics = DeltaTable(root).history()[-2]["operationMetrics"]  # v1, as delta-rs wrote it

    window = data_loss_window(log, 0, 3)

    assert metrics["num_updated_rows"] == 4
    # Not 6 inserted and 5 deleted: an updated row is neither, and is counted once.
    assert (window.rows_inserted, window.rows_deleted, window.rows_updated) == (2, 1, 4)


def test_a_primary_in_s3_and_a_local_replica_are_compared_alike(pair, s3_server):
    primary, replica = pair(APPENDS)
    for path in _adds(primary, 14):
        (replica / path).unlink()
    uri = s3_server.upload(primary)

    remote = compare_replica(
        open_table(uri, Settings(storage_options=StorageOptions(s3_server.options))),
        open_table(str(replica), Settings()),
        settings=Settings(),
    )
    local = _compare(primary, replica)

    assert remote.to_json() == local.to_json()
    assert remote.replica_last_consistent_version == 13
