"""Specification: a restore that is not safe is refused with a clear reason, and nothing is written.

Refusals: a missing or truncated file (unless the operator accepts a partial table), a table
that moved after the plan, unsupported writer features, a target at or after the current
version, a target whose log has expired, an append-only table losing data, and a restore
that was not confirmed or has no reason. Every refusal is in the audit log.
"""

from __future__ import annotations

import os

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from inspector.delta.errors import ConcurrentModification, RefusalReason, RestoreRefused
from inspector.files.filecheck import FileState
from inspector.log.deltalog import DeltaLog
from inspector.restore import Override, RestoreRequest, execute_restore, plan_restore
from inspector.restore.audit import read_audit
from inspector.table import open_table
from tests.conftest import confirmed, rows, sales_table

pytestmark = pytest.mark.spark


def guard(plan, name):
    return next(g for g in plan.guards if g.name == name)


def re_added(table, target=1):
    """A file the restore to ``target`` must bring back (in the target, not in the latest version)."""
    log = DeltaLog.open(table)
    latest, wanted = log.snapshot(), log.snapshot(target)
    return wanted.files[sorted(set(wanted.files) - set(latest.files))[0]]


def commit_files(table) -> list[str]:
    return sorted(n for n in os.listdir(os.path.join(table, "_delta_log")) if n.endswith(".json"))


def test_a_missing_file_refuses_the_restore_and_names_the_file(tmp_path, settings, spark):
    table = sales_table(tmp_path / "sales")
    gone = re_added(table)
    os.remove(os.path.join(table, gone.path))
    before = commit_files(table)

    plan = plan_restore(open_table(table, settings), 1, settings=settings)
    files = guard(plan, "files_available")
    assert not files.passed and files.override == "allow_missing_files"
    assert [p.path for p in plan.file_problems] == [gone.path]
    assert plan.file_problems[0].state == FileState.MISSING
    assert any("PARTIAL" in w for w in plan.warnings)
    with pytest.raises(RestoreRefused, match="missing or truncated"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)

    assert commit_files(table) == before
    assert [e.outcome for e in read_audit(settings.audit_log)][-1] == "refused"
    # "Rows after" says how many rows the missing file holds, and the rows without it
    assert plan.rows_in_problem_files == gone.num_live_records > 0
    assert plan.effective_rows_after(allow_missing_files=True) == (
        plan.rows_after - gone.num_live_records
    )
    assert plan.to_json()["rowsInMissingFiles"] == gone.num_live_records


def test_with_allow_missing_files_the_restore_is_a_partial_table_without_them(
    tmp_path, settings, spark
):
    table = sales_table(tmp_path / "sales")
    gone = re_added(table)
    os.remove(os.path.join(table, gone.path))
    plan = plan_restore(open_table(table, settings), 1, settings=settings)

    result = execute_restore(
        confirmed(plan, "accept the loss", overrides=frozenset({Override.ALLOW_MISSING_FILES})),
        settings=settings,
        spark=spark,
    )

    restored = DeltaLog.open(table).snapshot(result.committed_version)
    assert gone.key not in restored.files
    assert set(restored.files) == set(DeltaLog.open(table).snapshot(1).files) - {gone.key}
    assert result.skipped_files == (gone.path,) and result.to_json()["partial"] is True
    assert result.metrics.num_restored_files == plan.metrics.num_restored_files - 1
    assert result.verification.ok, [c.message for c in result.verification.failures]


def test_a_truncated_file_refuses_the_restore(tmp_path, settings, spark):
    table = sales_table(tmp_path / "sales")
    victim = re_added(table)
    with open(os.path.join(table, victim.path), "r+b") as fh:
        fh.truncate(victim.size // 2)

    plan = plan_restore(open_table(table, settings), 1, settings=settings)

    problem = plan.file_problems[0]
    assert (problem.path, problem.state, problem.expected_size, problem.actual_size) == (
        victim.path,
        FileState.SIZE_MISMATCH,
        victim.size,
        victim.size // 2,
    )
    with pytest.raises(RestoreRefused):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)


def test_a_table_that_moved_after_the_plan_is_refused_and_the_other_commit_survives(
    tmp_path, settings, spark
):
    table = sales_table(tmp_path / "sales")
    plan = plan_restore(open_table(table, settings), 1, settings=settings)
    write_deltalake(table, pa.table({"id": [77], "region": ["us"], "amount": [7.0]}), mode="append")

    with pytest.raises(ConcurrentModification, match="moved from version 4 to 5"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)

    log = DeltaLog.open(table)
    assert log.latest_version == 5 and log.commit(5).commit_info.operation == "WRITE"
    assert sum(1 for r in rows(table, 5, spark) if '"id": 77' in r) == 1
    assert read_audit(settings.audit_log)[-1].outcome == "refused"


