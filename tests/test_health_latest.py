"""The fast health check (the latest version, in Arrow) on tables written here.

It answers from the latest snapshot and one walk of the table folder: a first commit its
checkpoint covers is not read, a file the snapshot's tombstones name is no orphan, one that
only commits before the newest checkpoint name is (as VACUUM sees it), and on a healthy
table it agrees with the check of every version.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from bench.tablegen import make_commits_table, make_files_table
from inspector.health import check_table
from inspector.health.records import OrphanScope
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.storage import LocalStorage
from tests.conftest import REPO, tombstones
from tests.counting_storage import counted_log


def _write(root: Path, commits: int, *, checkpoint_at_first: bool = False) -> None:
    for i in range(commits):
        batch = pa.table({"id": list(range(i * 4, i * 4 + 4)), "p": ["a", "b"] * 2})
        write_deltalake(str(root), batch, partition_by=["p"], mode="append")
        if i == 0 and checkpoint_at_first:
            DeltaTable(str(root)).create_checkpoint()


def test_a_first_commit_its_checkpoint_covers_is_not_read(tmp_path):
    root = tmp_path / "t"
    _write(root, 3, checkpoint_at_first=True)
    (root / "stray.parquet").write_bytes(b"x" * 3)  # an orphan: change-data files are asked
    log, storage = counted_log(root, count_open=True)

    report = check_table(log, settings=Settings())

    assert report.is_consistent and report.orphan_paths == ("stray.parquet",)
    assert f"{0:020d}.json" not in storage.reads
    assert report.files_examined == 6


def test_files_an_older_retained_version_references_are_not_orphans(tmp_path):
    root = tmp_path / "t"
    _write(root, 2)
    batch = pa.table({"id": [99], "p": ["a"]})
    write_deltalake(str(root), batch, partition_by=["p"], mode="overwrite")  # removes 4 files
    (root / "p=a" / "stray.parquet").write_bytes(b"x" * 11)

    fast = check_table(DeltaLog.open(str(root)), settings=Settings())
    full = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert (fast.orphan_files, fast.orphan_bytes) == (1, 11)
    assert fast.orphan_paths == ("p=a/stray.parquet",)
    assert (fast.orphan_files, fast.orphan_paths) == (full.orphan_files, full.orphan_paths)
    assert fast.files_examined == 1 and not fast.all_versions


def test_a_missing_latest_file_goes_on_to_every_version(tmp_path):
    root = tmp_path / "t"
    _write(root, 3)
    newest = DeltaLog.open(str(root)).commit(2).adds[0].path
    os.unlink(root / newest)

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert report.all_versions
    assert [v.version for v in report.damaged_versions] == [2]
    assert report.last_consistent_version == 1


@pytest.mark.parametrize(
    "table",
    [
        "delta-kernel-java/basic-with-checkpoint",
        "delta-golden/basic-with-inserts-deletes-checkpoint",
        "delta-kernel-java/basic-dv-no-checkpoint",
        "delta-golden/dv-partitioned-with-checkpoint",
    ],
)
def test_on_a_healthy_table_the_fast_check_agrees_with_the_full_one(copy_table, table):
    root = copy_table(table)
    (root / "stray.parquet").write_bytes(b"x" * 3)

    fast = check_table(DeltaLog.open(str(root)), settings=Settings())
    full = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert fast.latest == full.latest
    assert (fast.orphan_files, fast.orphan_bytes, fast.orphan_paths) == (
        full.orphan_files,
        full.orphan_bytes,
        full.orphan_paths,
    )
    assert fast.problems == full.problems


def test_walk_sizes_lists_what_walk_lists(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.parquet").write_bytes(b"x" * 5)
    (tmp_path / "top.parquet").write_bytes(b"x" * 2)
    (tmp_path / "link.parquet").symlink_to(tmp_path / "top.parquet")  # followed to the file
    (tmp_path / "dirlink").symlink_to(tmp_path / "a")  # never entered
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    storage = LocalStorage(str(tmp_path))

    paths, sizes = storage.walk_sizes()

    walked = {m.path: m.size for m in storage.walk()}
    assert dict(zip(paths, sizes, strict=True)) == walked
    assert walked == {"a/b/f.parquet": 5, "top.parquet": 2, "link.parquet": 2}
    assert dict(zip(*storage.walk_sizes("a"), strict=True)) == {"a/b/f.parquet": 5}


def test_the_fast_check_judges_orphans_by_the_latest_snapshot_as_vacuum_does(tmp_path):
    # A streaming table compacted every 100 versions; its checkpoints keep only the newest
    # interval's tombstones, so files the older compactions removed are named only by
    # retained commits before the newest checkpoint, which the fast check does not read.
    root = tmp_path / "t"
    make_commits_table(str(root), 260)
    log = DeltaLog.open(str(root))
    removed = {r.path for c in log.commits for r in c.removes}
    kept = {r.path for r in tombstones(log.snapshot())}

    settings = Settings(max_listed_files=len(removed))  # every path listed
    fast = check_table(DeltaLog.open(str(root)), settings=settings)
    full = check_table(DeltaLog.open(str(root)), all_versions=True, settings=settings)

    assert fast.orphan_scope is OrphanScope.LATEST_SNAPSHOT
    assert full.orphan_scope is OrphanScope.RETAINED_VERSIONS
    assert removed - kept and full.orphan_files == 0
    assert set(fast.orphan_paths) == removed - kept
    assert fast.latest == full.latest and fast.is_consistent


def test_the_check_of_a_big_checkpoint_never_imports_pandas(tmp_path):
    # pyarrow imports pandas when an array is built from numpy by pa.array: a third of a
    # second of every check. A checkpoint over 4,000 rows is read by pyarrow.
    root = tmp_path / "t"
    make_files_table(str(root), 6000)  # 6,000 files in checkpoint 0
    script = (
        "import sys; from inspector.cli.main import main; "
        f"code = main(['check', {str(root)!r}, '--json']); "
        "sys.exit(code or ('pandas' in sys.modules and 9))"
    )

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=REPO)

    assert done.returncode == 0, done.stderr.decode()


def test_a_snapshot_without_statistics_has_the_same_files_and_is_never_handed_to_others(
    tmp_path,
):
    root = tmp_path / "t"
    make_files_table(str(root), 6000)  # read by pyarrow: over 4,000 rows
    log = DeltaLog.open(str(root))

    bare = log.snapshot(statistics=False)
    whole = log.snapshot()

    columns = ["key_path", "size", "deletionVector"]
    assert bare.files_table.select(columns) == whole.files_table.select(columns)
    assert bare.tombstones_table.select(columns) == whole.tombstones_table.select(columns)
    assert bare.files_table.column("stats").null_count > 0
    assert whole.files_table.column("stats").null_count == 0
    assert log.snapshot(statistics=False) is whole  # a cached whole snapshot serves


def test_an_unusable_newest_checkpoint_is_named_with_the_latest_version(tmp_path):
    root = tmp_path / "t"
    _write(root, 2, checkpoint_at_first=True)
    _write(root, 1)  # the latest version is read past the checkpoint, from the commits
    (checkpoint,) = (root / "_delta_log").glob("*.checkpoint.parquet")
    checkpoint.write_bytes(os.urandom(2000))  # a replica's garbage in place of the newest
    log, _ = counted_log(root)

    report = check_table(log, settings=Settings())

    assert report.is_consistent, "the commits still give every version"
    (problem,) = report.latest.problems
    assert problem.message.startswith("Checkpoint 0 cannot be used")
