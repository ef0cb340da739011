"""Specification: a question about the latest version reads the newest checkpoint and the
commits after it, and nothing older; ``history --limit N`` reads N commits.

Every read goes through :class:`tests.counting_storage.CountingStorage` (the real local
storage, counting its listings and reads as an object store would be asked), on a
streaming job's table of 20,000 commits with a checkpoint every 100 versions: the newest
checkpoint is version 19,900, and 99 commits follow it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bench.tablegen import make_commits_table
from inspector.diff.filediff import diff_files
from inspector.health import check_table
from inspector.log.deltalog import DeltaLog
from inspector.restore.plan import plan_restore
from inspector.settings import Settings
from inspector.storage import parse_location
from inspector.table import Table
from inspector.table.history import build_history, history_page
from inspector.table.overview import table_detail
from inspector.table.rowcounts import rows_between
from inspector.table.timetravel import resolve_version
from inspector.table.versions import parse_version
from tests.conftest import CORPUS
from tests.counting_storage import counted_log

COMMITS = 20_000
NEWEST_CHECKPOINT = 19_900
AFTER_IT = COMMITS - 1 - NEWEST_CHECKPOINT  # 99 commits
BUDGET = 1 + AFTER_IT + 3  # the checkpoint's one part, the commits after it, and 3 more


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("budget") / "commits20k"
    make_commits_table(str(root), COMMITS)
    return root


def _detail(log: DeltaLog, settings: Settings) -> None:
    table_detail(log, settings)


def _files(log: DeltaLog, settings: Settings) -> None:
    log.commit(parse_version(str(log.latest_version), log))


def _diff(log: DeltaLog, settings: Settings) -> None:
    latest = log.latest_version
    diff_files(log, latest - 1, latest)
    rows_between(log, latest - 1, latest)


def _show_plan(log: DeltaLog, settings: Settings) -> None:
    """What ``show`` does before Spark reads rows: resolve the version, take its snapshot."""
    chosen = resolve_version(log, version=None, timestamp=None, settings=settings)
    log.snapshot(chosen.version)


def _check(log: DeltaLog, settings: Settings) -> None:
    report = check_table(log, settings=settings)
    assert report.is_consistent and not report.all_versions


def _restore_dry_run(log: DeltaLog, settings: Settings) -> None:
    table = Table(location=parse_location(log.table_root), log=log)  # as the CLI's handle
    plan_restore(table, log.latest_version - 1, settings=settings, refresh=False)


@pytest.mark.scale
@pytest.mark.parametrize(
    ("question", "extra"),
    [
        (_detail, 0),
        (_files, 0),
        (_diff, 0),
        (_show_plan, 0),
        # The guards name the earliest version and count staged commits: two listings more.
        (_restore_dry_run, 1),
        # The walk of the table folder, and the staged commits' listing.
        (_check, 2),
    ],
    ids=["detail", "files", "diff", "show", "restore-dry-run", "check"],
)
def test_a_question_about_the_latest_version_reads_only_the_newest_checkpoint_and_later_commits(
    table: Path, settings: Settings, question: Callable[[DeltaLog, Settings], None], extra: int
) -> None:
    log, storage = counted_log(table, count_open=True)

    question(log, settings)

    commits_read = {name for name in storage.reads if name.endswith(".json")}
    assert all(int(name[:20]) >= NEWEST_CHECKPOINT for name in commits_read), commits_read
    checkpoints = {name for name in storage.reads if ".checkpoint." in name}
    assert checkpoints <= {f"{NEWEST_CHECKPOINT:020d}.checkpoint.parquet"}
    assert storage.calls <= BUDGET + extra, (storage.lists, storage.reads.most_common(5))


@pytest.mark.scale
def test_opening_the_log_lists_from_the_checkpoint_last_checkpoint_names(table: Path) -> None:
    log, storage = counted_log(table, count_open=True)

    assert storage.lists == [f"_delta_log after _delta_log/{NEWEST_CHECKPOINT:020d}"]
    assert dict(storage.reads) == {"_last_checkpoint": 1}
    assert log.latest_version == COMMITS - 1


@pytest.mark.scale
@pytest.mark.parametrize("limit", [1, 10, 250])
def test_a_page_of_history_reads_only_its_own_commits(
    table: Path, settings: Settings, limit: int
) -> None:
    log, storage = counted_log(table, count_open=True)

    page = history_page(log, settings, limit=limit)

    assert [e.version for e in page] == list(range(COMMITS - limit, COMMITS))
    assert sum(1 for name in storage.reads if name.endswith(".json")) == limit
    assert not any(".checkpoint." in name for name in storage.reads)


@pytest.mark.scale
def test_a_page_of_history_equals_the_newest_entries_of_the_whole_history(
    table: Path, settings: Settings
) -> None:
    log, _ = counted_log(table)

    page = history_page(log, settings, limit=30)

    assert page == build_history(log, settings)[-30:]


@pytest.mark.scale
def test_an_old_commit_is_read_alone(table: Path) -> None:
    log, storage = counted_log(table, count_open=True)

    assert log.commit(1).version == 1

    assert [name for name in storage.reads if name.endswith(".json")] == [f"{1:020d}.json"]
    assert len(storage.lists) == 2  # from the checkpoint on, then the whole folder's names


def test_without_last_checkpoint_one_listing_finds_the_newest_checkpoint(copy_table, settings):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")  # checkpoint 10, commits 0..14
    (table / "_delta_log" / "_last_checkpoint").unlink()
    log, storage = counted_log(table, count_open=True)

    log.snapshot()

    assert storage.lists == ["_delta_log"]
    assert sorted(storage.reads) == [
        "00000000000000000010.checkpoint.parquet",
        *(f"{v:020d}.json" for v in range(11, 15)),
        "_last_checkpoint",  # asked for, not there
    ]


def test_damage_before_the_newest_checkpoint_is_left_to_history_and_check(copy_table, settings):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")
    (table / "_delta_log" / f"{3:020d}.json").unlink()
    log, _ = counted_log(table)

    assert log.snapshot().version == 14  # the checkpoint and the commits after it suffice
    problems = {e.version: e.problems for e in build_history(log, settings)}
    assert any("version 3 are missing" in p for p in problems[4])


def test_a_stale_last_checkpoint_falls_back_to_listing_the_whole_log(copy_table, settings):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")
    (table / "_delta_log" / "_last_checkpoint").write_text('{"version": 12, "size": 1}')
    log, storage = counted_log(table, count_open=True)

    assert log.snapshot().version == 14
    assert storage.lists == ["_delta_log after _delta_log/00000000000000000012", "_delta_log"]


def test_an_older_file_that_vanishes_is_noticed_when_the_whole_log_is_listed_again(
    copy_table, settings
):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")
    log, _ = counted_log(table)
    before = {e.version: e.problems for e in build_history(log, settings)}
    assert not any("missing" in p for p in before[4])
    generation = log.generation
    (table / "_delta_log" / f"{3:020d}.json").unlink()

    assert log.refresh() is False  # nothing changed from the checkpoint on
    problems = {e.version: e.problems for e in build_history(log, settings)}

    assert any("version 3 are missing" in p for p in problems[4])
    assert log.generation > generation  # caches keyed on it (the app's history) are redone


@pytest.mark.usefixtures("no_cloud_env")
def test_on_s3_the_latest_version_is_read_from_the_checkpoint_on(s3_server, settings):
    local = CORPUS / "delta-kernel-java/basic-with-checkpoint"  # checkpoint 10, commits 0..14
    uri = s3_server.upload(local)
    for version in range(10):  # nothing before the checkpoint may be needed
        s3_server.delete(f"{uri}/_delta_log/{version:020d}.json")

    log = DeltaLog.open(uri, storage_options=s3_server.options)

    assert log.tail.from_version == 10
    assert log.snapshot().files_table.num_rows == DeltaLog.open(str(local)).snapshot().num_files
    page = history_page(log, settings, limit=3)
    assert [e.version for e in page] == [12, 13, 14]
