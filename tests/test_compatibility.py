"""Specification: engine compatibility (which engines read and write a table), from the cited
data file ``inspector/delta/engine_support.json`` and the table's protocol actions."""

from __future__ import annotations

import json
import re

from inspector.cli.main import main
from inspector.delta.engines import Support, load_engines, raw_data, version_key
from inspector.delta.parse import parse_protocol
from inspector.delta.protocol import FEATURES
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.compatibility import Access, describe_compatibility, judge
from inspector.table.history import build_history
from tests.conftest import CORPUS

DV_TABLE = CORPUS / "delta-kernel-java" / "basic-dv-with-checkpoint"
ICT_LATER = CORPUS / "delta-kernel-rs" / "in-commit-timestamps-test"  # inCommitTimestamp from 11


def compatibility(path, version=None):
    log = DeltaLog.open(str(path))
    return describe_compatibility(log, build_history(log, Settings()), version=version)


def test_every_entry_of_the_data_file_is_cited_and_dated():
    for entry in raw_data()["engines"]:
        assert entry["source"].startswith("https://"), entry["key"]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["checked"]), entry["key"]
        assert entry["label"] and "features" in entry


def test_the_data_file_names_only_known_features_and_spark_lists_every_one():
    engines = raw_data()["engines"]
    for entry in engines:
        assert set(entry["features"]) <= set(FEATURES), entry["key"]
        for support in entry["features"].values():
            for value in (support["read"], support["write"]):
                assert value in ("yes", "no", "unknown") or version_key(value), value
        assert entry.get("like") in (None, *(e["key"] for e in engines))
    spark = next(e for e in engines if e["key"] == "spark-delta")
    assert set(spark["features"]) == set(FEATURES)


def test_the_data_file_is_package_data():
    assert load_engines() and {e.key for e in load_engines()} >= {"spark-delta", "trino", "duckdb"}


def test_a_legacy_protocol_names_the_delta_version_that_added_its_features():
    spark = next(e for e in load_engines() if e.key == "spark-delta")
    mapped = parse_protocol({"minReaderVersion": 2, "minWriterVersion": 5})

    verdict = judge(spark, mapped, Access.READ)

    assert (verdict.support, verdict.since) == (Support.YES, "1.2.0")  # column mapping


def test_a_protocol_newer_than_an_engine_understands_is_refused():
    trino = next(e for e in load_engines() if e.key == "trino")
    future = parse_protocol({"minReaderVersion": 4, "minWriterVersion": 8})

    verdict = judge(trino, future, Access.READ)

    assert verdict.support is Support.NO and verdict.blocking == ("minReaderVersion 4",)


def test_a_deletion_vector_table_is_read_and_written_by_trino_and_unknown_where_not_cited():
    engines = {e.engine: e for e in compatibility(DV_TABLE).engines}

    assert engines["trino"].read.support is Support.YES  # Trino docs: readers and writers
    assert engines["trino"].write.support is Support.YES
    assert engines["spark-delta"].write.since == "2.3.0"
    assert engines["kernel-rs"].read.support is Support.YES  # its feature table
    assert (engines["duckdb"].write.support, engines["duckdb"].write.blocking) == (
        Support.UNKNOWN,  # DuckDB's docs name DV reads, not writes: never invented
        ("deletionVectors",),
    )


def test_the_version_that_brought_in_commit_timestamps_is_named():
    compat = compatibility(ICT_LATER)

    texts = [c.text for c in compat.changes]
    assert (
        "from version 11, Trino (Delta Lake connector) can no longer write this table: "
        "inCommitTimestamp" in texts
    )
    assert all(c.version == 11 for c in compat.changes)
    assert compatibility(ICT_LATER, version=10).changes == ()


def test_detail_json_carries_the_compatibility(capsys):
    assert main(["detail", str(DV_TABLE), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["compatibility"]

    assert record["version"] == 46
    duckdb = next(e for e in record["engines"] if e["engine"] == "duckdb")
    assert duckdb["write"] == {
        "support": "unknown",
        "blocking": ["deletionVectors"],
        "since": None,
        "caveats": [],
    }
    trino = next(e for e in record["engines"] if e["engine"] == "trino")
    assert trino["source"].startswith("https://trino.io/") and trino["checked"] == "2026-11-23"


def test_detail_text_lists_the_engines(capsys):
    assert main(["detail", str(ICT_LATER), "--whole-log"]) == 0
    out = capsys.readouterr().out

    tail = out.split("\ncompatibility:\n", 1)[1]
    assert "Trino (Delta Lake connector): read yes; write no [inCommitTimestamp]" in tail
    assert "from version 11, Trino (Delta Lake connector) can no longer write" in tail