def test_a_concurrent_writer_that_wins_the_version_makes_the_own_writers_restore_fail_cleanly(
    tmp_path, settings, spark, monkeypatch
):
    """Even if another writer creates version N+1 after the last check, nothing is overwritten.

    The race is staged in Delta Inspector's commit writer (it commits on object stores and
    where missing files are left out, as here); Delta's RESTORE, which commits locally
    otherwise, resolves a concurrent commit with its own conflict checker.
    """
    from inspector.restore import execute as restore_module

    table = sales_table(tmp_path / "sales")
    os.remove(os.path.join(table, re_added(table).path))
    plan = plan_restore(open_table(table, settings), 1, settings=settings)
    winner = os.path.join(table, "_delta_log", "00000000000000000005.json")
    write_commit = restore_module.write_commit

    def other_writer_commits_first(folder, version, actions):
        with open(winner, "w") as fh:  # another engine's commit lands just before ours
            fh.write('{"commitInfo":{"operation":"OTHER WRITER"}}\n')
        return write_commit(folder, version, actions)

    monkeypatch.setattr(restore_module, "write_commit", other_writer_commits_first)
    partial = confirmed(plan, "r", overrides=frozenset({Override.ALLOW_MISSING_FILES}))
    with pytest.raises(ConcurrentModification, match="Another writer created version 5"):
        execute_restore(partial, settings=settings, spark=spark)

    assert open(winner).read() == '{"commitInfo":{"operation":"OTHER WRITER"}}\n'
    assert not [n for n in os.listdir(os.path.join(table, "_delta_log")) if n.endswith(".tmp")]
    assert read_audit(settings.audit_log)[-1].outcome == "refused"


def test_unsupported_writer_features_are_refused_by_name(copy_table, settings, spark):
    table = copy_table("delta-rs/simple_table_features")  # lists "blahabl" and icebergCompatV1

    plan = plan_restore(open_table(str(table), settings), 2, settings=settings)

    features = guard(plan, "writer_features")
    assert not features.passed and features.override is None
    assert "blahabl" in features.message and "icebergCompatV1" in features.message
    with pytest.raises(RestoreRefused, match="blahabl"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)


@pytest.mark.parametrize(
    "target, words", [(4, "is the current version"), (7, "newer than the current")]
)
def test_a_target_at_or_after_the_current_version_is_refused(
    tmp_path, settings, spark, target, words
):
    table = sales_table(tmp_path / "sales")

    plan = plan_restore(open_table(table, settings), target, settings=settings)

    assert not guard(plan, "target_version").passed and words in plan.guards[0].message
    with pytest.raises(RestoreRefused):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)
    assert DeltaLog.open(table).latest_version == 4


def test_a_target_whose_log_has_expired_is_refused(copy_table, settings, spark):
    table = copy_table("dat-v0.0.2/no_replay/delta")  # log retention removed versions 0 and 1

    plan = plan_restore(open_table(str(table), settings), 1, settings=settings)

    target = guard(plan, "target_version")
    assert not target.passed and "expired" in target.message
    with pytest.raises(RestoreRefused, match="expired"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)


def test_an_append_only_table_cannot_lose_data(tmp_path, settings, spark):
    table = str(tmp_path / "events")
    write_deltalake(table, pa.table({"id": [1, 2]}), configuration={"delta.appendOnly": "true"})
    write_deltalake(table, pa.table({"id": [3]}), mode="append")

    plan = plan_restore(open_table(table, settings), 0, settings=settings)

    assert not guard(plan, "append_only").passed
    with pytest.raises(RestoreRefused, match="append-only"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)


@pytest.mark.parametrize(
    "typed_version, reason, words",
    [("2", "r", "not confirmed"), ("1", "  ", "reason"), ("", "", "not confirmed.*reason")],
)
def test_a_restore_needs_a_confirmation_and_a_reason(
    tmp_path, settings, spark, typed_version, reason, words
):
    table = sales_table(tmp_path / "sales")
    plan = plan_restore(open_table(table, settings), 1, settings=settings)
    request = RestoreRequest(
        plan=plan, typed_table_name="sales", typed_version=typed_version, reason=reason
    )

    with pytest.raises(RestoreRefused, match=words):
        execute_restore(request, settings=settings, spark=spark)

    assert DeltaLog.open(table).latest_version == 4
    assert [e.outcome for e in read_audit(settings.audit_log)] == ["planned", "refused"]


def test_a_table_not_at_the_expected_version_is_refused_and_audited(tmp_path, settings, spark):
    table = sales_table(tmp_path / "sales")
    plan = plan_restore(open_table(table, settings), 1, settings=settings)

    with pytest.raises(RestoreRefused, match="not at version 3") as refused:
        execute_restore(confirmed(plan, expected_version=3), settings=settings, spark=spark)

    assert refused.value.reasons == (RefusalReason.UNEXPECTED_VERSION,)
    assert refused.value.plan is plan and refused.value.exit_code == 3
    entry = read_audit(settings.audit_log)[-1]
    assert (entry.outcome, entry.details["refusedBecause"]) == ("refused", ["unexpected_version"])


def test_a_restore_that_would_turn_column_mapping_off_is_refused(copy_table, settings, spark):
    table = copy_table("delta-rs/table_with_partitioning_mapping")  # mapping 'name' from version 2

    plan = plan_restore(open_table(str(table), settings), 1, settings=settings)

    mapping = guard(plan, "column_mapping")
    assert not mapping.passed and "from 'name' to 'none'" in mapping.message
    assert guard(plan, "target_version").passed
    with pytest.raises(RestoreRefused, match="column mapping"):
        execute_restore(confirmed(plan, "r"), settings=settings, spark=spark)
