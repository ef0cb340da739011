"""One value formatter: the same text for the same value in show, diff --rows and the app.

Before, an instant was ``…Z`` in ``show --json``, naive in ``diff --rows --json`` and
``+00:00`` in the app; the text diff printed Python reprs. The golden rows below hold
every Spark type a Delta table can store, written by deltalake, read back by Spark.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.present.values import EMPTY, cell_value, row_text, setting_text, text_value
from inspector.settings import Settings

# column: (Arrow type, a value, how every text output writes it, how JSON writes it)
GOLDEN = {
    "bool": (pa.bool_(), True, "true", True),
    "byte": (pa.int8(), -8, "-8", -8),
    "short": (pa.int16(), 300, "300", 300),
    "int": (pa.int32(), 70_000, "70000", 70_000),
    "long": (pa.int64(), 2**40, "1099511627776", 2**40),
    "float": (pa.float32(), 1.5, "1.5", 1.5),
    "double": (pa.float64(), 2.25, "2.25", 2.25),
    "decimal": (pa.decimal128(5, 2), Decimal("12.30"), "12.30", "12.30"),
    "string": (pa.string(), "héllo", "héllo", "héllo"),
    "binary": (pa.binary(), b"\x01\x02\x03", "AQID", "AQID"),
    "date": (pa.date32(), date(2024, 3, 4), "2024-03-04", "2024-03-04"),
    "timestamp": (
        pa.timestamp("us", tz="UTC"),
        datetime(2024, 3, 4, 4, 35, tzinfo=UTC),
        "2024-03-04T04:35:00Z",
        "2024-03-04T04:35:00Z",
    ),
    "timestamp_ntz": (
        pa.timestamp("us"),
        datetime(2024, 3, 4, 4, 35),
        "2024-03-04T04:35:00",
        "2024-03-04T04:35:00",
    ),
    "array": (pa.list_(pa.int32()), [1, 2], "[1, 2]", [1, 2]),
    "map": (pa.map_(pa.string(), pa.int32()), [("a", 1)], '{"a": 1}', {"a": 1}),
    "struct": (
        pa.struct([("x", pa.int32()), ("y", pa.string())]),
        {"x": 1, "y": "z"},
        '{"x": 1, "y": "z"}',
        {"x": 1, "y": "z"},
    ),
}
NAMES = list(GOLDEN)


def test_text_values_never_look_like_python():
    assert text_value(None) == "null" and text_value(None, empty=EMPTY) == "–"
    assert text_value(True) == "true"
    assert text_value(Decimal("0E-10")) == "0.0000000000"
    assert text_value(float("nan")) == "NaN"
    assert text_value({"order_id": 373, "at": datetime(2024, 1, 1, tzinfo=UTC)}) == (
        '{"order_id": 373, "at": "2024-01-01T00:00:00Z"}'
    )
    assert row_text({"order_id": 373, "note": None}) == "order_id=373, note=null"
    assert setting_text(None) == "(not set)" and setting_text("quantity > 0") == "quantity > 0"
    assert cell_value(3) == 3 and cell_value(None) is None and cell_value(Decimal("1.50")) == "1.50"


@pytest.mark.parametrize("name", NAMES)
def test_each_type_is_written_once_the_same_way(name):
    _, value, text, plain = GOLDEN[name]
    assert text_value(value) == text
    assert cell_value(value) == (
        value
        if name in ("bool", "byte", "short", "int", "long", "float", "double", "string")
        else text
    )
    from inspector.delta.jsonvalue import json_value

    assert json_value(value) == plain


@pytest.fixture(scope="module")
def typed_table(tmp_path_factory) -> str:
    """v0: one row of every type and one row of nulls; v1: both deleted."""
    path = str(tmp_path_factory.mktemp("types") / "t")
    schema = pa.schema([(n, t) for n, (t, *_rest) in GOLDEN.items()] + [("id", pa.int32())])
    columns = {n: [v, None] for n, (_, v, *_rest) in GOLDEN.items()} | {"id": [1, 2]}
    write_deltalake(path, pa.table(columns, schema=schema))
    DeltaTable(path).delete()
    return path


@pytest.mark.spark
def test_show_diff_rows_and_the_app_table_agree_on_every_type(spark, typed_table, capsys):
    from inspector.rows.preview import build_preview
    from ui.pages.preview import _frame

    expected_json = {n: g[3] for n, g in GOLDEN.items()} | {"id": 1}
    nulls_json = dict.fromkeys(GOLDEN) | {"id": 2}

    assert main(["show", typed_table, "--version", "0", "--json"]) == 0
    shown = sorted(json.loads(capsys.readouterr().out)["rows"], key=lambda r: r["id"])
    assert shown == [expected_json, nulls_json]

    assert main(["diff", typed_table, "--from", "0", "--to", "1", "--key", "id", "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)["rows"]["samples"]["removed"]
    assert sorted(removed, key=lambda r: r["id"]) == [expected_json, nulls_json]

    assert main(["show", typed_table, "--version", "0"]) == 0
    # Summary, read path, header, then the rows.
    lines = [
        line for line in capsys.readouterr().out.splitlines() if not line.startswith("read path:")
    ]
    header = lines[1].split("\t")
    texts = {h.split(" ")[0]: v for h, v in zip(header, lines[2].split("\t"), strict=True)}
    if texts["id"] != "1":
        texts = dict(zip(texts, lines[3].split("\t"), strict=True))
    assert {n: texts[n] for n in NAMES} == {n: g[2] for n, g in GOLDEN.items()}

    assert main(["diff", typed_table, "--from", "0", "--to", "1", "--rows"]) == 0
    out = capsys.readouterr().out
    golden_row = ", ".join(f"{n}={g[2]}" for n, g in GOLDEN.items())
    assert f"- {golden_row}, id=1" in out
    assert "None" not in out and "{'" not in out

    preview = build_preview(DeltaLog.open(typed_table), 0, settings=Settings(), spark=spark)
    frame = _frame(preview).sort_values("id")
    cells = frame.iloc[0].to_dict()
    assert {n: cells[n] for n in NAMES} == {
        n: cell_value(g[1])
        if n in ("bool", "byte", "short", "int", "long", "float", "double", "string")
        else g[2]
        for n, g in GOLDEN.items()
    }
    assert all(v is None for k, v in frame.iloc[1].to_dict().items() if k != "id")
