"""Specification: a commit crashed at any step leaves the table at the old or the new version.

The commit writer reports each step it finishes (the temporary file written, fsynced, linked
to the commit's name, the temporary name removed). A child process writes the commit and
ends itself with ``os._exit`` right after one step: no cleanup runs, as in a power cut or a
SIGKILL. Afterwards the log must be whole: every commit file complete, the latest version
exactly the old one (crash before the link) or the new one (after it), any leftover
temporary file a dot-file that no reader takes for a commit, and the next commit possible.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil

import pytest
from deltalake import DeltaTable

from inspector.log.commit_writer import write_commit
from inspector.log.deltalog import DeltaLog
from inspector.restore import plan_restore
from inspector.restore.actions import restore_actions
from inspector.rows.delta_engine import read_snapshot
from inspector.settings import Settings
from inspector.storage.local import CommitStep
from inspector.table import open_table
from tests.conftest import add_files, copy_corpus_table, crash_in_child, sales_table

CHECK_WORKERS = Settings().check_workers

_COMMIT_NAME = re.compile(r"^\d{20}\.json$")

#: The version a reader must see after a crash at each step: before the link the commit
#: does not exist; from the link on it exists whole.
NEW_VERSION_AFTER = {
    CommitStep.TEMP_WRITTEN: False,
    CommitStep.TEMP_FSYNCED: False,
    CommitStep.LINKED: True,
    CommitStep.TEMP_REMOVED: True,
}


def test_every_step_of_the_writer_is_covered():
    assert set(NEW_VERSION_AFTER) == set(CommitStep)


def crash_writing(table: str, version: int, actions: list[dict], step: CommitStep) -> None:
    """Write ``actions`` as ``version`` in a child process that crashes right after ``step``."""
    folder = os.path.join(table, "_delta_log")
    job = {"folder": folder, "version": version, "actions": actions, "step": step}
    crash_in_child(job)


def assert_log_is_whole(table: str, expected_version: int) -> DeltaLog:
    """Every commit complete, the expected latest version, no temp file that looks like a commit."""
    log = DeltaLog.open(table)
    assert all(c.is_complete for c in log.commits), "a partial commit file is visible"
    names = os.listdir(os.path.join(table, "_delta_log"))
    assert all(n.startswith(".") for n in names if n.endswith(".tmp")), names
    assert max(int(n[:20]) for n in names if _COMMIT_NAME.match(n)) == expected_version
    assert log.latest_version == expected_version
    assert DeltaTable(table).version() == expected_version  # the oracle agrees
    return log


@pytest.mark.parametrize("step", list(CommitStep))
def test_a_commit_crashed_after_any_step_leaves_the_old_or_the_new_version(tmp_path, step):
    table = str(copy_corpus_table("dat-v0.0.2/basic_append/delta", tmp_path / "table"))
    before = DeltaTable(table)
    old_version, old_rows = before.version(), before.to_pyarrow_table().num_rows
    gone = add_files(DeltaLog.open(table).snapshot())[0]
    actions = [
        {"commitInfo": {"operation": "DELETE", "timestamp": 1_700_000_000_000}},
        {"remove": {"path": gone.path, "deletionTimestamp": 1_700_000_000_000, "dataChange": True}},
    ]

    crash_writing(table, old_version + 1, actions, step)

    new = NEW_VERSION_AFTER[step]
    assert_log_is_whole(table, old_version + 1 if new else old_version)
    rows_now = DeltaTable(table).to_pyarrow_table().num_rows
    assert rows_now == (old_rows - gone.num_records if new else old_rows)
    # The writer's leftovers never block the next commit.
    write_commit(
        os.path.join(table, "_delta_log"),
        old_version + (2 if new else 1),
        [{"commitInfo": {"operation": "WRITE"}}],
    )
    assert DeltaLog.open(table).latest_version == old_version + (2 if new else 1)


@pytest.mark.spark
def test_a_restore_commit_crashed_after_any_step_reads_at_the_old_or_the_new_version(
    tmp_path, settings, spark
):
    pristine = sales_table(tmp_path / "pristine")
    plan = plan_restore(open_table(pristine, settings), 1, settings=settings)
    original, target = DeltaLog.open(pristine).snapshot(4), DeltaLog.open(pristine).snapshot(1)

    for step in CommitStep:
        table = str(tmp_path / step.value)
        shutil.copytree(pristine, table)
        actions = restore_actions(
            dataclasses.replace(plan, table_root=table),
            commit_version=5,
            now_ms=1_700_000_000_000,
            previous_timestamp_ms=0,
            reason="fault injection",
            user="test",
            allow_missing_files=False,
            allow_protocol_downgrade=False,
        )

        crash_writing(table, 5, actions, step)

        new = NEW_VERSION_AFTER[step]
        log = assert_log_is_whole(table, 5 if new else 4)
        latest, expected = log.snapshot(), target if new else original
        assert set(latest.files) == set(expected.files), step
        if new:
            assert log.commit(5).commit_info.operation == "RESTORE"
        assert (
            read_snapshot(latest, spark=spark, check_workers=CHECK_WORKERS).count()
            == expected.num_records
        ), step
