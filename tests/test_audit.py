"""The audit trail of restore attempts: the backend's statuses, ``audit --json`` and the Audit page.

The attempts are real: a restore the CLI refuses before any plan (no reason), and
entries written by the audit log's own writer for the commit and its undo.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.restore.audit import Attempt, audit_trail, record_attempt
from tests.conftest import offered_pages, open_app, sales_table

RECORD_KEYS = {
    "when",
    "who",
    "table",
    "name",  # the catalog name of a table opened by name (uc://..., glue://...), else null
    "fromVersion",
    "toVersion",
    "toTimestamp",  # the time the target was asked by (restore --to-timestamp), else null
    "reason",
    "outcome",
    "committedVersion",
    "error",
    "details",
    "status",
    "undoneBy",
}


@pytest.fixture
def table(tmp_path, audit, capsys):
    """The sales table with a refused attempt, a verified commit, its undo, another table's entry."""
    root = DeltaLog.open(sales_table(tmp_path / "sales")).table_root
    assert main(["restore", root, "--to-version", "1", "--yes"]) == 3  # refused: no reason
    capsys.readouterr()
    anna = {"table": root, "operator": "ops-anna"}
    record_attempt(audit, Attempt(from_version=4, to_version=1, **anna), outcome="planned")
    verified = ((4, 1, 5, "the overwrite at v4 deleted the EU sales"), (5, 4, 6, "undo"))
    for before, target, committed, reason in verified:
        record_attempt(
            audit,
            Attempt(from_version=before, to_version=target, reason=reason, **anna),
            outcome="committed",
            committed_version=committed,
            details={"verified": True},
        )
    elsewhere = Attempt(table="/elsewhere", from_version=0, to_version=0)
    record_attempt(audit, elsewhere, outcome="planned")
    return root


def test_the_trail_gives_every_attempt_on_the_table_a_status(audit, table):
    trail = audit_trail(audit, table)

    assert [r.status.value for r in trail.records] == ["refused", "planned", "undone", "verified"]
    assert trail.records[0].entry.error and "reason" in trail.records[0].entry.error
    assert trail.records[2].undone_by == 6
    assert trail.records[2].entry.who == "ops-anna"


def test_audit_json_is_a_contract(audit, table, capsys):
    assert main(["audit", table, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)

    assert set(report) == {"table", "auditLog", "records"}
    assert report["auditLog"] == audit
    assert all(set(r) == RECORD_KEYS for r in report["records"])
    assert [r["status"] for r in report["records"]] == ["refused", "planned", "undone", "verified"]
    assert report["records"][2]["committedVersion"] == 5


def test_audit_text_lists_who_what_and_why(table, capsys):
    assert main(["audit", table]) == 0
    out = capsys.readouterr().out

    assert "undone by v6" in out and "reason: the overwrite at v4 deleted the EU sales" in out


def _open_audit_page(table: str, tmp_path, monkeypatch, *, operator: bool) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, operator=operator, table=table)
    at.query_params["view"] = "audit"
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_audit_page_lists_the_attempts_and_filters_them(table, tmp_path, monkeypatch):
    at = _open_audit_page(table, tmp_path, monkeypatch, operator=True)

    frame = at.dataframe[0].value
    assert list(frame["status"]) == ["refused", "planned", "undone", "verified"]
    assert "the overwrite at v4 deleted the EU sales" in set(frame["reason"])

    at.multiselect(key="audit_status_filter").set_value(["refused"]).run()
    assert list(at.dataframe[0].value["status"]) == ["refused"]


def test_the_audit_page_is_for_operators_only(table, tmp_path, monkeypatch):
    at = _open_audit_page(table, tmp_path, monkeypatch, operator=False)

    assert "Audit" not in offered_pages(at)
    assert any("only available in operator mode" in e.value for e in at.error)
