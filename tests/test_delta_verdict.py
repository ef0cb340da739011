"""Specification: a restore plan says what Delta's own RESTORE would do, before anything is
written (Delta's behaviour itself: tests/test_delta_oracle_features.py)."""

from __future__ import annotations

import pytest

from inspector.log.deltalog import DeltaLog
from inspector.restore import plan_restore
from inspector.restore.planrecord import DeltaOutcome, deltas_restore
from inspector.table import open_table

TABLE = "delta-rs/simple_table"  # 0..4; version 0's files are all removed by the latest


def verdict_of(root, target, settings):
    plan = plan_restore(open_table(str(root), settings), target, settings=settings)
    return plan, deltas_restore(plan.guards, plan.file_problems)


def first_file(root) -> str:
    return DeltaLog.open(str(root)).commit(0).adds[0].path


def test_delta_commits_a_plan_whose_files_are_all_there(copy_table, settings):
    plan, verdict = verdict_of(copy_table(TABLE), 0, settings)

    assert verdict.outcome is DeltaOutcome.COMMITS
    assert plan.to_json()["deltaRestore"]["outcome"] == "commits"


def test_delta_refuses_a_missing_data_file(copy_table, settings):
    root = copy_table(TABLE)
    gone = first_file(root)
    (root / gone).unlink()

    _, verdict = verdict_of(root, 0, settings)

    assert verdict.outcome is DeltaOutcome.REFUSES and gone in verdict.paths


def test_delta_would_re_add_a_truncated_data_file_without_a_word(copy_table, settings):
    root = copy_table(TABLE)
    short = root / first_file(root)
    short.write_bytes(short.read_bytes()[:10])

    plan, verdict = verdict_of(root, 0, settings)

    assert verdict.outcome is DeltaOutcome.COMMITS_UNREADABLE and not plan.passed


@pytest.mark.parametrize("target", [4, 99])
def test_delta_refuses_a_target_that_is_not_an_older_version(copy_table, settings, target):
    _, verdict = verdict_of(copy_table(TABLE), target, settings)

    assert verdict.outcome is DeltaOutcome.REFUSES
