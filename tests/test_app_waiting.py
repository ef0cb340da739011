"""Waiting is visible: work buttons cannot be pressed twice, passed guards fold into a line.

A user who saw nothing change for ten seconds after *Show rows* clicked again; nine
passed guards pushed *Confirm* 2,000 px down the page.
"""

from __future__ import annotations

import re
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


def test_while_spark_starts_the_sidebar_and_the_page_say_for_how_long_then_what_it_took(
    monkeypatch, tmp_path
):
    import time

    from inspector.rows import session
    from inspector.rows.session import SparkStatus

    since = time.monotonic() - 12  # the warm-up began at least 12 s before the page is drawn
    monkeypatch.setattr(session, "_status", SparkStatus(state="starting", since=since))
    at = _page(sales_table(tmp_path / "sales"), "preview", monkeypatch, tmp_path)

    starting = re.compile(r"Spark is starting locally in the background: (\d+) s so far")
    shown = [m for c in at.sidebar.caption if (m := starting.search(c.value))]
    assert shown and int(shown[0].group(1)) >= 12, [c.value for c in at.sidebar.caption]
    assert any(starting.search(c.value) for c in at.main.caption)  # beside Show rows too
    ready = SparkStatus(state="ready", version="4.0.1", delta_version="4.0.0", start_seconds=23.4)
    monkeypatch.setattr(session, "_status", ready)
    at.run()

    took = "Spark 4.0.1 running locally (started in 23 s); Delta Lake 4.0.0 reads rows"
    assert any(took in c.value for c in at.sidebar.caption)
    assert not [c for c in at.caption if "so far" in c.value]


def test_work_on_spark_says_spark_starts_first_and_gives_no_figure_it_did_not_measure(
    monkeypatch,
):
    import time

    from inspector.rows import session
    from inspector.rows.session import SparkStatus
    from ui.common import on_spark

    action = "Comparing the rows of the changed files on Spark…"
    monkeypatch.setattr(session, "_status", None)
    assert on_spark(action) == (
        "Starting Spark (its first start here takes longest), then comparing the rows of the "
        "changed files on Spark…"
    )
    since = time.monotonic() - 7
    monkeypatch.setattr(session, "_status", SparkStatus(state="starting", since=since))
    assert on_spark(action).startswith("Spark is starting (7 s so far); then comparing the rows")
    monkeypatch.setattr(session, "_status", SparkStatus(state="ready", version="4.0.1"))
    assert on_spark(action) == action
