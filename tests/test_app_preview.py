"""The Preview page in the app (AppTest): the demo table's rows at an old version and at a time.

The schema and file counts show without Spark; rows appear when asked, read by the
test run's Spark session, and equal what deltalake reads for the same version.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from deltalake import DeltaTable
from streamlit.testing.v1 import AppTest

from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.rows.session import spark_status
from inspector.settings import Settings
from inspector.table.history import build_history
from tests.conftest import run_app
from ui.common import escape_markdown

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> str:
    return write_demo_table(str(tmp_path_factory.mktemp("preview") / "orders"))


def _open(table: str, version: int, monkeypatch, tmp_path) -> AppTest:
    monkeypatch.setenv("DELTA_INSPECTOR_PREVIEW_ROWS", "25")
    params = {"table": table, "version": str(version), "view": "preview"}
    return run_app(monkeypatch, tmp_path, timeout=300, errors_shown=True, **params)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _expected_rows(table: str, version: int) -> int:
    return DeltaTable(table, version=version).to_pyarrow_dataset().count_rows()


def test_schema_shows_without_spark_and_rows_on_request_at_an_old_version(
    demo, spark, monkeypatch, tmp_path
):
    old = 3
    at = _open(demo, old, monkeypatch, tmp_path)
    assert at.selectbox(key=f"preview_version_{old}").value == old
    assert _metrics(at)["Version"] == str(old)
    assert "Rows" not in _metrics(at)  # no rows until asked

    at.button(key="preview_run").click().run()
    assert not at.exception and not at.error
    metrics = _metrics(at)
    assert metrics["Rows"] == f"{_expected_rows(demo, old):,}"
    assert metrics["Shown"] == "25"
    assert metrics["Files read"] == str(DeltaLog.open(demo).snapshot(old).num_files)
    frame = at.dataframe[-1].value
    assert len(frame) == 25 and "order_id" in frame.columns
    assert spark_status().state == "ready"
    # The sidebar says so after the run that read rows, in plain words (drawn after the page)
    assert _sidebar_spark(at) == f":material/bolt: {escape_markdown(spark_status().describe())}"
    assert re.search(
        r"Spark \d+\.\d+\S* running locally(?: \(started in \d+ s\))?; Delta Lake \d+\.\d+\S* reads rows",
        _sidebar_spark(at),
    )


def _sidebar_spark(at: AppTest) -> str:
    return [c.value for c in at.sidebar.caption if ":material/bolt:" in c.value][-1]


def test_preview_by_timestamp_resolves_the_version_and_filters(demo, spark, monkeypatch, tmp_path):
    history = build_history(DeltaLog.open(demo), Settings())
    target = history[4]
    assert history[5].timestamp - target.timestamp > timedelta(minutes=1)
    moment = (target.timestamp + timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
    at = _open(demo, history[-1].version, monkeypatch, tmp_path)
    at.radio(key="preview_by").set_value("Timestamp").run()
    at.text_input(key="preview_timestamp").input(moment).run()
    assert f"→ **version {target.version}**" in " ".join(c.value for c in at.caption)
    at.text_input(key="preview_where").input("region = 'EU'").run()

    at.button(key="preview_run").click().run()
    assert not at.exception and not at.error
    eu = DeltaTable(demo, version=target.version).to_pyarrow_table(filters=[("region", "=", "EU")])
    assert _metrics(at)["Rows"] == f"{eu.num_rows:,}"
    assert set(at.dataframe[-1].value["region"]) == {"EU"}


def test_a_bad_filter_and_a_bad_timestamp_are_shown_as_errors(demo, spark, monkeypatch, tmp_path):
    at = _open(demo, 2, monkeypatch, tmp_path)
    at.text_input(key="preview_where").input("region = ").run()
    at.button(key="preview_run").click().run()
    assert not at.exception
    assert "is not valid SQL" in at.error[0].value
    # Open next to the controls, not inside the collapsed "Preview failed" box.
    assert not any(box.error for box in [*at.status, *at.expander])

    at.radio(key="preview_by").set_value("Timestamp").run()
    at.text_input(key="preview_timestamp").input("1999-01-01").run()
    assert "before the earliest version" in at.error[0].value
