"""The app's VACUUM planner (Maintenance page) and the Health page's replica comparison (AppTest)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from test_vacuum_plan import SIMPLE, age_table

from inspector.log.deltalog import DeltaLog
from tests.conftest import open_app

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit


def _page(root: Path, view: str, monkeypatch, tmp_path) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, operator=False, table=str(root), view=view)
    at.run()
    assert not at.exception
    return at


def _texts(at: AppTest) -> str:
    parts = [*at.error, *at.success, *at.warning, *at.markdown, *at.info, *at.caption]
    return " ".join(e.value for e in parts)


@pytest.fixture
def aged_simple(copy_table) -> Path:
    root = copy_table(SIMPLE)
    age_table(root)
    return root


def test_planner_defaults_to_the_tables_retention_and_loses_nothing(
    aged_simple, monkeypatch, tmp_path
):
    at = _page(aged_simple, "maintenance", monkeypatch, tmp_path)

    assert at.number_input(key="vacuum_hours").value == 168
    assert "No readable version would be lost" in _texts(at)
    assert [m.value for m in at.metric][:3] == ["0", "0 B", "0"]


def test_a_shorter_retention_shows_lost_versions_band_and_files(aged_simple, monkeypatch, tmp_path):
    at = _page(aged_simple, "maintenance", monkeypatch, tmp_path)

    at.number_input(key="vacuum_hours").set_value(0.0).run()

    assert not at.exception
    texts = _texts(at)
    assert "version(s) **0..3** unreadable" in texts
    assert "shorter than the table's" in texts
    metrics = [m.value for m in at.metric]
    assert metrics[2] == "4" and metrics[3] == "0" and metrics[4] == "4"
    files = at.dataframe[0].value
    assert len(files) == 31 and set(files["why"]) == {"tombstone expired"}
    band = at.get("plotly_chart")[0].proto.spec
    assert '"lost"' in band and '"readable"' in band


def test_full_mode_also_lists_unreferenced_files(aged_simple, monkeypatch, tmp_path):
    (aged_simple / "stray.parquet").write_bytes(b"stray")
    age_table(aged_simple)
    at = _page(aged_simple, "maintenance", monkeypatch, tmp_path)

    at.number_input(key="vacuum_hours").set_value(0.0).run()
    at.radio(key="vacuum_mode").set_value("full").run()

    assert "stray.parquet" in at.dataframe[0].value["path"].tolist()


def test_the_file_list_is_paged(copy_table, monkeypatch, tmp_path):
    root = copy_table(SIMPLE)
    for i in range(150):
        (root / f"stray-{i:03d}.parquet").write_bytes(b"x")
    age_table(root)
    at = _page(root, "maintenance", monkeypatch, tmp_path)
    at.number_input(key="vacuum_hours").set_value(0.0).run()
    at.radio(key="vacuum_mode").set_value("full").run()

    total = int(at.metric[0].value)
    assert 150 < total <= 200 and len(at.dataframe[0].value) == 100
    at.number_input(key="vacuum_page").set_value(2).run()

    assert len(at.dataframe[0].value) == total - 100
    assert f"Files 101–{total} of {total}" in _texts(at)


def _replica_of(root: Path, tmp_path: Path) -> Path:
    replica = tmp_path / "replica"
    shutil.copytree(root, replica)
    return replica


def test_health_page_compares_with_a_replica_and_shows_the_data_loss_window(
    copy_table, monkeypatch, tmp_path
):
    primary = copy_table(APPENDS)
    replica = _replica_of(primary, tmp_path)
    for add in DeltaLog.open(str(primary)).commit(14).adds:
        (replica / add.path).unlink()
    at = _page(primary, "health", monkeypatch, tmp_path)

    at.text_input(key="replica_location").input(str(replica)).run()
    at.button(key="replica_run").click().run()

    assert not at.exception
    texts = _texts(at)
    assert "last consistent version is **13**" in texts
    assert "**Data-loss window** of a failover now: 1 version(s)" in texts
    assert at.dataframe[0].value["version"].tolist() == [14, 14]
    assert "--to-version 13" in at.code[0].value


def test_a_whole_replica_is_reported_consistent(copy_table, monkeypatch, tmp_path):
    primary = copy_table(APPENDS)
    replica = _replica_of(primary, tmp_path)
    at = _page(primary, "health", monkeypatch, tmp_path)

    at.text_input(key="replica_location").input(str(replica)).run()
    at.button(key="replica_run").click().run()

    assert "The replica's latest version **14** is consistent" in _texts(at)


def test_a_replica_of_another_table_is_refused_with_a_message(copy_table, monkeypatch, tmp_path):
    primary = copy_table(APPENDS)
    other = copy_table("delta-kernel-java/kernel-pagination-all-jsons")
    at = _page(primary, "health", monkeypatch, tmp_path)

    at.text_input(key="replica_location").input(str(other)).run()
    at.button(key="replica_run").click().run()

    assert not at.exception
    assert "two different tables" in at.error[0].value


def test_the_health_check_still_offers_its_recovery(copy_table, monkeypatch, tmp_path):
    root = copy_table(APPENDS)
    (root / DeltaLog.open(str(root)).commit(14).adds[0].path).unlink()
    at = _page(root, "health", monkeypatch, tmp_path)

    at.button(key="health_run").click().run()

    assert "--to-version 13" in at.code[0].value
    assert at.text_input(key="replica_location") is not None
