"""The app's Insights page (AppTest): layout figures, charts, tables and CSV export."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.conftest import open_app

DV_PARTITIONED = "delta-golden/dv-partitioned-with-checkpoint"


def _page(root: Path, monkeypatch, tmp_path) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, operator=False, table=str(root))
    at.query_params["view"] = "insights"
    at.run()
    assert not at.exception
    return at


def test_insights_page_shows_layout_of_a_partitioned_table_with_dvs(corpus, monkeypatch, tmp_path):
    at = _page(corpus / DV_PARTITIONED, monkeypatch, tmp_path)

    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Files"] == "15"
    assert metrics["Small files"] == "15"
    assert metrics["Rows deleted by DVs"] == "2"
    frame = at.dataframe[0].value
    assert set(frame["partition"]) == {f"part={i}" for i in range(10)}
    assert int(frame["dvDeletedRows"].sum()) == 2
    assert "Layout insights at version 15" in " ".join(s.value for s in at.subheader)
    assert any("Statistics" in m.value for m in at.markdown)
    assert at.get("download_button")  # the partitions table as CSV
