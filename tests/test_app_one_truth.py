"""The app's pages say what the backend says, and every state is in the link (AppTest).

The pages render the one definition of each fact (``tests/test_one_truth_cli.py`` holds
the commands to it): the Version page's files as Delta counts them and the add and
remove actions under their own names, rows as +inserted / −deleted / updated,
statistics as columns; the Diff page's commit times with the writer's time labelled
beside them. A refused restore plan is only its refusal, and an error replaces the old
plan. Every documented address opens its page.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from inspector.delta.text import format_time
from inspector.diff.filediff import diff_files
from inspector.health.retention import retention_policy
from inspector.log.deltalog import DeltaLog
from tests.conftest import open_app, page_text, run_app, run_main, sales_table

DV_TABLE = "delta-kernel-rs/cdf-table-with-cdc-and-dvs"
MERGE_TABLE = "delta-golden/basic-with-inserts-merge"


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_every_page_is_registered_under_its_own_address(corpus, monkeypatch, tmp_path):
    at = run_app(monkeypatch, tmp_path, table=str(corpus / MERGE_TABLE), view="timeline")
    paths = {str(i.get("page_name")): i.get("url_pathname") for i in at._registered_pages.values()}
    # Streamlit answers a default page's own path with "Page not found": none is default.
    assert paths["Timeline"] == "timeline"
    assert all(path for name, path in paths.items() if name != "Timeline" or path)


def test_the_version_page_counts_a_deletion_vector_delete_as_delta_does(
    corpus, capsys, monkeypatch, tmp_path
):
    table = str(corpus / DV_TABLE)
    _, out, _ = run_main(capsys, "history", table, "--json")
    delete = next(e for e in json.loads(out) if e["operation"] == "DELETE")
    at = run_app(monkeypatch, tmp_path, table=table, view="version", version=str(delete["version"]))
    metrics = _metrics(at)
    assert metrics["Files added"] == "0" and metrics["Files removed"] == "0"
    assert metrics["Deletion vectors updated"] == f"{delete['numDeletionVectorUpdates']:,}"
    assert metrics["Rows +inserted / −deleted / updated"] == f"+0 / −{delete['rowsDeleted']:,}"
    tabs = [t.label for t in at.tabs]
    assert f"add actions ({delete['numAddActions']:,})" in tabs
    assert f"remove actions ({delete['numRemoveActions']:,})" in tabs


def test_the_version_page_shows_a_merges_metrics_whole_and_its_rows_as_history_json(
    corpus, capsys, monkeypatch, tmp_path
):
    table = str(corpus / MERGE_TABLE)
    _, out, _ = run_main(capsys, "history", table, "--json")
    merge = {e["version"]: e for e in json.loads(out)}[1]
    at = run_app(monkeypatch, tmp_path, table=table, view="version", version="1")
    label = (
        f"+{merge['rowsInserted']:,} / −{merge['rowsDeleted']:,} / {merge['rowsUpdated']:,} updated"
    )
    assert _metrics(at)["Rows +inserted / −deleted / updated"] == label
    shown = {}
    for table_el in at.table:
        frame = table_el.value
        if list(frame.columns) == ["field", "value"]:
            shown.update(dict(zip(frame["field"], frame["value"], strict=True)))
    for name, value in merge["operationMetrics"].items():
        assert shown[name] == str(value), name  # whole values, full width


def test_file_statistics_are_columns_not_json(corpus, monkeypatch, tmp_path):
    at = run_app(
        monkeypatch, tmp_path, table=str(corpus / MERGE_TABLE), view="version", version="0"
    )
    frames = [d.value for d in at.dataframe]
    files = next(f for f in frames if "path" in f.columns and "size" in f.columns)
    assert any(c.startswith("min ") for c in files.columns)
    assert any(c.startswith("max ") for c in files.columns)
    assert not {"minValues", "maxValues", "nullCount"} & set(files.columns)
    assert not any(
        str(v).startswith("{") for c in files.columns if c.startswith("m") for v in files[c]
    )


def test_the_diff_pages_commits_show_the_history_time_and_the_writers_time_labelled(
    corpus, monkeypatch, tmp_path
):
    table = str(corpus / DV_TABLE)
    log = DeltaLog.open(table)
    at = run_app(monkeypatch, tmp_path, table=table, view="diff", **{"from": "0", "to": "5"})
    commits = next(d.value for d in at.dataframe if "writer's commitInfo time" in d.value.columns)
    for c in diff_files(log, 0, 5).by_commit:
        row = commits[commits["version"] == c.version].iloc[0]
        assert row["timestamp"] == format_time(c.timestamp)
        assert row["writer's commitInfo time"] == format_time(c.commit_info_timestamp)
    assert (commits["timestamp"] != commits["writer's commitInfo time"]).any()  # a copy


@pytest.fixture
def operator_restore(tmp_path, monkeypatch):
    table = sales_table(tmp_path / "sales")
    at = open_app(monkeypatch, tmp_path, timeout=120, operator=True, table=table)
    at.query_params["view"] = "restore"
    at.run()
    return at


def _plan(at: AppTest, target: str) -> AppTest:
    at.text_input(key="restore_target").input(target)
    return at.button(key="restore_plan_button").click().run()


def test_a_plan_for_a_version_that_does_not_exist_is_only_a_refusal(operator_restore):
    at = _plan(operator_restore, "99")

    assert not at.exception
    refusal = " ".join(e.value for e in at.error)
    assert "No restore to version 99" in refusal and "newer than the current version" in refusal
    assert "None" not in page_text(at)
    assert not [t for t in at.text_input if t.key == "restore_confirm_table"]
    assert any("Engines:" in c.value for c in at.caption)


def test_an_error_replaces_the_plan_on_screen(operator_restore):
    at = _plan(operator_restore, "1")
    assert [t for t in at.text_input if t.key == "restore_confirm_table"]
    at.run()  # the next run: the Plan button is enabled again

    at = _plan(at, "not a time")

    assert at.error
    assert not [t for t in at.text_input if t.key == "restore_confirm_table"]


def test_a_bad_version_in_a_link_is_reported_with_what_the_page_shows_instead(
    corpus, monkeypatch, tmp_path
):
    table = str(corpus / DV_TABLE)
    at = run_app(monkeypatch, tmp_path, table=table, view="diff", **{"from": "5", "to": "abc"})

    warning = " ".join(w.value for w in at.warning)
    assert "to=abc is not a version of this table" in warning
    shown_from = at.selectbox(key=f"diff_from_{DeltaLog.open(table).latest_version}").value
    assert f"Showing version {shown_from} →" in warning


def test_the_overview_shows_no_internal_path(corpus, monkeypatch, tmp_path):
    at = run_app(monkeypatch, tmp_path, table=str(corpus / DV_TABLE), view="overview")
    text = page_text(at).replace(str(corpus / DV_TABLE), "TABLE")  # its location is shown
    assert "with a caveat" in text  # the caveats are there, in words
    for internal in ("../", "shared/corpus", "tests/", ".py"):
        assert internal not in text, internal


def test_the_health_page_words_the_retention_as_restore_and_vacuum_do(
    corpus, monkeypatch, tmp_path
):
    at = run_app(monkeypatch, tmp_path, table=str(corpus / DV_TABLE), view="health")
    at.button(key="health_run").click().run()
    captions = " ".join(c.value for c in at.caption)
    log = DeltaLog.open(str(corpus / DV_TABLE))
    policy = retention_policy(log.snapshot().metadata.configuration)
    assert f"Log retention {policy.log.describe()}" in captions.replace("\\", "")
    assert f"deleted-file retention {policy.deleted_files.describe()}" in captions.replace("\\", "")


@pytest.mark.parametrize(
    "query",
    [
        {"view": "preview", "at": "1"},
        {"view": "diff", "from": "0", "to": "1"},
        {"view": "changes", "from": "0", "to": "0"},
    ],
)
def test_a_linked_picker_gets_no_default_beside_its_state(
    corpus, query, monkeypatch, tmp_path, recwarn
):
    at = run_app(monkeypatch, tmp_path, table=str(corpus / MERGE_TABLE), errors_shown=True, **query)
    shown = [w.value for w in at.warning] + [str(w.message) for w in recwarn]
    assert not any("Session State" in text for text in shown), shown


def test_the_timeline_legend_has_no_two_entries_differing_in_case(corpus, monkeypatch, tmp_path):
    at = run_app(monkeypatch, tmp_path, table=str(corpus / DV_TABLE), view="timeline")
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [t["name"] for t in figure["data"] if t.get("name") and t.get("showlegend", True)]
    assert len({n.lower() for n in set(names)}) == len(set(names)), names


def _committed(audit_log: str, table: str, *, restore: int, back_to: int, partial: bool) -> None:
    """A committed restore in the audit log, as execute_restore records it."""
    from inspector.restore.audit import Attempt, AttemptStatus, record_attempt

    record_attempt(
        audit_log,
        Attempt(table=table, from_version=back_to, to_version=1, reason="test"),
        outcome=AttemptStatus.COMMITTED,
        committed_version=restore,
        details={"partial": partial, "verified": True},
    )


def test_undo_is_reachable_from_the_audit_page_and_names_the_later_commits(tmp_path, monkeypatch):
    table = sales_table(tmp_path / "sales")  # versions 0..4
    _committed(str(tmp_path / "audit.jsonl"), table, restore=3, back_to=2, partial=False)
    at = open_app(monkeypatch, tmp_path, operator=True, table=table, view="audit")
    at.run()

    text = page_text(at)
    assert "Undo the restore committed as version 3: restore version 2." in text
    assert "It would also revert version 4, committed after the restore." in text
    at.button(key="audit_undo_3").click().run()

    assert not at.exception
    assert at.text_input(key="restore_target").value == "2"
    assert at.session_state["restore_reason"] == "Undo the restore committed as version 3"


def test_a_recoverys_undo_is_not_offered_and_says_why(tmp_path, monkeypatch):
    table = sales_table(tmp_path / "sales")
    _committed(str(tmp_path / "audit.jsonl"), table, restore=4, back_to=3, partial=True)
    at = open_app(monkeypatch, tmp_path, operator=True, table=table, view="audit")
    at.run()

    assert "needs the files this recovery left out" in page_text(at)
    assert not [b for b in at.button if b.key == "audit_undo_4"]


def test_the_history_table_scrolls_to_the_selected_version(corpus, monkeypatch, tmp_path):
    table = str(corpus / DV_TABLE)  # versions 0..25
    at = run_app(monkeypatch, tmp_path, table=table, view="timeline", version="4")
    history = next(d for d in at.dataframe if "parameters" in d.value.columns)
    assert list(history.value["version"]) == list(range(25, -1, -1))  # every version kept
    (scroll,) = [h.proto.body for h in at.get("html") if "dvn-scroller" in h.proto.body]
    # Row 21 (version 4) in view, three newer rows above it: scrolled by 18 rows of 35 px.
    assert ".st-key-history_table_4_26_25_0 .dvn-scroller" in scroll
    assert "grid.scrollTop = 630;" in scroll
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    sizes = []
    for trace in figure["data"]:
        size = trace.get("marker", {}).get("size")
        if isinstance(size, dict) and trace.get("hovertext"):  # the commits' marks (binary)
            sizes += np.frombuffer(base64.b64decode(size["bdata"]), dtype=size["dtype"]).tolist()
    assert sizes and min(sizes) >= 7  # no faint dots beside one big commit


@pytest.mark.parametrize("name", ["delta-spark/table-with-dv-small", DV_TABLE])
def test_rows_at_the_latest_version_are_the_same_on_every_page_and_command(
    name, corpus, monkeypatch, tmp_path, capsys
):
    table = str(corpus / name)
    _, out, _ = run_main(capsys, "detail", table, "--json")
    rows = json.loads(out)["numRecords"]
    _, out, _ = run_main(capsys, "insights", table, "--json")
    assert json.loads(out)["rows"] == rows  # deletion vectors subtracted
    latest = json.loads(out)["version"]

    shown = {}
    for view, label in (("overview", "Records"), ("preview", "Records (from stats)")):
        at = run_app(monkeypatch, tmp_path, table=table, view=view, version=str(latest))
        shown[view] = _metrics(at)[label]

    # (The Version page shows a snapshot's records only for a version without a commit file.)
    assert shown == dict.fromkeys(("overview", "preview"), f"{rows:,}")
