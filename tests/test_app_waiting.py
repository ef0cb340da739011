"""Waiting is visible: work buttons cannot be pressed twice, passed guards fold into a line.

A user who saw nothing change for ten seconds after *Show rows* clicked again; nine
passed guards pushed *Confirm* 2,000 px down the page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import run_app, sales_table

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _page(table: str, view: str, monkeypatch, tmp_path) -> AppTest:
    return run_app(
        monkeypatch, tmp_path, timeout=240, operator=True, errors_shown=True, table=table, view=view
    )


def test_a_work_button_is_disabled_while_its_work_runs_and_enabled_after(monkeypatch, tmp_path):
    at = _page(sales_table(tmp_path / "sales"), "health", monkeypatch, tmp_path)
    assert not at.button(key="health_run").disabled

    at.button(key="health_run").click().run()  # the press, then the run that does the work

    assert not at.exception, at.exception
    assert at.button(key="health_run").disabled  # drawn disabled by the run doing the work
    assert not [i for i in at.info if "Press **Run check**" in i.value]  # the result is shown
    at.run()
    assert not at.button(key="health_run").disabled


@pytest.mark.spark
def test_passed_guards_fold_into_one_line_and_failures_stay_open(monkeypatch, tmp_path, spark):
    table = sales_table(tmp_path / "sales")
    at = _page(table, "restore", monkeypatch, tmp_path)
    at.text_input(key="restore_target").input("1")
    at.button(key="restore_plan_button").click().run()

    assert not at.exception, at.exception
    folded = [e for e in at.expander if "guards passed" in e.label]
    assert len(folded) == 1 and folded[0].label.split(":material/check_circle: ")[1].startswith(
        "9 of 9 guards passed"
    )
    assert not at.success  # no green box per guard
