"""``python -m inspector``: the contract operators' runbooks and scripts rely on.

Every test runs the CLI's entry point (``cli.main.main(argv)``, in-process; one test
through ``python -m inspector`` in a subprocess) and checks what a script sees: the
exit code, stdout (text or JSON) and stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO, run_cli

PARTITIONED = CORPUS / "dat-v0.0.2/multi_partitioned/delta"  # 0..2: append, then overwrite
WITH_CHECKPOINT = CORPUS / "delta-golden/125-iterator-bug"  # 0..11, checkpoint at 10
EXPIRED_START = CORPUS / "dat-v0.0.2/no_replay/delta"  # commits 2..3 and a checkpoint at 2

HISTORY_KEYS = {
    "version",
    "timestamp",
    "operation",
    "operationParameters",
    "operationMetrics",
    "numAddedFiles",
    "numRemovedFiles",
    "addedBytes",
    "removedBytes",
    "problems",
}
FILE_KEYS = {"path", "size", "partitionValues", "dataChange"}


def run_json(*args: object):
    """Run a command with ``--json`` that must succeed, and parse its stdout."""
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def commit_actions(table: Path, version: int) -> list[dict]:
    """The actions of a commit file, read independently of the inspector."""
    text = (table / "_delta_log" / f"{version:020d}.json").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- history ---------------------------------------------------------------------------


def test_history_json_lists_every_version_newest_first_with_the_contract_keys():
    history = run_json("history", PARTITIONED)

    assert [entry["version"] for entry in history] == [2, 1, 0]
    for entry in history:
        assert HISTORY_KEYS <= set(entry)
        assert entry["operation"] == "WRITE"
        assert isinstance(entry["operationParameters"], dict)
        assert isinstance(entry["operationMetrics"], dict)
        assert all(isinstance(problem, str) for problem in entry["problems"])
    assert history[0]["operationParameters"]["mode"] == "Overwrite"
    assert history[-1]["operationMetrics"]["numFiles"] == "3"


def test_history_json_timestamps_are_iso_8601_in_utc():
    history = run_json("history", PARTITIONED)

    for entry in history:
        assert entry["timestamp"].endswith("Z")
        parsed = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00"))
        assert parsed.utcoffset() == UTC.utcoffset(None)
    stamps = [entry["timestamp"] for entry in history]
    assert stamps == sorted(stamps, reverse=True), "newest first, never older than the one before"


def test_history_json_counts_files_and_bytes_from_each_commits_own_actions():
    history = run_json("history", PARTITIONED)

    for entry in history:
        actions = commit_actions(PARTITIONED, entry["version"])
        adds = [a["add"] for a in actions if "add" in a]
        removes = [a["remove"] for a in actions if "remove" in a]
        assert entry["numAddedFiles"] == len(adds)
        assert entry["numRemovedFiles"] == len(removes)
        assert entry["addedBytes"] == sum(a["size"] for a in adds)
        assert entry["removedBytes"] == sum(r["size"] for r in removes)
    overwrite = history[0]
    assert (overwrite["numAddedFiles"], overwrite["numRemovedFiles"]) == (2, 5)
    assert (overwrite["addedBytes"], overwrite["removedBytes"]) == (980, 2450)


def test_history_json_says_when_a_copied_table_has_disagreeing_timestamps(copy_table):
    table = copy_table("dat-v0.0.2/multi_partitioned/delta")  # commits from 2023, files copied now

    oldest = run_json("history", table)[-1]

    assert oldest["commitInfoTimestamp"].startswith("2023-01-25")
    assert any("copied or replicated" in problem for problem in oldest["problems"])


def test_history_json_reports_commits_expired_before_the_first_one():
    history = run_json("history", EXPIRED_START)

    assert [entry["version"] for entry in history] == [3, 2]
    assert any("before version 2" in problem for problem in history[-1]["problems"])


@pytest.mark.parametrize(
    "limit, expected", [(3, [11, 10, 9]), (1, [11]), (0, []), (100, list(range(11, -1, -1)))]
)
def test_history_limit_keeps_only_the_newest_versions(limit, expected):
    history = run_json("history", WITH_CHECKPOINT, "--limit", limit)

    assert [entry["version"] for entry in history] == expected


def test_history_text_shows_one_row_per_version_newest_first():
    result = run_cli("history", PARTITIONED)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["version", "timestamp", "operation"]
    rows = [line.split() for line in lines[1:] if not line.lstrip().startswith("!")]
    assert [(row[0], row[3], row[4]) for row in rows] == [
        ("2", "UTC", "WRITE"),
        ("1", "UTC", "WRITE"),
        ("0", "UTC", "WRITE"),
    ]
    assert rows[0][5:10] == ["2", "5", "0", "980", "2,450"]  # +files -files dv-updated bytes
    assert any(line.lstrip().startswith("! ") for line in lines), (
        "problems are shown under their version"
    )


def test_history_text_limit():
    result = run_cli("history", WITH_CHECKPOINT, "--limit", 2)

    rows = [
        line.split()[0]
        for line in result.stdout.splitlines()[1:]
        if not line.lstrip().startswith("!")
    ]
    assert rows == ["11", "10"]


def test_history_accepts_a_file_uri():
    history = run_json("history", PARTITIONED.as_uri())

    assert [entry["version"] for entry in history] == [2, 1, 0]


# --- files -----------------------------------------------------------------------------


def test_files_json_lists_the_commits_adds_and_removes():
    result = run_json("files", PARTITIONED, "--version", 2)

    assert result["version"] == 2
    assert len(result["added"]) == 2 and len(result["removed"]) == 5
    for item in result["added"] + result["removed"]:
        assert FILE_KEYS <= set(item)
        assert item["size"] == 490
        assert item["dataChange"] is True
    actions = commit_actions(PARTITIONED, 2)
    assert [i["path"] for i in result["added"]] == [a["add"]["path"] for a in actions if "add" in a]
    assert [i["path"] for i in result["removed"]] == [
        a["remove"]["path"] for a in actions if "remove" in a
    ]
    emoji = next(i for i in result["added"] if i["partitionValues"]["data"] == "😈")
    assert emoji["partitionValues"] == {"letter": "b", "date": "1970-01-01", "data": "😈"}


def test_files_json_keeps_null_partition_values_as_null():
    result = run_json("files", PARTITIONED, "--version", 1)

    assert result["removed"] == []
    nulls = [i for i in result["added"] if i["partitionValues"]["letter"] is None]
    assert nulls and nulls[0]["partitionValues"] == {"letter": None, "date": None, "data": None}


def test_files_latest_means_the_newest_version():
    assert run_json("files", WITH_CHECKPOINT, "--version", "latest")["version"] == 11


def test_files_text_marks_adds_with_plus_and_removes_with_minus():
    result = run_cli("files", PARTITIONED, "--version", 2)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("version 2: WRITE, 2 added, 5 removed")
    assert [line[0] for line in lines[1:]] == ["+"] * 2 + ["-"] * 5
    assert "490 bytes" in lines[1]


# --- errors ----------------------------------------------------------------------------


def _not_a_table(tmp_path: Path) -> Path:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    return tmp_path


def _empty_log(tmp_path: Path) -> Path:
    (tmp_path / "_delta_log").mkdir()
    return tmp_path


BAD_INPUT = [
    (
        "a plain folder",
        lambda tmp: ["history", _not_a_table(tmp)],
        "NotADeltaTable",
        "not a Delta table",
    ),
    (
        "a missing folder",
        lambda tmp: ["history", tmp / "nowhere"],
        "NotADeltaTable",
        "does not exist",
    ),
    (
        "an empty _delta_log",
        lambda tmp: ["files", _empty_log(tmp), "--version", 0],
        "NotADeltaTable",
        "no commit or checkpoint",
    ),
    (
        "an unsupported scheme",
        lambda tmp: ["history", "hdfs://namenode/table"],
        "NotADeltaTable",
        "hdfs://",
    ),
    (
        "an unknown version",
        lambda tmp: ["files", PARTITIONED, "--version", 99],
        "VersionNotFound",
        "Version 99 is not in this table's log",
    ),
    (
        "an expired version",
        lambda tmp: ["files", EXPIRED_START, "--version", 0],
        "VersionNotFound",
        "expired",
    ),
    (
        "a version that is not a number",
        lambda tmp: ["files", PARTITIONED, "--version", "two"],
        "InvalidInput",
        "not a version number",
    ),
    (
        "a negative version",
        lambda tmp: ["files", PARTITIONED, "--version=-5"],
        "InvalidInput",
        "negative",
    ),
]


@pytest.mark.parametrize("case, args, kind, words", BAD_INPUT, ids=[c[0] for c in BAD_INPUT])
def test_bad_input_exits_2_with_one_line_on_stderr(tmp_path, case, args, kind, words):
    result = run_cli(*args(tmp_path))

    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert words in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("case, args, kind, words", BAD_INPUT, ids=[c[0] for c in BAD_INPUT])
def test_bad_input_with_json_also_prints_the_error_object(tmp_path, case, args, kind, words):
    result = run_cli(*args(tmp_path), "--json")

    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["type"] == kind
    assert words in error["message"]
    assert result.stderr.strip() == f"error: {error['message']}"
    assert "Traceback" not in result.stdout + result.stderr


# --- demo ------------------------------------------------------------------------------


def test_demo_writes_a_table_that_history_then_reads(tmp_path):
    target = tmp_path / "orders"

    written = run_json("demo", target)
    history = run_json("history", target)

    assert written == {"path": str(target)}
    assert len(history) >= 12
    assert {"WRITE", "DELETE", "UPDATE", "MERGE", "OPTIMIZE"} <= {e["operation"] for e in history}
    assert all(entry["problems"] == [] for entry in history)


def test_demo_text_says_where_the_table_is_and_keeps_an_existing_one(tmp_path):
    target = tmp_path / "orders"
    first = run_cli("demo", target)
    log_before = sorted(p.name for p in (target / "_delta_log").iterdir())

    again = run_cli("demo", target)

    assert first.returncode == again.returncode == 0
    assert first.stdout.strip() == f"Demo table written to {target}"
    assert sorted(p.name for p in (target / "_delta_log").iterdir()) == log_before


def test_demo_without_a_path_writes_to_the_demo_path_setting(tmp_path):
    target = tmp_path / "from-setting"

    result = run_cli("demo", "--json", env={"DELTA_INSPECTOR_DEMO_PATH": str(target)})

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"path": str(target)}
    assert (target / "_delta_log").is_dir()


def test_demo_refuses_a_folder_that_is_not_a_delta_table(tmp_path):
    (tmp_path / "report.txt").write_text("keep me")

    result = run_cli("demo", tmp_path, "--force", "--json")

    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["type"] == "InvalidInput"
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_usage_errors_follow_the_error_contract():
    """A mistyped option is bad input: exit 2, one line on stderr, a JSON error with --json."""
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "history", "x", "--limit", "abc", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--limit" in result.stderr
    assert json.loads(result.stdout)["error"]["type"] == "InvalidInput"
