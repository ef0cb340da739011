"""Reading the Timeline: a version axis, marks for what changed besides rows, readable text.

Close commits piled into one column (no version axis); a partition overwrite read as a
plain WRITE and a schema change had no mark; parameters and metrics were cut-off JSON.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import Change, readable
from tests.conftest import run_app


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> str:
    return write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders"))


def test_the_history_knows_schema_property_protocol_changes_and_partition_overwrites(demo):
    history = build_history(DeltaLog.open(demo), Settings())
    changes = {e.version: e.changes for e in history if e.changes}
    assert changes == {
        6: (Change.SCHEMA,),  # a write that added a column
        7: (Change.PROPERTIES, Change.PROTOCOL),  # ADD CONSTRAINT
        8: (Change.PARTITION_OVERWRITE,),  # mode Overwrite with a predicate
        9: (Change.PROPERTIES,),  # SET TBLPROPERTIES
    }


def test_parameters_and_metrics_read_as_key_value_text():
    params = {"partitionBy": '["region"]', "mode": "Overwrite", "predicate": "region = 'APAC'"}
    assert readable(params) == "partitionBy: region · mode: Overwrite · predicate: region = 'APAC'"
    assert readable({"numOutputRows": "90"}) == "numOutputRows: 90"


def _timeline(table: str, monkeypatch, tmp_path) -> AppTest:
    return run_app(monkeypatch, tmp_path, timeout=180, table=table, view="timeline")


def test_the_timeline_marks_changes_and_offers_a_version_axis(demo, monkeypatch, tmp_path):
    at = _timeline(demo, monkeypatch, tmp_path)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in figure["data"]}
    assert {
        "schema changed",
        "properties changed",
        "protocol changed",
        "partition overwrite",
    } <= names
    named = [n for n in names if n]
    assert len({n.lower() for n in named}) == len(named)  # no two entries differ in case only
    table = next(d.value for d in at.dataframe if "parameters" in d.value.columns)
    assert not table["parameters"].str.contains('{"', regex=False).any()
    overwrite = table["parameters"].str.contains("predicate: region = 'APAC'", regex=False)
    assert (overwrite & table["parameters"].str.contains("mode: Overwrite", regex=False)).any()

    (axis,) = [b for b in at.button_group if b.label == "Axis"]
    axis.set_value("version").run()
    assert not at.exception
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert figure["layout"]["xaxis"]["title"]["text"] == "version"
    assert figure["layout"]["yaxis"]["type"] == "category"
