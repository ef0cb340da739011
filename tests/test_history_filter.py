"""Specification: ``history --operation/--user/--engine/--since/--until``, a filtered history.

A filtered history is the whole history's JSON records, fewer of them: the filters keep a
version whose operation is one named, whose userName or engineInfo contains a value given,
and whose history timestamp lies in the range (times as ``show --timestamp`` reads them).
Filters skip the commits they can: on file times the range is found from the log's
listing alone. Tables: Databricks's and open-source Delta's in the corpus (the first
records userName, the second does not), a streaming job's log of 1,000 commits a minute
apart (``bench/tablegen.py``), and one with in-commit timestamps from its first version.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.tablegen import make_commits_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import history_record
from inspector.table.history_filter import NO_USER_NAMES, HistoryFilter, filtered_history
from inspector.table.history_time import iso
from tests.conftest import CORPUS, corpus_histories, one_error_line, run_cli
from tests.counting_storage import counted_log

DATABRICKS = CORPUS / "delta-rs" / "cdf-table-with-cdc-and-dvs"  # userName on every commit
OPEN_SOURCE = CORPUS / "delta-kernel-java" / "basic-dv-with-checkpoint"  # Spark 3.4, Delta 2.4
COMMITS = 1_000


def _history(*args: object) -> list[dict]:
    result = run_cli("history", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("filters") / "c1000"
    make_commits_table(str(root), COMMITS)  # commit files a minute apart
    return root


def test_operation_and_user_keep_the_whole_historys_entries_that_match() -> None:
    whole = _history(DATABRICKS)

    kept = _history(DATABRICKS, "--operation", "merge", "--user", "PATRICK.JIN")

    assert kept == [e for e in whole if e["operation"] == "MERGE"]
    assert [e["version"] for e in kept] == [22, 18]


def test_repeated_operations_keep_any_of_them() -> None:
    kept = _history(DATABRICKS, "--operation", "UPDATE", "--operation", "DELETE")

    assert {e["operation"] for e in kept} == {"UPDATE", "DELETE"}
    assert len(kept) == sum(e["operation"] in ("UPDATE", "DELETE") for e in _history(DATABRICKS))


def test_engine_matches_part_of_engine_info_case_aside() -> None:
    assert len(_history(OPEN_SOURCE, "--engine", "delta-lake/2.4")) == 47
    assert _history(OPEN_SOURCE, "--engine", "delta-rs") == []


def test_a_user_filter_on_open_source_delta_says_no_version_records_a_user() -> None:
    as_json = run_cli("history", OPEN_SOURCE, "--user", "bob", "--json")
    as_text = run_cli("history", OPEN_SOURCE, "--user", "bob")

    assert (as_json.returncode, json.loads(as_json.stdout)) == (
        0,
        [],
    )  # the same contract, no entries
    assert as_json.stderr.splitlines()[-1] == NO_USER_NAMES
    assert as_text.returncode == 0 and len(as_text.stdout.splitlines()) == 1  # the header alone
    assert as_text.stderr.splitlines()[-1] == NO_USER_NAMES


def test_a_user_filter_that_finds_nothing_among_named_users_says_nothing_more() -> None:
    result = run_cli("history", DATABRICKS, "--user", "bob", "--json")

    assert json.loads(result.stdout) == [] and NO_USER_NAMES not in result.stderr


def test_limit_reads_the_newest_versions_and_the_filters_choose_among_them() -> None:
    kept = _history(DATABRICKS, "--limit", "5", "--operation", "OPTIMIZE")

    assert [e["version"] for e in kept] == [23, 21]


def test_a_time_range_on_file_times_reads_only_the_commits_it_needs(stream: Path) -> None:
    whole = build_history(DeltaLog.open(str(stream)), Settings())
    since, until = whole[300].timestamp, whole[320].timestamp
    log, storage = counted_log(stream)

    kept = list(filtered_history(log, Settings(), HistoryFilter(since=since, until=until)))

    assert [history_record(e) for e in kept] == [history_record(e) for e in whole[320:299:-1]]
    read = {int(name[:20]) for name in storage.reads if name.endswith(".json")}
    # Besides the range: the properties at the newest version, and the newest checkpoint's
    # check against its commits (as the whole history judges its versions).
    assert read - set(range(300, 321)) <= set(range(COMMITS - 200, COMMITS))


@pytest.mark.parametrize("which", ["since", "until"])
def test_one_end_of_the_range_keeps_every_version_beyond_it(stream: Path, which: str) -> None:
    whole = build_history(DeltaLog.open(str(stream)), Settings())
    keep = HistoryFilter(**{which: whole[500].timestamp})

    kept = [e.version for e in filtered_history(DeltaLog.open(str(stream)), Settings(), keep)]

    assert kept == (list(range(999, 499, -1)) if which == "since" else list(range(500, -1, -1)))


def test_times_are_read_as_show_timestamp_reads_them(stream: Path) -> None:
    whole = build_history(DeltaLog.open(str(stream)), Settings())
    moment = whole[700].timestamp.astimezone(UTC)
    typed = moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"  # as every page shows it

    kept = _history(stream, "--since", typed, "--until", iso(whole[702].timestamps.history))

    assert [e["version"] for e in kept] == [702, 701, 700]


def test_with_in_commit_timestamps_reading_stops_at_the_first_version_before_since(
    tmp_path: Path,
) -> None:
    table = tmp_path / "ict"
    make_commits_table(str(table), 2_500, in_commit_timestamps=True)
    whole = build_history(DeltaLog.open(str(table)), Settings())
    assert {str(e.timestamps.source) for e in whole} == {"inCommitTimestamp"}
    log, storage = counted_log(table)

    keep = HistoryFilter(since=whole[2_400].timestamp, operations=("STREAMING UPDATE",))
    kept = list(filtered_history(log, Settings(), keep))

    assert [history_record(e) for e in kept] == [
        history_record(e) for e in whole[:2_399:-1] if e.operation == "STREAMING UPDATE"
    ]
    read = {int(name[:20]) for name in storage.reads if name.endswith(".json")}
    assert min(read) == 401  # the newest page (down to just after a checkpoint), not the older


def test_every_corpus_table_filtered_by_time_keeps_what_its_whole_history_does() -> None:
    compared = 0
    for root, whole in corpus_histories():
        if len(whole) < 3:
            continue
        ends = sorted((whole[len(whole) // 3].timestamp, whole[-2].timestamp))
        keep = HistoryFilter(since=ends[0], until=ends[1])
        expected = [history_record(e) for e in reversed(whole) if keep.keeps(e)]
        kept = filtered_history(DeltaLog.open(root), Settings(), keep)
        assert [history_record(e) for e in kept] == expected, root
        compared += 1
    assert compared > 100


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--since", "last tuesday"], "'last tuesday' is not a timestamp"),
        (["--until", "2024-13-01"], "'2024-13-01' is not a timestamp"),
        (["--since", "2024-10-09", "--until", "2024-10-08"], "--since is after --until"),
    ],
)
def test_a_bad_time_is_one_line_and_exit_code_2(args: list[str], says: str) -> None:
    result = run_cli("history", OPEN_SOURCE, *args)

    assert result.returncode == 2 and result.stdout == ""
    assert says in one_error_line(result.stderr)


def test_a_filtered_copy_keeps_the_same_entries_as_the_original(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(OPEN_SOURCE, copy)  # the copy's file times are now: the range is still exact
    moment = datetime.now(tz=UTC).replace(year=2000)

    assert len(_history(copy, "--since", moment.isoformat())) == 47
    assert _history(copy, "--until", moment.isoformat()) == []
