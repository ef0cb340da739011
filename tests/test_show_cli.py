"""``python -m inspector show``: a version's rows for scripts, by version or timestamp.

One test runs the real CLI in a subprocess (its own Spark start, as a script would);
the others call the same entry point in-process so they share the test run's Spark
session and stay fast.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
from datetime import UTC, datetime

import pyarrow.parquet as pq
import pytest

from inspector.cli.args import connection_settings
from inspector.cli.main import main
from inspector.connection import SparkConf
from inspector.settings import Settings
from tests.conftest import CORPUS, run_cli

PARTITIONED = CORPUS / "dat-v0.0.2/multi_partitioned/delta"  # versions 0..2
PRIMITIVES = CORPUS / "dat-v0.0.2/all_primitive_types/delta"  # binary, decimal, date, timestamp
ALL_KEYS = {"version", "columns", "numRows", "rows"}


def show(capsys, *args: object) -> tuple[int, str, str]:
    """Run ``show ARGS`` in-process; returns (exit code, stdout, stderr)."""
    code = main(["show", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.spark
def test_show_json_in_a_script_returns_exactly_the_versions_rows():
    result = run_cli("show", PARTITIONED, "--version", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no Spark start-up lines, no progress bars
    shown = json.loads(result.stdout)
    assert ALL_KEYS <= set(shown)
    expected = pq.read_table(str(CORPUS / "dat-v0.0.2/multi_partitioned/expected/v1/table_content"))
    assert shown["version"] == 1
    assert [c["name"] for c in shown["columns"]] == ["letter", "date", "data", "number"]
    assert [c["type"] for c in shown["columns"]] == ["string", "date", "binary", "long"]
    assert shown["numRows"] == expected.num_rows == len(shown["rows"])
    as_json = sorted(str((r["letter"], r["date"], r["number"])) for r in shown["rows"])
    assert as_json == sorted(
        str((r["letter"], r["date"] and r["date"].isoformat(), r["number"]))
        for r in expected.to_pylist()
    )


def test_timestamp_out_of_range_fails_in_one_line_without_starting_spark():
    result = run_cli("show", PARTITIONED, "--timestamp", "1999-01-01", "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["type"] == "TimestampOutOfRange"
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and " UTC" in error_lines[0]
    assert "Spark" not in result.stderr


@pytest.mark.spark
def test_values_are_json_scalars(spark, capsys):
    code, out, _ = show(capsys, PRIMITIVES, "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    expected = {
        r["utf8"]: r
        for r in pq.read_table(
            str(CORPUS / "dat-v0.0.2/all_primitive_types/expected/latest/table_content")
        ).to_pylist()
    }
    for row in rows:
        want = expected[row["utf8"]]
        assert row["decimal"] == str(want["decimal"])  # decimals as strings
        assert base64.b64decode(row["binary"]) == want["binary"]  # binary as base64
        assert row["date32"] == want["date32"].isoformat()  # dates ISO 8601
        moment = (
            want["timestamp"].replace(tzinfo=UTC)
            if want["timestamp"].tzinfo is None
            else want["timestamp"].astimezone(UTC)
        )
        assert datetime.fromisoformat(row["timestamp"]) == moment  # instants in UTC, ISO
        assert row["timestamp"].endswith("Z")


@pytest.mark.spark
def test_where_filters_and_the_count_is_exact_beyond_the_limit(spark, capsys):
    code, out, _ = show(
        capsys,
        CORPUS / "delta-kernel-rs-golden/basic-with-inserts-merge/delta",
        "--where",
        "id >= 10",
        "--limit",
        "3",
        "--json",
    )
    shown = json.loads(out)
    assert code == 0
    assert len(shown["rows"]) == 3 and all(r["id"] >= 10 for r in shown["rows"])
    assert shown["numRows"] > 3


@pytest.mark.spark
def test_show_by_timestamp_prints_the_resolved_version(spark, capsys, copy_table):
    root = copy_table("dat-v0.0.2/multi_partitioned/delta")
    for version in range(3):
        moment = datetime(2024, 10, 8, 5 + version, tzinfo=UTC).timestamp()
        os.utime(root / "_delta_log" / f"{version:020d}.json", (moment, moment))
    code, out, _ = show(capsys, root, "--timestamp", "2024-10-08 06:30", "--limit", "1")
    assert code == 0
    assert out.splitlines()[0] == "2024-10-08 06:30:00.000 UTC -> version 1"
    assert "version 1: " in out

    code, out, _ = show(capsys, root, "--timestamp", "2024-10-08 08:30+02:00", "--json")
    shown = json.loads(out)
    assert (shown["resolvedTimestamp"], shown["version"]) == ("2024-10-08T06:30:00Z", 1)
    code, out, _ = show(capsys, root, "--version", "1", "--json")
    assert "resolvedTimestamp" not in json.loads(out)


@pytest.mark.spark
def test_a_malformed_filter_is_bad_input_not_a_traceback(spark, capsys):
    code, out, err = show(capsys, PARTITIONED, "--where", "number >", "--json")
    assert code == 2
    assert json.loads(out)["error"]["type"] == "InvalidInput"
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.spark
def test_a_feature_delta_cannot_read_is_named_in_delta_s_words(spark, capsys):
    code, _, err = show(capsys, CORPUS / "delta-kernel-rs/table-with-geo")
    assert code == 2
    assert "Geospatial types are not supported" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_an_unknown_version_shows_the_range(capsys):
    code, _, err = show(capsys, PARTITIONED, "--version", "7")
    assert code == 2 and "versions 0 to 2" in err


def test_version_and_timestamp_are_exclusive(capsys):
    code, _, err = show(capsys, PARTITIONED, "--version", "1", "--timestamp", "2024-10-08")
    assert code == 2 and "not allowed with argument --version" in err


def test_spark_flags_override_the_settings():
    flags = argparse.Namespace(
        spark_master="spark://head:7077", spark_conf=["spark.executor.memory=4g", "a=2"]
    )
    settings = connection_settings(flags, Settings(spark_conf=SparkConf({"a": "1"})))
    assert settings.spark_master == "spark://head:7077"
    assert settings.spark_conf == SparkConf({"a": "2", "spark.executor.memory": "4g"})


def test_a_malformed_spark_conf_flag_is_bad_input(capsys):
    code, _, err = show(capsys, PARTITIONED, "--spark-conf", "no-equals-sign")
    assert code == 2 and "key=value" in err
