"""``vacuum-plan``: the CLI contract (JSON keys, exit codes, bad input) on copies of real tables."""

from __future__ import annotations

import json

import pytest
from test_vacuum_plan import SIMPLE, age_table, oracle

from inspector.cli.main import main

CONTRACT = [
    "retainHours",
    "mode",
    "numFilesToDelete",
    "bytesToDelete",
    "filesToDelete",
    "versionsLost",
    "oldestReadableVersionBefore",
    "oldestReadableVersionAfter",
    "warnings",
]


def _run(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


@pytest.mark.parametrize("full", [False, True])
def test_vacuum_plan_json_contract(copy_table, capsys, full):
    root = copy_table(SIMPLE)
    age_table(root)

    code, body, _ = _run(
        capsys, "vacuum-plan", str(root), "--retain-hours", "60", "--json", *(["--full"] * full)
    )

    assert code == 0
    assert list(body)[: len(CONTRACT)] == CONTRACT
    assert body["retainHours"] == 60 and body["mode"] == ("full" if full else "lite")
    assert body["filesToDelete"] == oracle(root, 60, full=full)
    assert body["numFilesToDelete"] == len(body["filesToDelete"])
    assert body["bytesToDelete"] == sum((root / p).stat().st_size for p in body["filesToDelete"])
    assert body["versionsLost"] and body["oldestReadableVersionBefore"] == 0
    assert body["oldestReadableVersionAfter"] > 0
    assert "shorter than the table's" in body["warnings"][0]
    assert not [p for p in root.rglob("*.parquet") if not p.exists()]  # nothing deleted


def test_vacuum_plan_defaults_to_the_tables_retention(corpus, capsys):
    code, body, _ = _run(capsys, "vacuum-plan", str(corpus / SIMPLE), "--json")

    assert code == 0 and body["retainHours"] == 168 and body["warnings"] == []


def test_vacuum_plan_text_names_the_lost_versions(copy_table, capsys):
    root = copy_table(SIMPLE)
    age_table(root)

    code = main(["vacuum-plan", str(root), "--retain-hours", "0"])

    out = capsys.readouterr().out
    assert code == 0
    assert "Versions that stop being readable: 0..3" in out
    assert "Oldest readable version after: 4" in out


@pytest.mark.parametrize("hours", ["-1", "a week", "nan"])
def test_vacuum_plan_refuses_a_retention_that_is_not_hours(corpus, capsys, hours):
    code, body, err = _run(
        capsys, "vacuum-plan", str(corpus / SIMPLE), f"--retain-hours={hours}", "--json"
    )

    assert code == 2 and body["error"]["type"] == "InvalidInput"
    assert "retention" in err.lower() and "Traceback" not in err


def test_vacuum_plan_refuses_a_folder_that_is_not_a_table(tmp_path, capsys):
    code, body, err = _run(capsys, "vacuum-plan", str(tmp_path), "--json")

    assert code == 2 and body["error"]["type"] == "NotADeltaTable"
    assert "_delta_log" in err
