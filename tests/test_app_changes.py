"""The Changes page in the app (AppTest): counts, rows page by page, the error without the feed."""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from streamlit.testing.v1 import AppTest

from tests.conftest import run_app, shown_page
from tests.test_changes import written

pytestmark = pytest.mark.spark


def _open(table: str, version: int, monkeypatch, tmp_path) -> AppTest:
    params = {"table": table, "version": str(version), "view": "changes"}
    return run_app(monkeypatch, tmp_path, timeout=300, errors_shown=True, **params)


def test_changes_of_the_selected_version_and_the_error_without_the_feed(
    spark, monkeypatch, tmp_path
):
    table = written(tmp_path / "cdf")
    at = _open(table, 3, monkeypatch, tmp_path)
    assert at.selectbox(key="cdf_from_3").value == 3
    at.button(key="cdf_run").click().run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows"] == "1" and metrics["delete"] == "1"
    rows = at.dataframe[1].value
    assert list(rows["id"]) == [3] and list(rows["_change_type"]) == ["delete"]

    plain = str(tmp_path / "plain")
    for i in range(3):
        write_deltalake(plain, pa.table({"id": [i]}), mode="append")
    at = _open(plain, 2, monkeypatch, tmp_path)
    at.selectbox(key="cdf_from_2").set_value(1).run()
    at.button(key="cdf_run").click().run()
    assert not at.exception
    assert "version(s) 1..2" in at.error[0].value
    assert "Diff page" in at.info[0].value
    at.button(key="cdf_to_diff").click().run()  # offers the row diff of the same changes
    assert not at.exception
    assert shown_page(at) == "diff" and at.query_params["version"] == "2"
    assert at.query_params["from"] == "0" and at.query_params["to"] == "2"
    assert at.selectbox(key="diff_from_2").value == 0


def test_rows_are_paged_by_the_backend(spark, monkeypatch, tmp_path):
    monkeypatch.setenv("DELTA_INSPECTOR_PREVIEW_ROWS", "4")
    table = written(tmp_path / "cdf")
    at = _open(table, 4, monkeypatch, tmp_path)
    at.selectbox(key="cdf_from_4").select(0).run()
    at.button(key="cdf_run").click().run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Rows"] == "11"
    per_version = at.dataframe[0].value
    assert list(per_version["version"]) == [0, 1, 2, 3, 4]
    first = at.dataframe[1].value
    assert len(first) == 4 and set(first["_commit_version"]) == {0, 1}
    assert any("Rows 1–4 of 11" in c.value for c in at.caption)

    at.number_input(key="cdf_page").set_value(2).run()
    assert not at.exception and not at.error
    second = at.dataframe[1].value
    assert len(second) == 4 and any("Rows 5–8 of 11" in c.value for c in at.caption)
    # Page 2 shows other rows: v1's last insert, v2's update pair and v3's delete.
    assert list(second["_change_type"]) == [
        "insert",
        "update_preimage",
        "update_postimage",
        "delete",
    ]
    assert list(second["id"]) == [5, 2, 2, 3]

    at.number_input(key="cdf_page").set_value(3).run()
    third = at.dataframe[1].value
    assert len(third) == 3 and set(third["_commit_version"]) == {4}
    seen = [*first["id"], *second["id"], *third["id"]]
    assert sorted(seen) == [1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 9]

    at.text_input(key="cdf_where").input("_change_type = 'delete'").run()
    at.button(key="cdf_run").click().run()
    assert at.number_input(key="cdf_page").value == 1
    assert list(at.dataframe[1].value["id"]) == [3]


def test_a_changes_link_shows_the_rows_without_another_click(spark, monkeypatch, tmp_path):
    table = written(tmp_path / "cdf")
    params = {"table": table, "version": "3", "view": "changes", "from": "3", "to": "3"}
    at = run_app(monkeypatch, tmp_path, timeout=300, **params)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows"] == "1" and metrics["delete"] == "1"
    per_version = at.dataframe[0].value
    assert "None" not in per_version.astype(str).to_numpy().ravel().tolist()
