"""The Health page in the app (AppTest): the check runs, statuses show, recovery is offered
to operators only."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from inspector.log.deltalog import DeltaLog
from tests.conftest import open_app, shown_page

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit


@pytest.fixture
def broken_table(copy_table):
    """A replicated copy whose newest version lost one data file."""
    root = copy_table(APPENDS)
    (root / DeltaLog.open(str(root)).commit(14).adds[0].path).unlink()
    return root


def _health_page(root: Path, monkeypatch, tmp_path, *, operator: bool) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, operator=operator, table=str(root))
    at.query_params["view"] = "health"
    at.run()
    assert not at.exception
    at.button(key="health_run").click().run()
    assert not at.exception
    return at


def _texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.error, *at.success, *at.markdown, *at.info, *at.caption])


def test_check_of_an_intact_table_reports_it_consistent(corpus, monkeypatch, tmp_path):
    at = _health_page(corpus / APPENDS, monkeypatch, tmp_path, operator=False)

    assert "latest version **14** is consistent" in at.success[0].value
    assert [m.value for m in at.metric][:2] == ["14", "14"]
    assert not [b for b in at.button if b.key == "health_restore"]


def test_broken_table_in_read_only_mode_shows_the_cli_command_not_a_button(
    broken_table, monkeypatch, tmp_path
):
    at = _health_page(broken_table, monkeypatch, tmp_path, operator=False)

    assert "**incomplete**" in at.error[0].value
    assert [m.value for m in at.metric][:2] == ["14", "13"]
    assert "--to-version 13" in at.code[0].value
    assert not [b for b in at.button if b.key == "health_restore"]
    statuses = at.dataframe[0].value["status"].tolist()
    assert statuses[:2] == ["INCOMPLETE", "complete"]


def test_operator_button_prefills_the_restore_page(broken_table, monkeypatch, tmp_path):
    at = _health_page(broken_table, monkeypatch, tmp_path, operator=True)

    (button,) = [b for b in at.button if b.key == "health_restore"]
    assert button.label == "Restore to the last consistent version (v13)"
    button.click().run()

    assert not at.exception
    print("ERRORS", [e.value for e in at.error])
    assert shown_page(at) == "restore"  # the guarded Restore page, pre-filled:
    assert at.text_input(key="restore_target").value == "13"
    reason = at.session_state["restore_reason"]  # shown with the plan, for the confirmation
    assert "last consistent version 13" in reason and "1 missing" in reason
    assert "Plan restore" in [b.label for b in at.button]  # nothing planned or written yet
