"""The Diff page in the app (AppTest): the file diff shows at once, rows only on request."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, run_app

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def shop(tmp_path):
    """v0 write (eu, us) | v1 append (eu, apac) | v2 DELETE in us | v3 UPDATE in eu."""
    path = str(tmp_path / "shop")

    def rows(ids, regions):
        return pa.table({"id": pa.array(ids, pa.int64()), "qty": [1] * len(ids), "region": regions})

    write_deltalake(path, rows([0, 1, 2, 3], ["eu", "us", "eu", "us"]), partition_by=["region"])
    write_deltalake(path, rows([4, 5], ["eu", "apac"]), partition_by=["region"], mode="append")
    DeltaTable(path).delete("id = 3")
    DeltaTable(path).update(updates={"qty": "qty + 1"}, predicate="id = 2")
    return path


def _diff_page(table: str, version: int, monkeypatch, tmp_path) -> AppTest:
    query = {"table": table, "version": str(version), "view": "diff"}
    return run_app(monkeypatch, tmp_path, timeout=180, errors_shown=True, **query)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _frame(at: AppTest, *columns: str):
    """The first table showing these columns (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in at.dataframe if set(columns) <= set(d.value.columns))


def test_file_diff_shows_without_comparing_rows(shop, monkeypatch, tmp_path):
    at = _diff_page(shop, 3, monkeypatch, tmp_path)

    assert (at.selectbox(key="diff_from_3").value, at.selectbox(key="diff_to_3").value) == (2, 3)
    assert [t.label for t in at.tabs] == ["Summary", "Schema", "Files", "Partitions", "Rows"]
    assert _metrics(at)["Commits in between"] == "1"
    commits = _frame(at, "operation", "+files")
    assert commits["operation"].tolist() == ["UPDATE"]
    assert len(_frame(at, "path", "modified")) == 1
    assert _frame(at, "partition", "+bytes")["partition"].tolist() == ["region=eu"]
    assert len(at.get("plotly_chart")) == 2
    assert len(at.get("download_button")) == 2
    assert "Rows added" not in _metrics(at)  # rows are compared only on request
    assert "_diff_rows_results" not in at.session_state
    # The key is pre-selected from the table: ``id`` is named like an id (region only groups rows)
    assert at.multiselect(key="diff_key").value == ["id"]


def test_pickers_diff_any_two_versions_backwards_too(shop, monkeypatch, tmp_path):
    at = _diff_page(shop, 3, monkeypatch, tmp_path)

    at.selectbox(key="diff_from_3").set_value(3)
    at.selectbox(key="diff_to_3").set_value(0).run()

    assert not at.exception
    assert any("Backwards" in c.value for c in at.caption)
    partitions = _frame(at, "partition", "+bytes").set_index("partition")
    assert set(partitions.index) == {"region=apac", "region=eu", "region=us"}
    assert (
        partitions.loc["region=apac", "-files"] == 1
        and partitions.loc["region=apac", "+files"] == 0
    )


@pytest.mark.spark
def test_rows_are_compared_after_the_button_with_a_key(shop, spark, monkeypatch, tmp_path):
    at = _diff_page(shop, 3, monkeypatch, tmp_path)
    at.selectbox(key="diff_from_3").set_value(0).run()

    assert at.multiselect(key="diff_key").value == ["id"]  # suggested by the table
    at.button(key="diff_rows_button").click().run()

    assert not at.exception
    metrics = _metrics(at)
    assert [metrics[m] for m in ("Keys added", "Keys removed", "Keys changed")] == ["2", "1", "1"]
    # One row per changed key, the changed field as before → after (highlighted)
    changed = next(d.value for d in at.dataframe if list(d.value.columns) == ["id", "qty"])
    assert changed.values.tolist() == [["2", "1 → 2"]]


def test_partition_columns_are_listed_first_but_not_picked_as_the_key(monkeypatch, tmp_path):
    """A partition groups many rows: suggested (listed first, said in the help), never pre-set."""
    table = str(CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta")
    at = _diff_page(table, 1, monkeypatch, tmp_path)

    key = at.multiselect(key="diff_key")
    assert key.value == [] and key.options[0] == "letter"
    assert "does not identify one" in key.help


def test_a_diff_link_keeps_the_key_and_the_row_result(shop, spark, monkeypatch, tmp_path):
    at = _diff_page(shop, 3, monkeypatch, tmp_path)
    at.selectbox(key="diff_from_3").set_value(0).run()
    at.multiselect(key="diff_key").set_value([]).run()  # whole rows, not the suggested key
    at.button(key="diff_rows_button").click().run()
    link = {k: str(at.query_params[k]) for k in at.query_params}
    assert (link["key"], link["rows"]) == ("-", "1")
    compared = {m: v for m, v in _metrics(at).items() if m.startswith("Rows ")}

    # The address sent to a colleague: the same key, the row result recomputed, no click.
    link["view"] = "diff"  # the page is the address's path; AppTest opens it by the old form
    again = run_app(monkeypatch, tmp_path, timeout=180, errors_shown=True, **link)
    assert again.multiselect(key="diff_key").value == []
    assert {m: v for m, v in _metrics(again).items() if m.startswith("Rows ")} == compared
