"""Big file lists and long histories in the app (AppTest): counts at once, rows a page at a time.

The tables are written by ``bench/tablegen.py`` (Spark's layout, data files included):
4,000 files in version 0, then a MERGE that rewrites 1,000 of them and an append of 400;
and a log of 2,500 commits for the Timeline's window.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench.tablegen import make_commits_table, make_files_table
from inspector.diff.filepages import PAGE_SIZE, FileKind, commit_file_page, sequence_page
from inspector.log.deltalog import DeltaLog
from inspector.table.rowcounts import commit_rows
from inspector.table.rowrule import change_of
from inspector.table.versions import file_action_record
from tests.conftest import run_app

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("paging") / "f4000")
    make_files_table(root, 4000)
    return root


def _page(monkeypatch, tmp_path, **params: str) -> AppTest:
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_WARMUP", "false")
    return run_app(monkeypatch, tmp_path, timeout=180, **params)


def _paths(at: AppTest) -> list[str]:
    return list(next(d.value for d in at.dataframe if "path" in d.value.columns)["path"])


def _captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def test_a_commit_of_4000_files_shows_its_counts_and_500_rows_then_page_2(
    big, monkeypatch, tmp_path
):
    at = _page(monkeypatch, tmp_path, table=big, version="0", view="version")

    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Files added"] == "4,000"
    first = _paths(at)
    assert len(first) == PAGE_SIZE
    assert "Files 1 to 500 of 4,000" in _captions(at)
    assert at.number_input(key="version_files_add_page").label == "Page (of 8)"

    at.number_input(key="version_files_add_page").set_value(2).run()

    assert not at.exception
    second = _paths(at)
    assert len(second) == PAGE_SIZE and not set(first) & set(second)
    assert "Files 501 to 1,000 of 4,000" in _captions(at)


def test_the_diff_pages_its_added_files(big, monkeypatch, tmp_path):
    at = _page(monkeypatch, tmp_path, table=big, version="2", view="diff")
    at.selectbox(key="diff_from_2").set_value(0).run()

    assert not at.exception
    assert any("Added (only in the to version): 1,400" in m.value for m in at.markdown)
    first = _paths(at)
    assert len(first) == PAGE_SIZE

    at.number_input(key="diff_added_files_page").set_value(3).run()

    last = _paths(at)
    assert len(last) == 400 and not set(first) & set(last)


def test_pages_of_a_big_commit_are_its_records_in_file_order(big):
    log = DeltaLog.open(big)
    for version in (0, 1):  # version 0 is read as Arrow columns, version 1 as typed actions
        commit = log.commit(version)
        for kind, actions in ((FileKind.ADD, commit.adds), (FileKind.REMOVE, commit.removes)):
            count = commit_file_page(commit, kind, 0, 700).pages
            pages = [commit_file_page(commit, kind, p, 700) for p in range(count)]
            records = [r for page in pages for r in page.records]
            assert records == [file_action_record(a) for a in actions]
            assert {page.total for page in pages} == {len(actions)}
    assert commit_file_page(log.commit(0), FileKind.ADD, 99).page == 7  # clamped: 8 pages of 500
    assert sequence_page([], 3).records == () and sequence_page([], 3).pages == 1


def test_an_appending_commit_counts_its_rows_from_the_columns_as_from_the_records(big):
    log = DeltaLog.open(big)
    commit = log.commit(0)
    assert commit.columns is not None
    typed = dataclasses.replace(commit, parsed=commit.actions, columns=None)

    assert commit_rows(log, 0) == change_of(typed, lambda key: None)


def test_the_timeline_draws_a_window_of_2000_versions_and_pages_back(monkeypatch, tmp_path):
    root = str(tmp_path / "c2500")
    make_commits_table(root, 2500)

    at = _page(monkeypatch, tmp_path, table=root, view="timeline")

    history = next(d.value for d in at.dataframe if "operation" in d.value.columns)
    assert list(history["version"]) == list(range(2499, 499, -1))
    assert "Drawn: versions 500 to 2499 (2,000 of 2,500" in _captions(at)

    at.button(key="timeline_older").click().run()

    assert not at.exception
    history = next(d.value for d in at.dataframe if "operation" in d.value.columns)
    assert list(history["version"]) == list(range(499, -1, -1))
    assert at.query_params["version"] == "2499"  # paging the window selects nothing
    assert at.query_params["window"] == "1"  # the window is in the URL: a reload keeps it

    reloaded = _page(monkeypatch, tmp_path, **dict(at.query_params), view="timeline")
    history = next(d.value for d in reloaded.dataframe if "operation" in d.value.columns)
    assert list(history["version"]) == list(range(499, -1, -1))


def test_a_new_commit_on_a_long_log_shows_on_the_next_rerun(monkeypatch, tmp_path):
    import os

    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    root = str(tmp_path / "c1000")
    make_commits_table(root, 1000)
    log_dir = os.path.join(root, "_delta_log")
    an_hour_ago = (int(os.stat(log_dir).st_mtime) - 3600) * 10**9
    os.utime(log_dir, ns=(an_hour_ago, an_hour_ago))  # settled: reruns may skip re-listing

    at = _page(monkeypatch, tmp_path, table=root, view="version")
    assert "latest: v999" in _captions(at)
    at.run()  # the folder is unchanged: the listing is reused
    assert not at.exception and "latest: v999" in _captions(at)

    schema = pa.schema(DeltaTable(root).schema().to_arrow())
    write_deltalake(root, pa.table({f.name: pa.nulls(1, f.type) for f in schema}), mode="append")
    at.run()

    assert not at.exception and "latest: v1000" in _captions(at)


def test_a_page_beyond_another_versions_files_starts_that_version_at_page_1(
    big, monkeypatch, tmp_path
):
    at = _page(monkeypatch, tmp_path, table=big, version="0", view="version")
    at.number_input(key="version_files_add_page").set_value(8).run()
    assert "Files 3,501 to 4,000 of 4,000" in _captions(at)

    at.selectbox(key="version_select").set_value(1).run()  # 1,000 added files: 2 pages

    assert not at.exception and not at.error
    assert at.number_input(key="version_files_add_page").value == 1
    assert "Files 1 to 500 of 1,000" in _captions(at)
