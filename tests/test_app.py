"""The app, driven as a user would through Streamlit's AppTest: open a table, pick a version, read it.

Each ``at.run()`` executes ``app.py`` once, like a browser rerun, so the tests are few
and each checks several things a user would see on the same screen.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, shown_page
from ui.launch import LaunchOptions, launch_options

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
V0_FILE = "letter=a/part-00000-a08d296a-d2c5-4a99-bea9-afcea42ba2e9.c000.snappy.parquet"
V1_FILE = "letter=e/part-00000-847cf2d1-1247-4aa0-89ef-2f90c68ea51e.c000.snappy.parquet"


def open_link(at: AppTest, **params: str) -> AppTest:
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def shown_text(at: AppTest) -> str:
    """Everything rendered as text: markdown, captions, code blocks and static tables."""
    parts = (
        [m.value for m in at.markdown] + [c.value for c in at.caption] + [c.value for c in at.code]
    )
    parts += [t.value.to_string() for t in at.table]
    return "\n".join(parts)


def test_a_link_opens_a_table_at_a_version_and_picking_another_shows_its_files(app):
    at = open_link(app, table=str(PARTITIONED), version="1", view="version")

    assert not at.exception and not at.error
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert V1_FILE in shown_text(at) and V0_FILE not in shown_text(at)
    assert V1_FILE in list(at.dataframe[0].value["path"])  # the "Added" tab's table

    at.selectbox(key="version_select").set_value(0).run()

    assert not at.exception and not at.error
    assert "Version 0 · WRITE" in [h.value for h in at.subheader]
    assert f"+ {V0_FILE}" in shown_text(at)
    added = at.dataframe[0].value
    assert V0_FILE in list(added["path"]) and V1_FILE not in list(added["path"])
    assert list(added["partition"]) == ["letter=a", "letter=b", "letter=c"]
    assert at.query_params["version"] == "0"  # the URL follows the selection
    assert at.query_params["table"] == str(PARTITIONED)
    assert shown_page(at) == "version"  # the old ?view= link now has the page's own path
    assert "view" not in at.query_params


def test_the_timeline_lists_every_version_newest_first(app):
    at = open_link(app, table=str(CORPUS / "delta-kernel-rs" / "cdf-table-with-cdc-and-dvs"))

    assert not at.exception and not at.error
    history = at.dataframe[0].value
    assert list(history["version"]) == list(range(25, -1, -1))
    assert {"MERGE", "DELETE", "UPDATE", "OPTIMIZE"} <= set(history["operation"])
    assert shown_page(at) == "timeline" and at.query_params["version"] == "25"

    at.multiselect(key="timeline_ops").select("DELETE").run()

    assert not at.exception
    assert set(at.dataframe[0].value["operation"]) == {"DELETE"}


def test_the_overview_shows_the_number_of_files_and_the_schema(app):
    at = open_link(app, table=str(PARTITIONED), view="overview")

    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Files"] == "6"
    schema = at.dataframe[0].value
    assert list(schema["column"]) == ["letter", "number", "a_float"]
    assert "letter" in shown_text(at)  # partitionColumns in the detail table


@pytest.mark.parametrize("kind", ["plain folder", "missing path"])
def test_a_location_that_is_not_a_table_shows_an_error_and_nothing_breaks(app, tmp_path, kind):
    location = tmp_path / "just-a-folder"
    if kind == "plain folder":
        location.mkdir()
        (location / "data.csv").write_text("a,b\n1,2\n")

    at = open_link(app, table=str(location))

    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert "just-a-folder" in message
    assert (
        ("no \\_delta\\_log folder" in message)
        if kind == "plain folder"
        else ("does not exist" in message)
    )
    assert at.text_input(key="table_input").value == str(location)  # the user can correct it


def test_a_link_to_a_version_that_does_not_exist_falls_back_to_the_latest(app):
    at = open_link(app, table=str(PARTITIONED), version="99", view="version")

    assert not at.exception
    assert "Version 99 is not in this table's log" in at.error[0].value
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert at.query_params["version"] == "1"


def test_a_truncated_commit_is_reported_against_its_version(app, copy_table):
    table = copy_table("dat-v0.0.2/basic_partitioned/delta")
    commit = table / "_delta_log" / "00000000000000000001.json"
    commit.write_bytes(commit.read_bytes()[:-120])

    at = open_link(app, table=str(table), version="1", view="version")

    assert not at.exception and not at.error
    assert any("truncated" in w.value for w in at.warning)


def test_with_no_table_given_the_app_writes_and_opens_the_demo_table(app, tmp_path):
    at = app.run()

    assert not at.exception and not at.error
    assert at.query_params["table"] == str(tmp_path / "demo")
    assert (tmp_path / "demo" / "_delta_log").is_dir()
    versions = at.selectbox(key="version_select").options
    assert len(versions) >= 10
    operations = set(at.dataframe[0].value["operation"])
    assert {"WRITE", "MERGE", "DELETE", "UPDATE"} <= operations


def test_a_long_logs_picker_lists_the_versions_around_the_picked_one_and_steps_past_them(
    app, monkeypatch
):
    monkeypatch.setattr("ui.navigation.PICKER_WINDOW", 4)  # as a log of 100,000 commits would
    table = str(CORPUS / "delta-kernel-rs" / "cdf-table-with-cdc-and-dvs")  # versions 0 to 25
    at = open_link(app, table=table, version="12", view="version")

    assert not at.exception and not at.error
    picker = at.selectbox(key="version_select")
    assert [int(o.split(" · ")[0][1:]) for o in picker.options] == [25, 13, 12, 11, 10, 0]
    assert "Version (26 in the log)" == picker.label
    at.button(key="_older").click().run()
    at.button(key="_older").click().run()
    at.button(key="_older").click().run()

    assert at.query_params["version"] == "9"
    options = at.selectbox(key="version_select").options
    assert [int(o.split(" · ")[0][1:]) for o in options] == [25, 10, 9, 8, 7, 0]


def test_a_version_that_only_a_checkpoint_remembers_shows_its_state(app, copy_table):
    table = copy_table("dat-v0.0.2/with_checkpoint/delta")
    for version in (0, 1, 2):  # log cleanup removed the commits up to the checkpoint
        (table / "_delta_log" / f"{version:020d}.json").unlink()

    at = open_link(app, table=str(table), version="2", view="version")

    assert not at.exception and not at.error
    assert "Version 2 · checkpoint only" in [h.value for h in at.subheader]
    assert {m.label: m.value for m in at.metric}["Files"] == "1"
    options = at.selectbox(key="version_select").options
    assert [o.split(" · ")[:2] for o in options] == [["v3", "WRITE"], ["v2", "checkpoint only"]]


def test_command_line_options_after_the_double_dash_are_read():
    assert launch_options(["--table", "/data/sales", "--operator"]) == LaunchOptions(
        table="/data/sales", operator=True
    )


def test_a_malformed_setting_is_reported_instead_of_crashing(app, monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_RECENT_TABLES_MAX", "ten")

    at = app.run()

    assert not at.exception
    assert "DELTA\\_INSPECTOR\\_RECENT\\_TABLES\\_MAX='ten' is not a valid int" in at.error[0].value


def test_the_overview_shows_which_engines_can_read_and_write_the_table(app):
    table = CORPUS / "delta-kernel-rs" / "in-commit-timestamps-test"  # inCommitTimestamp from 11
    at = open_link(app, table=str(table), view="overview")

    assert not at.exception and not at.error
    frames = [t.value for t in at.table if "engine" in t.value.columns]
    assert len(frames) == 1
    rows = frames[0].set_index("engine")
    assert rows.loc["Trino (Delta Lake connector)", "read"] == "yes"
    assert rows.loc["Trino (Delta Lake connector)", "write"] == "no [inCommitTimestamp]"
    assert rows.loc["Apache Spark + Delta Lake", "write"] == "yes (since 3.3.0)"
    assert "From version 11, Trino (Delta Lake connector) can no longer write" in shown_text(at)


def test_a_stale_query_string_from_the_browser_does_not_undo_a_choice(app):
    # A click during a run can reach the server with the URL of a few runs ago (the newer
    # one had not reached the browser yet): the link is read once, so the choice stays.
    at = open_link(app, table=str(PARTITIONED), version="1", view="version")
    at.selectbox(key="version_select").set_value(0).run()
    assert at.query_params["version"] == "0"

    at.query_params["version"] = "1"  # the stale URL, as the browser sent it
    at.run()

    assert not at.exception
    assert at.session_state["version_select"] == 0
    assert at.query_params["version"] == "0" and shown_page(at) == "version"


def test_a_link_with_an_unknown_page_says_so_and_shows_the_timeline(app):
    at = open_link(app, table=str(PARTITIONED), view="nonsense")

    assert not at.exception
    assert "page 'nonsense' that does not exist" in at.error[0].value
    assert shown_page(at) == "timeline" and "view" not in at.query_params


def test_a_link_to_an_operator_page_outside_operator_mode_says_how_to_get_it(app):
    at = open_link(app, table=str(PARTITIONED), view="restore")

    assert not at.exception
    assert "only available in operator mode" in at.error[0].value
    assert shown_page(at) == "timeline"
