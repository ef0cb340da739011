"""The Changes page in the app (AppTest): counts and rows of a CDF table, the error without it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from streamlit.testing.v1 import AppTest

from tests.test_changes import written

APP = str(Path(__file__).resolve().parent.parent / "app.py")
pytestmark = pytest.mark.spark


def _open(table: str, version: int, monkeypatch, tmp_path) -> AppTest:
    monkeypatch.setenv("DELTA_INSPECTOR_RECENT_TABLES_FILE", str(tmp_path / "recent.json"))
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({"table": table, "version": str(version), "view": "changes"})
    at.run()
    assert not at.exception
    return at


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
    write_deltalake(plain, pa.table({"id": [1]}))
    at = _open(plain, 0, monkeypatch, tmp_path)
    at.button(key="cdf_run").click().run()
    assert not at.exception
    assert "version(s) 0" in at.error[0].value
    assert "Diff page" in at.info[0].value
