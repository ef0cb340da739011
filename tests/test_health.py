"""Health check specifications: replication failures reproduced on copies of real tables.

Each test damages a copy the way an interrupted asynchronous replication does
(files missing, truncated, a commit or checkpoint not copied, file times reset)
and asserts what an operator sees: exactly which versions are affected and the
last consistent version. Log-only: no Spark here (see test_health_restore.py).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from inspector.cli.main import main
from inspector.delta.actions import canonical_path
from inspector.delta.paths import data_file_path
from inspector.files.filecheck import FileRole, check_files
from inspector.health import (
    ProblemKind,
    VersionStatus,
    check_table,
    recovery_advice,
    restore_command,
)
from inspector.health.runs import grouped_record
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.conftest import add_files

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
FIVE_FILES = "delta-kernel-java/kernel-pagination-all-jsons"  # 0..2, 5 files per commit
DV_TABLE = "delta-kernel-java/basic-dv-no-checkpoint"  # 0 write, 1 delete with a deletion vector
DELETES = "delta-golden/basic-with-inserts-deletes-checkpoint"  # 0..13 with deletes, checkpoint 10


def _log_file(root: Path, version: int, suffix: str = "json") -> Path:
    return root / "_delta_log" / f"{version:020d}.{suffix}"


def _added_paths(root: Path, version: int) -> list[Path]:
    return [root / a.path for a in DeltaLog.open(str(root)).commit(version).adds]


def _statuses(report) -> dict[int, str]:
    return {v.version: v.status for v in report.versions}


def _damaged(report) -> list[int]:
    return [v.version for v in report.damaged_versions]


def _write_partitioned(root: Path, commits: int = 3) -> None:
    """A table written here: each append adds one file in each of three partitions."""
    for i in range(commits):
        batch = pa.table({"id": list(range(i * 6, i * 6 + 6)), "p": ["a", "b", "c"] * 2})
        write_deltalake(str(root), batch, partition_by=["p"], mode="append")


@pytest.mark.parametrize(
    "table",
    [
        APPENDS,
        FIVE_FILES,
        DV_TABLE,
        DELETES,
        "delta-kernel-rs/v2-checkpoints-parquet-with-sidecars",
        "delta-golden/dv-partitioned-with-checkpoint",
    ],
)
def test_an_intact_table_is_consistent_at_its_latest_version(corpus, table):
    log = DeltaLog.open(str(corpus / table))

    report = check_table(log, settings=Settings())

    assert report.is_consistent
    assert report.last_consistent_version == log.latest_version
    assert [v.version for v in report.versions] == [log.latest_version]
    assert report.files_examined == len(
        {p for a in log.snapshot().files.values() for p in _paths(a)}
    )


def _paths(add) -> list[str]:
    dv = add.deletion_vector
    return [add.path] + ([dv.relative_or_absolute_path()] if dv and dv.storage_type != "i" else [])


def test_newest_data_file_deleted_names_only_the_newest_version(copy_table):
    root = copy_table(APPENDS)
    lost = _added_paths(root, 14)[0]
    lost.unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _damaged(report) == [14]
    assert report.last_consistent_version == 13
    assert (
        not report.is_consistent and report.all_versions
    )  # went on to find the last consistent one
    assert report.latest.missing_files == (lost.name,)
    assert report.latest.missing_count == 1


def test_truncated_newest_data_file_is_a_size_mismatch(copy_table):
    root = copy_table(APPENDS)
    damaged = _added_paths(root, 14)[1]
    recorded = damaged.stat().st_size
    os.truncate(damaged, recorded // 2)

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert _damaged(report) == [14]
    assert report.last_consistent_version == 13
    (issue,) = report.latest.size_mismatches
    assert (issue.path, issue.expected_size, issue.actual_size) == (
        damaged.name,
        recorded,
        recorded // 2,
    )
    assert report.latest.missing_count == 0


def test_only_some_of_several_new_files_arrived(copy_table):
    root = copy_table(FIVE_FILES)
    new_files = _added_paths(root, 2)
    for path in new_files[:3]:
        path.unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _statuses(report) == {
        0: VersionStatus.COMPLETE,
        1: VersionStatus.COMPLETE,
        2: VersionStatus.INCOMPLETE,
    }
    assert report.last_consistent_version == 1
    assert report.latest.missing_count == 3
    assert set(report.latest.missing_files) == {p.name for p in new_files[:3]}


def test_only_some_new_partition_files_arrived_in_a_table_written_here(tmp_path):
    root = tmp_path / "events"
    _write_partitioned(root)
    for path in _added_paths(root, 2)[:2]:
        path.unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _damaged(report) == [2]
    assert report.last_consistent_version == 1
    assert report.latest.missing_count == 2
    assert all(name.startswith("p=") for name in report.latest.missing_files)


def test_missing_deletion_vector_file_makes_its_version_incomplete(copy_table):
    root = copy_table(DV_TABLE)
    (dv_file,) = root.glob("deletion_vector_*.bin")
    dv_file.unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _statuses(report) == {0: VersionStatus.COMPLETE, 1: VersionStatus.INCOMPLETE}
    assert report.last_consistent_version == 0
    assert report.latest.missing_files == (dv_file.name,)


def test_truncated_deletion_vector_file_is_a_size_mismatch(copy_table):
    root = copy_table(DV_TABLE)
    (dv_file,) = root.glob("deletion_vector_*.bin")
    os.truncate(dv_file, 10)

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    (issue,) = report.latest.size_mismatches
    assert (issue.role, issue.actual_size) == (FileRole.DELETION_VECTOR, 10)
    assert report.last_consistent_version == 0


def test_commit_missing_in_the_middle_bridged_by_a_checkpoint(copy_table):
    root = copy_table(DELETES)
    _log_file(root, 5).unlink()

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert _damaged(report) == [5, 6, 7, 8, 9]
    assert {_statuses(report)[v] for v in range(5, 10)} == {VersionStatus.UNREADABLE}
    assert report.versions[5].problems[0].kind == ProblemKind.COMMIT_MISSING
    assert report.versions[6].problems[0].kind == ProblemKind.REPLAY_BROKEN
    assert "version 5" in report.versions[6].problems[0].message
    assert report.last_consistent_version == 13 and report.is_consistent


def test_commit_missing_after_the_last_checkpoint_leaves_the_latest_unreadable(copy_table):
    root = copy_table(DELETES)
    _log_file(root, 12).unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _damaged(report) == [12, 13]
    assert report.latest.status == VersionStatus.UNREADABLE
    assert report.last_consistent_version == 11
    assert restore_command(report) is None  # no restore can be committed on an unreadable log
    assert "commit files" in recovery_advice(report)


def test_truncated_latest_commit_is_unreadable(copy_table):
    root = copy_table(APPENDS)
    commit = _log_file(root, 14)
    commit.write_bytes(commit.read_bytes()[:-40])

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _damaged(report) == [14]
    assert report.latest.status == VersionStatus.UNREADABLE
    assert report.latest.problems[0].kind == ProblemKind.COMMIT_DAMAGED
    assert "truncated" in report.latest.problems[0].message
    assert report.last_consistent_version == 13


def test_missing_checkpoint_with_the_commits_retained_is_named_but_harmless(copy_table):
    root = copy_table(DELETES)
    _log_file(root, 10, "checkpoint.parquet").unlink()

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert _damaged(report) == []
    assert report.last_consistent_version == 13
    assert any("_last_checkpoint" in p.message for p in report.versions[10].problems)
    assert {p.kind for p in report.versions[10].problems} == {ProblemKind.CHECKPOINT}
    assert any("_last_checkpoint" in p for p in report.problems)


def test_missing_checkpoint_after_log_cleanup_leaves_no_consistent_version(copy_table):
    root = copy_table(DELETES)
    for version in range(10):  # log cleanup kept only what the checkpoint needs...
        _log_file(root, version).unlink()
    _log_file(root, 10, "checkpoint.parquet").unlink()  # ...and the checkpoint never arrived

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert _statuses(report) == {
        10: VersionStatus.UNREADABLE,
        11: VersionStatus.UNREADABLE,
        12: VersionStatus.UNREADABLE,
        13: VersionStatus.UNREADABLE,
    }
    assert report.last_consistent_version is None
    assert "No retained version" not in recovery_advice(report)  # the log is the problem
    assert restore_command(report) is None


def test_copy_with_every_file_time_changed_is_still_consistent(copy_table, corpus):
    root = copy_table(DELETES)
    later = time.time() + 86_400 * 400
    for path in root.rglob("*"):
        os.utime(path, (later, later))

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())
    original = check_table(
        DeltaLog.open(str(corpus / DELETES)), all_versions=True, settings=Settings()
    )

    assert _statuses(report) == _statuses(original)
    assert report.last_consistent_version == 13


def test_full_check_examines_each_distinct_file_once_with_progress(copy_table):
    root = copy_table(DELETES)
    log = DeltaLog.open(str(root))
    distinct = {a.path for c in log.commits for a in c.adds}
    calls: list[tuple[int, int]] = []

    report = check_table(
        log,
        all_versions=True,
        progress=lambda done, total: calls.append((done, total)),
        settings=Settings(),
    )

    assert report.files_examined == len(distinct)
    assert calls[-1] == (len(distinct), len(distinct))
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_missing_file_lists_are_capped_but_counts_are_exact(copy_table):
    root = copy_table(FIVE_FILES)
    for path in _added_paths(root, 2):
        path.unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings(max_listed_files=2))

    assert len(report.latest.missing_files) == 2
    assert report.latest.missing_count == 5


def test_orphan_files_are_counted_with_their_bytes(copy_table):
    root = copy_table(FIVE_FILES)
    (root / "part-99999-stray.parquet").write_bytes(b"x" * 123)
    (root / "_temporary").mkdir()
    (root / "_temporary" / "ignored.parquet").write_bytes(b"x" * 5)  # underscore dirs are not data
    (root / ".hidden.crc").write_bytes(b"x")

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert (report.orphan_files, report.orphan_bytes) == (1, 123)
    assert report.orphan_paths == ("part-99999-stray.parquet",)


def test_deep_check_reads_footers(copy_table):
    root = copy_table(FIVE_FILES)
    garbage = _added_paths(root, 2)[0]
    garbage.write_bytes(b"\0" * garbage.stat().st_size)  # right size, not Parquet

    fast = check_table(DeltaLog.open(str(root)), settings=Settings())
    deep = check_table(DeltaLog.open(str(root)), deep=True, settings=Settings())

    assert fast.is_consistent
    assert _damaged(deep) == [2] and deep.last_consistent_version == 1
    (issue,) = deep.latest.unreadable_files
    assert issue.path == garbage.name and "footer" in issue.detail


def test_deep_check_compares_row_counts_with_the_stats(copy_table):
    root = copy_table(FIVE_FILES)
    commit = _log_file(root, 2)
    lines = commit.read_text().splitlines()
    for i, line in enumerate(lines):
        action = json.loads(line)
        if "add" in action:
            stats = json.loads(action["add"]["stats"])
            stats["numRecords"] += 1
            action["add"]["stats"] = json.dumps(stats)
            lines[i] = json.dumps(action)
            break
    commit.write_text("\n".join(lines) + "\n")

    report = check_table(DeltaLog.open(str(root)), deep=True, settings=Settings())

    assert report.latest.unreadable_count == 1
    assert "rows" in report.latest.unreadable_files[0].detail


def test_cli_check_json_contract_and_exit_code(copy_table, capsys):
    root = copy_table(APPENDS)
    _added_paths(root, 14)[0].unlink()

    code = main(["check", str(root), "--json"])
    out = json.loads(capsys.readouterr().out)

    assert code == 4
    assert out["latestVersion"] == 14 and out["lastConsistentVersion"] == 13
    assert {"versions", "orphanFiles", "orphanBytes", "filesExamined"} <= set(out)
    latest = out["versions"][-1]
    assert latest["status"] == "incomplete" and len(latest["missingFiles"]) == 1
    window = out.pop("dataLossWindow")  # see test_replica.py for its values
    assert out.pop("stagedCommits") == []  # see test_catalog_managed.py
    report = check_table(DeltaLog.open(str(root)), settings=Settings())
    assert out == json.loads(json.dumps({**report.to_json(), **grouped_record(report)}))
    assert window["versions"] == 1


def test_cli_check_text_for_a_healthy_and_a_broken_table(copy_table, capsys):
    root = copy_table(APPENDS)
    assert main(["check", str(root), "--all-versions"]) == 0
    assert "OK: the latest version 14 is consistent" in capsys.readouterr().out

    _added_paths(root, 14)[0].unlink()
    assert main(["check", str(root)]) == 4
    text = capsys.readouterr().out
    assert "NOT CONSISTENT" in text and "Last consistent version: 13" in text
    assert "--to-version 13" in text


def test_cli_check_of_a_folder_that_is_not_a_table_exits_2(tmp_path, capsys):
    assert main(["check", str(tmp_path)]) == 2
    assert "not a Delta table" in capsys.readouterr().err


def test_checkpoint_that_disagrees_with_its_commits_is_named_on_its_version(copy_table):
    root = copy_table(DELETES)
    commit = _log_file(root, 9)
    commit.write_text(
        "".join(
            line
            for line in commit.read_text().splitlines(keepends=True)
            if not line.startswith('{"add"')
        )
    )  # commit 9's new file is lost from the log

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert any(p.kind == ProblemKind.CHECKPOINT for p in report.versions[10].problems)
    assert not any(v.problems for v in report.versions if v.version != 10)


def test_the_check_and_a_restore_plan_name_a_missing_escaped_file_alike(copy_table):
    # one rule for an add's files (filecheck.referenced_files): both show the decoded path
    root = copy_table("delta-golden/hive/deltatbl-special-chars-in-partition-column")
    log = DeltaLog.open(str(root))
    add = next(iter(add_files(log.snapshot())))
    Path(data_file_path(str(root), add.path)).unlink()

    report = check_table(DeltaLog.open(str(root)), settings=Settings())
    planned = check_files(str(root), [add], workers=1)

    assert "%" in add.path and report.latest.missing_files == (canonical_path(add.path),)
    assert [issue.path for issue in planned] == [canonical_path(add.path)]
