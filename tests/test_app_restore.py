"""The Restore page in the app (AppTest): the whole flow in operator mode, pre-filled from the
Health page, and no restore controls at all in read-only mode."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from inspector.log.deltalog import DeltaLog
from inspector.restore.audit import read_audit
from tests.conftest import offered_pages, open_app, sales_table
from ui.pages.restore_state import RestorePrefill

pytestmark = pytest.mark.spark


def open_page(
    table: str, monkeypatch, tmp_path, *, operator: bool, prefill: RestorePrefill | None = None
) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=240, operator=operator, table=table)
    at.query_params["view"] = "restore"
    if prefill:
        at.session_state["restore_prefill"] = prefill
    at.run()
    assert not at.exception, at.exception
    return at


def planned(table: str, monkeypatch, tmp_path, target: str) -> AppTest:
    """The Restore page of an operator who asked for a plan to go back to ``target``."""
    at = open_page(table, monkeypatch, tmp_path, operator=True)
    at.text_input(key="restore_target").input(target)
    return at.button(key="restore_plan_button").click().run()


def texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.error, *at.success, *at.markdown, *at.info, *at.warning])


def confirm(at: AppTest, name: str, version: str, reason: str) -> AppTest:
    at.text_input(key="restore_confirm_table").input(name)
    at.text_input(key="restore_confirm_version").input(version)
    at.text_area(key="restore_reason").input(reason)
    return at.run()


def test_an_operator_plans_confirms_commits_and_undoes_a_restore(tmp_path, monkeypatch, spark):
    table = sales_table(tmp_path / "sales")
    at = planned(table, monkeypatch, tmp_path, "1")
    assert not at.exception, at.exception
    assert "Plan: version 4" in texts(at) and "target_version" in texts(at)
    assert at.button(key="restore_commit").disabled  # nothing typed yet

    assert "Type `sales`: the table's folder name" in " ".join(c.value for c in at.caption)
    confirm(at, "sale", "2", "wrong version typed")
    assert any("does not match: type exactly `sales`" in e.value for e in at.error)
    assert at.button(key="restore_commit").disabled
    confirm(at, "sales", "1", "the overwrite at v4 deleted the EU sales")
    assert not at.button(key="restore_commit").disabled
    at.button(key="restore_commit").click().run()
    assert not at.exception, at.exception

    assert "Committed version **5**" in texts(at) and "Verification passed" in texts(at)
    # Every page moves to the new latest version; the form is cleared.
    assert at.sidebar.selectbox(key="version_select").value == 5
    assert at.query_params["version"] == "5"
    assert "restore_confirm_table" not in {w.key for w in at.text_input}  # no plan, no form
    assert (
        DeltaLog.open(table).commit(5).commit_info.raw["userMetadata"]
        == "the overwrite at v4 deleted the EU sales"
    )

    at.button(key="restore_undo").click().run()
    assert "Plan: version 5" in texts(at)
    confirm(at, "sales", "4", "undo")
    at.button(key="restore_commit").click().run()
    assert not at.exception, at.exception
    assert "Committed version **6**" in texts(at)
    assert (
        DeltaLog.open(table).snapshot(6).files.keys()
        == DeltaLog.open(table).snapshot(4).files.keys()
    )
    outcomes = [e.outcome for e in read_audit(str(tmp_path / "audit.jsonl"))]
    assert outcomes == ["planned", "committed", "planned", "committed"]

    at.query_params["view"] = "audit"  # a link to the Audit page: it lists the whole journey
    at.run()
    assert not at.exception, at.exception
    statuses = list(at.dataframe[0].value["status"])
    assert statuses == ["planned", "undone", "planned", "verified"]


def test_a_refusal_made_in_the_app_is_decided_and_audited_by_the_backend(
    tmp_path, monkeypatch, spark
):
    table = sales_table(tmp_path / "sales")
    at = planned(table, monkeypatch, tmp_path, "1")
    confirm(at, "sales", "1", "the overwrite at v4 deleted the EU sales")
    assert not at.button(key="restore_commit").disabled
    log = DeltaLog.open(table)
    gone = sorted(set(log.snapshot(1).files) - set(log.snapshot(4).files))[0][0]
    os.remove(os.path.join(table, gone))  # a file to re-add disappears after the plan

    at.button(key="restore_commit").click().run()

    assert not at.exception, at.exception
    assert any("went missing or changed size" in e.value for e in at.error)
    # Open under the Commit button, not inside the collapsed "Restore refused" status box.
    assert not any(box.error for box in at.status)
    assert DeltaLog.open(table).latest_version == 4
    entries = read_audit(str(tmp_path / "audit.jsonl"))
    assert [e.outcome for e in entries] == ["planned", "refused"]
    assert entries[-1].reason == "the overwrite at v4 deleted the EU sales"
    assert entries[-1].details["refusedBecause"] == ["files_changed"]


def test_the_backend_says_what_is_missing_before_the_commit_button_is_enabled(
    tmp_path, monkeypatch, spark
):
    table = sales_table(tmp_path / "sales")
    at = planned(table, monkeypatch, tmp_path, "1")

    confirm(at, "sales", "2", "")

    captions = " ".join(c.value for c in at.caption)
    assert "not confirmed" in captions and "reason is required" in captions
    assert at.button(key="restore_commit").disabled


def test_a_refused_plan_keeps_the_commit_button_disabled(tmp_path, monkeypatch, spark):
    table = sales_table(tmp_path / "sales")
    at = planned(table, monkeypatch, tmp_path, "4")
    confirm(at, "sales", "4", "why not")

    assert any("a restore can only go back" in e.value for e in at.error)
    assert at.button(key="restore_commit").disabled


def test_the_health_page_prefills_the_target_and_the_reason_but_not_the_confirmation(
    tmp_path, monkeypatch, spark
):
    table = sales_table(tmp_path / "sales")
    prefill = RestorePrefill(
        table_root=table, version=2, reason="Recovery to the last consistent version 2"
    )
    at = open_page(table, monkeypatch, tmp_path, operator=True, prefill=prefill)

    assert at.text_input(key="restore_target").value == "2"
    at.button(key="restore_plan_button").click().run()
    assert at.text_area(key="restore_reason").value == "Recovery to the last consistent version 2"
    assert at.text_input(key="restore_confirm_table").value == ""
    assert at.button(key="restore_commit").disabled


def test_read_only_mode_has_no_restore_controls(tmp_path, monkeypatch):
    table = sales_table(tmp_path / "sales")
    at = open_page(table, monkeypatch, tmp_path, operator=False)

    assert "only available in operator mode" in texts(at)
    keys = {w.key for w in [*at.button, *at.text_input, *at.text_area]}
    assert not {k for k in keys if k and k.startswith("restore_")}
    assert "Restore" not in offered_pages(at)
