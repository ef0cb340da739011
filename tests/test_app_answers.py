"""The Preview page's answers in the app (AppTest): explain a filter, blame a selected row.

A table with row tracking is written by Delta in the test; the page's answers equal what
the backend (checked against Delta in tests/test_explain.py and tests/test_blame.py) says.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import run_app
from ui.pages.preview_answers import ROWS_KEY

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def people(spark, tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("answers") / "people")
    spark.sql(
        f"CREATE TABLE delta.`{root}` (id BIGINT NOT NULL, name STRING) USING delta "
        "TBLPROPERTIES ('delta.enableRowTracking'='true', 'delta.enableDeletionVectors'='true')"
    )
    spark.sql(f"INSERT INTO delta.`{root}` SELECT /*+ COALESCE(1) */ id, 'a' FROM range(0, 20)")
    spark.sql(f"INSERT INTO delta.`{root}` SELECT /*+ COALESCE(1) */ id, 'b' FROM range(20, 40)")
    spark.sql(f"UPDATE delta.`{root}` SET name = 'z' WHERE id = 0")
    return root


def _open(table: str, monkeypatch, tmp_path, **link: str) -> AppTest:
    monkeypatch.setenv("DELTA_INSPECTOR_PREVIEW_ROWS", "5")
    params = {"table": table, "version": "3", "view": "preview", **link}
    return run_app(monkeypatch, tmp_path, timeout=300, errors_shown=True, **params)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_explain_shows_each_phase_and_the_files_delta_reads(people, spark, monkeypatch, tmp_path):
    at = _open(people, monkeypatch, tmp_path)
    at.text_input(key="preview_where").input("id >= 30").run()
    at.button(key="explain_run").click().run()
    assert not at.exception and not at.error
    metrics = _metrics(at)
    assert metrics["Files in the version"] == "3"
    assert metrics["Read by Delta"] == "1"
    files = at.dataframe[-1].value
    assert len(files) == 1 and files["path"][0].endswith(".parquet")
    assert at.query_params["explain"] == "1"  # the address reopens this answer


def test_a_link_to_an_explained_filter_explains_it_again(people, spark, monkeypatch, tmp_path):
    at = _open(people, monkeypatch, tmp_path, filter="id >= 30", explain="1")
    assert not at.error
    assert _metrics(at)["Read by Delta"] == "1"
    assert at.query_params["explain"] == "1"


def test_a_selected_row_opens_its_blame(people, spark, monkeypatch, tmp_path):
    at = _open(people, monkeypatch, tmp_path)
    at.text_input(key="preview_where").input("id = 0").run()
    at.button(key="preview_run").click().run()
    assert not at.exception
    assert any("Select a row" in c.value for c in at.caption)
    at.session_state[ROWS_KEY] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    where = next(t for t in at.text_input if t.key and t.key.startswith("blame_where_"))
    assert where.value == "`id` = 0"
    at.button(key="blame_run").click().run()
    assert not at.exception and not at.error
    writes = at.dataframe[-1].value
    assert list(writes["change"]) == ["inserted", "updated"]
    assert list(writes["operation"]) == ["WRITE", "UPDATE"]
    assert writes["diff"][1].endswith("&from=2&to=3")
    assert at.query_params["blame"] == "`id` = 0"  # the address reopens this answer


def test_a_link_to_a_blame_traces_its_rows_before_any_preview(people, spark, monkeypatch, tmp_path):
    at = _open(people, monkeypatch, tmp_path, blame="id = 0")
    assert not at.exception and not at.error
    where = next(t for t in at.text_input if t.key and t.key.startswith("blame_where_"))
    assert where.value == "id = 0"
    writes = at.dataframe[-1].value
    assert list(writes["change"]) == ["inserted", "updated"]
    assert writes["version"][1].endswith("&version=3")  # the row's versions link to pages
    assert at.query_params["blame"] == "id = 0"
