"""Page states (AppTest): a copied table said once, retention in words, metrics whose extra
figure is a caption rather than a delta arrow."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, open_app, sales_table

CDF = CORPUS / "delta-kernel-rs" / "cdf-table-with-cdc-and-dvs"  # its git checkout is a copy
APPENDS = CORPUS / "delta-kernel-java" / "basic-with-checkpoint"


def _page(table: str, view: str, monkeypatch, tmp_path) -> AppTest:
    return open_app(monkeypatch, tmp_path, table=table, view=view).run()


def test_a_copied_table_is_said_once_and_every_page_shows_the_history_timestamp(
    monkeypatch, tmp_path
):
    at = _page(str(CDF), "timeline", monkeypatch, tmp_path)

    assert not at.exception and not at.error
    headlines = [i.value for i in at.info if "looks like a copy" in i.value]
    assert (
        len(headlines) == 1 and "Every page shows each version's history timestamp" in headlines[0]
    )
    assert not [w for w in at.warning if "have problems" in w.value]  # no "v0, v1, … v25"
    history = next(d.value for d in at.dataframe if "problems" in d.value.columns)
    assert not history["problems"].str.contains("probably copied").any()
    (axis,) = [b for b in at.button_group if b.label == "Axis"]
    assert axis.value == "history"  # as the History table under it and the sidebar


def test_a_table_written_here_is_not_taken_for_a_copy(monkeypatch, tmp_path):
    at = _page(sales_table(tmp_path / "sales"), "timeline", monkeypatch, tmp_path)

    assert not at.exception and not at.error
    assert not [i for i in at.info if "looks like a copy" in i.value]


def test_retention_says_restorable_until_or_at_risk_since_in_words(monkeypatch, tmp_path):
    at = _page(str(APPENDS), "health", monkeypatch, tmp_path)
    at.button(key="health_run").click().run()

    assert not at.exception
    (table,) = [d.value for d in at.dataframe if "status" in d.value and "why" in d.value]
    assert "expires" not in table.columns
    for status in table["status"]:
        assert status == "restorable" or status.startswith(("restorable until ", "at risk since "))
    assert "Restorable; " not in " ".join(table["why"])


def test_a_metric_with_a_size_shows_it_as_a_caption_without_an_arrow():
    def page() -> None:
        from ui.common import metric_row

        row = metric_row()
        row.metric("Files removed", "9", caption="40.6 KB")
        row.metric("Files", "3", "+1", delta_color="off")

    at = AppTest.from_function(page).run()

    assert not at.exception
    removed, files = at.metric
    assert removed.value == "9" and not removed.delta
    assert "40.6 KB" in [c.value for c in at.caption]
    assert files.delta == "+1"


def _whole_row_diff(column: str, *, added: int, removed: int):
    """What Spark's row diff of versions 0 and 1 reports, rows matched whole (no key)."""
    from inspector.diff.rowkeys import RowDiff, RowSamples

    return RowDiff(
        from_version=0,
        to_version=1,
        columns=(column,),
        key=(),
        added=added,
        removed=removed,
        changed=None,
        files_read=2,
        bytes_read=0,
        samples=RowSamples(offset=0, limit=10),
    )


def test_rewritten_files_explain_the_rows_they_carry_over(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from inspector.diff.filediff import diff_files
    from inspector.log.deltalog import DeltaLog
    from ui.pages.diff_rows import carried_over_note

    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": pa.array(range(10), pa.int64())}))
    DeltaTable(path).update(updates={"id": "id + 100"}, predicate="id = 3")
    diff = diff_files(DeltaLog.open(path), 0, 1)
    # What the row diff finds for that UPDATE (one row out, one row in), as Spark reports it.
    rows = _whole_row_diff("id", added=1, removed=1)

    note = carried_over_note(diff, rows)

    assert note is not None and note.startswith(
        "1 file(s) rewritten: 9 unchanged rows carried over"
    )


def test_a_deletion_vector_update_is_not_called_a_rewrite(corpus):
    from inspector.diff.filediff import diff_files
    from inspector.log.deltalog import DeltaLog
    from ui.pages.diff_rows import carried_over_note

    log = DeltaLog.open(str(corpus / "delta-kernel-rs/table-with-dv-small"))  # v1: DV DELETE of 2
    diff = diff_files(log, 0, 1)
    rows = _whole_row_diff("value", added=0, removed=2)

    assert (diff.rewritten, diff.deletion_vector_updates) == (0, 1)
    note = carried_over_note(diff, rows)
    assert note is not None
    assert note.startswith("1 file(s) given a new deletion vector (not rewritten)")
    assert "still in the same files" in note and "written again" not in note


def test_the_timeline_chart_carries_a_retention_band_with_a_legend(monkeypatch, tmp_path):
    import json

    at = _page(str(APPENDS), "timeline", monkeypatch, tmp_path)

    assert not at.exception and not at.error
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in figure["data"]}
    assert {n for n in names if n and n.startswith("retention: ")}
    assert figure["layout"].get("shapes")
