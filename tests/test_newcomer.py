"""Small things a newcomer trips over in the first hour: the table root suggested for a
``_delta_log`` or partition folder, a log gap's error leading to Health, readable problems."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from inspector.delta.errors import NotADeltaTable
from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS, open_app, shown_page

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, checkpoint 10
PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"


def test_typing_the_delta_log_folder_suggests_the_table_root():
    with pytest.raises(NotADeltaTable) as caught:
        DeltaLog.open(str(PARTITIONED / "_delta_log"))
    assert f"Open '{PARTITIONED}', the table this folder belongs to." == caught.value.hint


def test_a_partition_folder_suggests_its_table_too():
    with pytest.raises(NotADeltaTable) as caught:
        DeltaLog.open(str(PARTITIONED / "letter=a"))
    assert str(PARTITIONED) in caught.value.hint


def _page(monkeypatch, tmp_path, **params: str) -> AppTest:
    return open_app(monkeypatch, tmp_path, **params).run()


def test_the_diff_pages_log_gap_error_leads_to_the_health_page(copy_table, monkeypatch, tmp_path):
    root = copy_table(APPENDS)
    (root / "_delta_log" / f"{12:020d}.json").unlink()  # the checkpoint at 10 bridges 0..10

    at = _page(monkeypatch, tmp_path, table=str(root), version="14", view="diff")
    at.selectbox(key="diff_from_14").set_value(11).run()

    assert not at.exception
    assert "version 12 is missing" in at.error[0].value and "Health page" in at.error[0].value
    at.button(key="diff_to_health").click().run()
    assert shown_page(at) == "health"


def test_the_selected_ring_is_not_clipped_and_problems_wrap(copy_table, monkeypatch, tmp_path):
    root = copy_table(APPENDS)
    commit = root / "_delta_log" / f"{14:020d}.json"
    commit.write_text(commit.read_text() + "{not json\n")  # a problem on the newest version

    at = _page(monkeypatch, tmp_path, table=str(root), version="13", view="timeline")

    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    ring = next(t for t in spec["data"] if t["name"].startswith("selected"))
    assert ring["cliponaxis"] is False
    history = next(d for d in at.dataframe if "problems" in d.value.columns)
    assert history.proto.row_height == 72  # tall enough for Streamlit to wrap the text
