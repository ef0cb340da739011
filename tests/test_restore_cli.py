"""Specification: ``python -m inspector restore``, as operators' runbooks and scripts use it.

The command runs in-process (``cli.main``) so that it shares the test run's Spark session;
what is checked is what a script sees: the exit code, stdout (text or JSON) and stderr.
"""

from __future__ import annotations

import io
import json
import os

import pytest

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.restore.audit import read_audit
from inspector.settings import Settings
from tests.conftest import sales_table

pytestmark = pytest.mark.spark

PLAN_KEYS = {
    "numRestoredFiles",
    "restoredFilesSize",
    "numRemovedFiles",
    "removedFilesSize",
    "numOfFilesAfterRestore",
    "tableSizeAfterRestore",
    "missingFiles",
    "readVersion",
    "targetVersion",
    "warnings",
}


@pytest.fixture
def table(tmp_path):
    return sales_table(tmp_path / "sales")


def run(capsys, *args):
    code = main(["restore", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


class Terminal(io.StringIO):
    """What an operator types at a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_dry_run_shows_the_plan_and_every_guard_and_writes_nothing(capsys, audit, table, spark):
    code, out, _ = run(capsys, table, "--to-version", 1, "--dry-run", "--json")

    assert code == 0
    report = json.loads(out)
    assert PLAN_KEYS <= set(report["plan"]) and report["committedVersion"] is None
    assert {g["name"] for g in report["guards"]} >= {
        "target_version",
        "files_available",
        "table_unchanged",
        "writer_features",
    }
    assert all(g["passed"] for g in report["guards"])
    assert DeltaLog.open(table).latest_version == 4
    assert [e.outcome for e in read_audit(audit)] == ["planned"]


def test_without_yes_and_without_a_terminal_the_restore_is_refused_before_any_plan(
    capsys, audit, table, monkeypatch
):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a pipe, not a terminal

    code, out, err = run(capsys, table, "--to-version", 1, "--reason", "cleanup")

    assert code == 3 and "--yes" in err and "reason is required" not in err
    assert out == ""  # no plan was printed: nothing was planned
    assert DeltaLog.open(table).latest_version == 4
    assert [e.outcome for e in read_audit(audit)] == ["refused"]


def test_with_yes_and_a_reason_the_restore_commits_and_is_verified(capsys, audit, table, spark):
    code, out, _ = run(
        capsys,
        table,
        "--to-version",
        1,
        "--yes",
        "--reason",
        "bad overwrite",
        "--expect-version",
        4,
        "--json",
    )

    assert code == 0
    report = json.loads(out)
    assert report["committedVersion"] == 5 and report["verification"]["ok"] is True
    assert report["plan"]["numRestoredFiles"] == report["result"]["metrics"]["numRestoredFiles"]
    info = DeltaLog.open(table).commit(5).commit_info
    assert (info.operation, info.raw["userMetadata"]) == ("RESTORE", "bad overwrite")
    # Delta's RESTORE ran in a session of its own: the shared session keeps no reason.
    assert spark.conf.get("spark.databricks.delta.commitInfo.userMetadata", None) is None


def test_allowing_missing_files_when_none_are_missing_commits_through_delta(
    capsys, audit, table, spark
):
    """The flag leaves out only files that are missing: with none, it changes nothing."""
    code, out, err = run(
        capsys, table, "--to-version", 1, "--yes", "--reason", "r", "--allow-missing-files"
    )

    assert (code, err) == (0, "")
    info = DeltaLog.open(table).commit(5).commit_info
    assert (info.operation, info.raw["userMetadata"]) == ("RESTORE", "r")


def test_the_typed_confirmation_must_name_the_table_and_the_version(
    capsys, audit, table, spark, monkeypatch
):
    monkeypatch.setattr("sys.stdin", Terminal("wrong-table\n1\n"))
    code, _, err = run(capsys, table, "--to-version", 1, "--reason", "r")
    assert code == 3 and "not confirmed" in err

    monkeypatch.setattr("sys.stdin", Terminal("sales\n1\nthe overwrite deleted EU sales\n"))
    code, out, _ = run(capsys, table, "--to-version", 1)
    assert code == 0 and "Committed version 5" in out
    assert (
        DeltaLog.open(table).commit(5).commit_info.raw["userMetadata"]
        == "the overwrite deleted EU sales"
    )


def test_a_table_that_is_not_at_the_expected_version_is_refused(capsys, audit, table, spark):
    code, _, err = run(
        capsys, table, "--to-version", 1, "--expect-version", 3, "--yes", "--reason", "r"
    )

    assert code == 3 and "not at version 3" in err
    assert DeltaLog.open(table).latest_version == 4


def test_a_refused_restore_exits_3_and_its_json_says_why(capsys, audit, table, spark):
    log = DeltaLog.open(table)
    missing = sorted(set(log.snapshot(1).files) - set(log.snapshot(4).files))[0][0]
    os.remove(os.path.join(table, missing))

    code, out, err = run(capsys, table, "--to-version", 1, "--yes", "--reason", "r", "--json")

    assert code == 3 and "missing or truncated" in err
    report = json.loads(out)
    assert report["committedVersion"] is None and report["error"]["type"] == "RestoreRefused"
    assert [f["path"] for f in report["plan"]["missingFiles"]] == [missing]
    failed = [g for g in report["guards"] if not g["passed"]]
    assert [(g["name"], g["override"]) for g in failed] == [
        ("files_available", "allow_missing_files")
    ]
    assert report["error"]["exitCode"] == 3
    entry = read_audit(audit)[-1]  # the backend audited the refusal, with its reason
    assert (entry.outcome, entry.details["refusedBecause"]) == ("refused", ["guards"])


def test_a_restore_needs_a_reason_and_is_refused_before_any_plan(capsys, audit, table):
    code, out, err = run(capsys, table, "--to-version", 1, "--yes")

    assert code == 3 and "reason" in err and out == ""
    assert [e.outcome for e in read_audit(audit)] == ["refused"]


def test_protocol_downgrade_is_an_explicit_flag(capsys, audit, table, spark):
    code, out, _ = run(
        capsys, table, "--to-version", 1, "--allow-protocol-downgrade", "--dry-run", "--json"
    )

    assert code == 0 and json.loads(out)["committedVersion"] is None


def test_a_timestamp_picks_the_version_current_at_that_time(capsys, audit, table, spark):
    from inspector.table.history import build_history

    when = build_history(DeltaLog.open(table), Settings())[2].timestamp.isoformat()

    code, out, _ = run(capsys, table, "--to-timestamp", when, "--dry-run", "--json")

    assert code == 0 and json.loads(out)["plan"]["targetVersion"] == 2


def test_the_text_output_lists_the_guards_and_the_undo_command(capsys, audit, table, spark):
    code, out, _ = run(capsys, table, "--to-version", 1, "--yes", "--reason", "r")

    assert code == 0
    assert "Guards:" in out and "files_available" in out
    assert "--to-version 4 --expect-version 5" in out  # undo: a guarded restore back
