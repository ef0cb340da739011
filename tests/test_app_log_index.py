"""The app's sidebar shows what the log index holds and clears it (AppTest)."""

from __future__ import annotations

import os

import pytest

from inspector.log.index import tables
from tests.conftest import run_app

TABLE = "dat-v0.0.2/basic_partitioned/delta"


def _captions(at) -> str:
    return "\n".join(c.value for c in at.sidebar.caption)


def test_the_sidebar_shows_the_log_index_filled_by_the_timeline_and_clears_it(
    monkeypatch, tmp_path, copy_table
):
    table = copy_table(TABLE)  # a root of its own: the app keeps a table's history per root
    cache = tmp_path / "log-index"
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(cache))
    monkeypatch.setattr(tables, "LOCAL_FROM", 1)  # a two-commit table's reads go through it
    at = run_app(monkeypatch, tmp_path, table=str(table))
    at.run()  # the section is drawn after the page, which filled the index

    shown = _captions(at)
    assert str(cache) in shown and "1 table(s)" in shown
    assert "/delta · 2 commits" in shown
    assert list(cache.glob("*/*.arrow"))

    at.button(key="log_index_clear").click().run()

    assert not at.exception
    assert not list(cache.glob("*/*"))
    assert "0 table(s)" in _captions(at)


def test_the_sidebar_says_when_the_log_index_is_off(monkeypatch, tmp_path, copy_table):
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX", "false")
    at = run_app(monkeypatch, tmp_path, table=str(copy_table(TABLE)))

    assert "Off" in _captions(at)
    assert not (tmp_path / "log-index").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_the_sidebar_says_when_the_log_index_folder_is_another_users(
    monkeypatch, tmp_path, copy_table
):
    cache = tmp_path / "log-index"
    cache.mkdir()
    os.chown(cache, 65534, 65534)
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(cache))
    at = run_app(monkeypatch, tmp_path, table=str(copy_table(TABLE)))

    assert any("cannot be used" in w.value for w in at.sidebar.warning)
