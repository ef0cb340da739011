"""``python -m inspector diff``: the contract a postmortem script relies on."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.cli.main import main
from inspector.diff.rowkeys import suggest_key
from inspector.log.deltalog import DeltaLog
from tests.conftest import REPO, run_cli


@pytest.fixture
def accounts(tmp_path):
    """v0 write | v1 append with a new column | v2 UPDATE | v3 property change."""
    path = str(tmp_path / "accounts")
    write_deltalake(path, pa.table({"id": pa.array(range(5), pa.int64()), "balance": [10.0] * 5}))
    write_deltalake(
        path,
        pa.table(
            {"id": pa.array([5, 6], pa.int64()), "balance": [1.0, 2.0], "owner": ["ann", "bob"]}
        ),
        mode="append",
        schema_mode="merge",
    )
    DeltaTable(path).update(updates={"balance": "balance + 1"}, predicate="id in (0, 5)")
    DeltaTable(path).alter.set_table_properties({"delta.appendOnly": "false"})
    return path


def _files(path: str, version: int) -> set[str]:
    """The live files of a version, by deltalake (independent of the inspector)."""
    return set(
        pa.table(DeltaTable(path, version=version).get_add_actions()).column("path").to_pylist()
    )


@pytest.mark.parametrize("from_version,to_version", [(0, 3), (3, 0), (1, 2)])
def test_json_contract_lists_schema_and_file_changes_in_either_order(
    accounts, from_version, to_version
):
    result = run_cli("diff", accounts, "--from", from_version, "--to", to_version, "--json")

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["from"], out["to"]) == (from_version, to_version)
    assert set(out["schema"]) >= {"added", "removed", "changed"}
    assert set(out["files"]["added"]) == _files(accounts, to_version) - _files(
        accounts, from_version
    )
    assert set(out["files"]["removed"]) == _files(accounts, from_version) - _files(
        accounts, to_version
    )
    assert "rows" not in out


def test_json_reports_columns_properties_commits_and_partitions(accounts):
    out = json.loads(run_cli("diff", accounts, "--from", 0, "--to", 3, "--json").stdout)

    assert out["schema"]["added"] == ["owner"]
    assert out["schema"]["addedColumns"][0]["type"] == "string"
    assert [(p["key"], p["after"]) for p in out["properties"]] == [("delta.appendOnly", "false")]
    assert [c["operation"] for c in out["commits"]] == ["WRITE", "UPDATE", "SET TBLPROPERTIES"]
    assert out["partitions"][0]["partitionValues"] == {}
    assert out["sides"]["to"]["numRecords"] == 7
    assert out["files"]["filesAdded"] == len(out["files"]["added"])

    backwards = json.loads(run_cli("diff", accounts, "--from", 3, "--to", 0, "--json").stdout)
    assert backwards["schema"]["removed"] == ["owner"]


def test_file_diff_never_starts_spark(accounts):
    script = (
        "import sys; from inspector.cli.main import main; "
        f"code = main(['diff', {accounts!r}, '--from', '0', '--to', 'latest']); "
        "sys.exit(code or ('pyspark' in sys.modules and 9))"
    )

    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )

    assert result.returncode == 0, result.stderr
    assert "version 0 -> 3" in result.stdout and "+ column owner" in result.stdout


@pytest.mark.parametrize(
    "args,kind",
    [
        (("--from", 0, "--to", 9), "VersionNotFound"),
        (("--from", "yesterday", "--to", 1), "InvalidInput"),
    ],
)
def test_bad_versions_are_one_line_errors(accounts, args, kind):
    result = run_cli("diff", accounts, *args, "--json")

    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["type"] == kind
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.spark
def test_rows_with_a_key_report_changed_keys_and_capped_samples(
    accounts, spark, capsys, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_SAMPLE_ROWS", "1")

    code = main(["diff", accounts, "--from", "0", "--to", "3", "--rows", "--key", "id", "--json"])

    assert code == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert (rows["added"], rows["removed"], rows["changed"]) == (2, 0, 1)
    assert len(rows["samples"]["added"]) == 1 and rows["samples"]["limit"] == 1
    assert rows["samples"]["changed"] == [
        {"key": {"id": 0}, "changes": {"balance": {"before": 10.0, "after": 11.0}}}
    ]


@pytest.mark.spark
def test_rows_with_no_key_count_whole_rows(accounts, spark, capsys):
    code = main(["diff", accounts, "--from", "2", "--to", "1", "--rows", "--no-key"])

    assert code == 0
    out = capsys.readouterr().out
    assert "rows: 2 added, 2 removed" in out and "suggested key" not in out


@pytest.mark.spark
def test_rows_without_a_key_match_on_the_key_the_app_suggests(accounts, spark, capsys):
    code = main(["diff", accounts, "--from", "2", "--to", "1", "--rows", "--json"])

    assert code == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    suggestion = suggest_key(DeltaLog.open(accounts).snapshot(1))
    assert rows["key"] == list(suggestion.columns) == ["id"]  # the app's default key
    assert rows["keySuggestion"] == suggestion.to_json()
    assert "changed" in rows
