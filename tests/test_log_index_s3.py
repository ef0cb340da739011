"""On S3 (moto's server on loopback), the log index spares every commit GET a second read
would make, and after k new commits the read GETs those k: with the answers unchanged.

A later open lists the first page of the log and from just before the newest recorded commit,
never the whole folder (requests counted at a proxy in front of the server); a recreated table,
a cleaned-up log, a rewritten recent commit or a damaged record make it list whole again."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from inspector.delta.paths import LOG_DIR
from inspector.log import relist
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import HistoryEntry
from tests.conftest import one_row_appends
from tests.object_stores import upload_new_files


def _history(uri: str, options: dict[str, str], index: LogIndex | None):
    log = DeltaLog.open(uri, storage_options=options, index=index)
    gets: list[str] = []
    read_many = log.storage.read_many

    def counted(paths):  # instrumentation: every read still goes to the server
        gets.extend(p for p in paths if p.endswith(".json"))
        return read_many(paths)

    log.storage.read_many = counted  # type: ignore[method-assign]
    entries: list[HistoryEntry] = build_history(log, Settings())
    return entries, len(gets)


def test_a_second_history_on_s3_gets_no_commit_and_k_new_commits_cost_k_gets(s3_server, tmp_path):
    local = tmp_path / "t"
    one_row_appends(local, 40, seed=1)
    uri = s3_server.upload(local)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    options = s3_server.options

    cold, cold_gets = _history(uri, options, index)
    warm, warm_gets = _history(uri, options, index)
    assert warm == cold == _history(uri, options, None)[0]
    assert (cold_gets, warm_gets) == (40, 0)

    one_row_appends(local, 3, seed=2)
    for path in sorted(local.rglob("*")):
        rel = path.relative_to(local).as_posix()
        if path.is_file() and (not rel.startswith(LOG_DIR) or rel >= f"{LOG_DIR}/{40:020d}"):
            s3_server.put(f"{uri}/{rel}", path.read_bytes())
    after, after_gets = _history(uri, options, index)
    assert after == _history(uri, options, None)[0]
    assert len(after) == 43 and after_gets == 3
    (held,) = index.tables()
    assert held.location == uri and held.commits == 43


# --- A later open lists only what is new (the first page and from the newest recorded commit)


def _checkpointed(table: Path, commits: int) -> None:
    """A table of ``commits`` appends with a checkpoint at version ``commits - 5``."""
    from deltalake import DeltaTable

    one_row_appends(table, commits - 4, seed=3)
    DeltaTable(str(table)).create_checkpoint()
    one_row_appends(table, 4, seed=4)


def _counted_history(proxy, uri: str, options: dict[str, str], index: LogIndex | None):
    """The history, and the requests it made at the server: (kind, key) pairs; a listing's
    key is where it starts after, else ``first page`` or ``whole`` (a full listing)."""
    proxy.clear()
    log = DeltaLog.open(uri, storage_options=options, index=index)
    entries = build_history(log, Settings())
    made = []
    for r in proxy.requests:
        path, _, query = r.path.partition("?")
        if r.method == "GET" and "list-type=2" in query:
            params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
            after = unquote(params.get("start-after", ""))
            whole = "whole" if "delimiter" in params else "first page"
            made.append(("LIST", after.split("/", 1)[-1] if after else whole))
        else:
            made.append((r.method, unquote(path.rsplit("/_delta_log/", 1)[-1])))
    return entries, made


@pytest.fixture
def small_pages(monkeypatch):
    """Pages of 10 entries and a margin of 4: a 30-commit log spans several pages; the refresh
    lists from the newest checkpoint (no reach back to older ones)."""
    monkeypatch.setattr(relist, "PAGE", 10)
    monkeypatch.setattr(relist, "OVERLAP", 4)
    monkeypatch.setattr(relist, "REACH", 0)


def _uploaded(s3_server, tmp_path):
    """A 30-commit table with a checkpoint, uploaded, and an empty log index."""
    local = tmp_path / "t"
    _checkpointed(local, 30)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    return local, s3_server.upload(local), index


def _lists(made) -> list[str]:
    """Each listing's start-after key (or ``first page``, ``whole``), in order."""
    return [key for kind, key in made if kind == "LIST"]


def _gets_of_log_files(made) -> list[str]:
    return [key for kind, key in made if kind == "GET" and key[:1].isdigit()]


def test_a_later_history_lists_the_first_page_and_what_is_new_and_gets_only_new_commits(
    s3_server, counted_s3, small_pages, tmp_path
):
    proxy, options = counted_s3
    local, uri, index = _uploaded(s3_server, tmp_path)

    cold, cold_made = _counted_history(proxy, uri, options, index)
    warm, warm_made = _counted_history(proxy, uri, options, index)
    assert warm == cold == _counted_history(proxy, uri, options, None)[0]
    # The refresh's listing from the checkpoint (just before the newest recorded commits:
    # the new part) and the first page: never the whole folder page by page; no commit read.
    assert _lists(warm_made) == [f"{LOG_DIR}/{25:020d}", "first page"]
    assert [k for k in _gets_of_log_files(warm_made) if k.endswith(".json")] == []
    # A first read gets each of the 30 commits once, and no checkpoint: with every commit
    # present the history does not compare the newest checkpoint with them (``check`` does).
    assert sorted(_gets_of_log_files(cold_made)) == [f"{v:020d}.json" for v in range(30)]

    one_row_appends(local, 3, seed=5)
    upload_new_files(s3_server, local, uri)
    after, after_made = _counted_history(proxy, uri, options, index)
    assert after == _counted_history(proxy, uri, options, None)[0] and len(after) == 33
    assert _lists(after_made) == [f"{LOG_DIR}/{25:020d}", "first page"]
    assert sorted(k for k in _gets_of_log_files(after_made) if k.endswith(".json")) == [
        f"{v:020d}.json" for v in (30, 31, 32)
    ]


@pytest.mark.parametrize("change", ["recreated", "cleaned up", "recent commit rewritten"])
def test_a_log_changed_below_the_record_is_listed_whole_again_and_answers_stay_true(
    s3_server, counted_s3, small_pages, tmp_path, change
):
    proxy, options = counted_s3
    _, uri, index = _uploaded(s3_server, tmp_path)
    _counted_history(proxy, uri, options, index)

    if change == "recreated":  # dropped and written again at the same path: new files, new id
        for key in s3_server.keys(uri):
            s3_server.delete(f"{uri}/{key}")
        fresh = tmp_path / "again"
        _checkpointed(fresh, 26)
        upload_new_files(s3_server, fresh, uri)
    elif change == "cleaned up":  # the oldest commits expired
        for v in range(5):
            s3_server.delete(f"{uri}/{LOG_DIR}/{v:020d}.json")
    else:  # the newest commit's object written again (same bytes: a new ETag-less identity)
        key = f"{uri}/{LOG_DIR}/{29:020d}.json"
        s3_server.put(key, s3_server.read(key) + b"\n")
    later, made = _counted_history(proxy, uri, options, index)
    assert later == _counted_history(proxy, uri, options, None)[0]
    checkpoint = f"{LOG_DIR}/{(21 if change == 'recreated' else 25):020d}"
    # The first page or the new part disagreed with the record: a full listing followed.
    assert _lists(made) == [checkpoint, "first page", "whole"]
    again, made = _counted_history(proxy, uri, options, index)
    assert again == later and _lists(made) == [checkpoint, "first page"]  # recorded afresh


def test_a_damaged_listing_record_is_ignored_and_written_again(
    s3_server, counted_s3, small_pages, tmp_path
):
    proxy, options = counted_s3
    _, uri, index = _uploaded(s3_server, tmp_path)
    first, _ = _counted_history(proxy, uri, options, index)
    (record,) = Path(index.for_table(uri).folder).glob("listing-*.json")
    record.write_bytes(record.read_bytes()[:-20])
    later, made = _counted_history(proxy, uri, options, index)
    assert later == first and _lists(made) == [f"{LOG_DIR}/{25:020d}", "whole"]
    again, made = _counted_history(proxy, uri, options, index)  # recorded whole again
    assert again == first and _lists(made) == [f"{LOG_DIR}/{25:020d}", "first page"]
    assert list(record.parent.glob("listing-*.json")) == [record]


def test_a_margin_reaching_below_the_checkpoint_is_listed_by_the_refresh_alone(
    s3_server, counted_s3, small_pages, monkeypatch, tmp_path
):
    monkeypatch.setattr(relist, "OVERLAP", 8)  # 8 recorded names back: before checkpoint 25
    proxy, options = counted_s3
    _, uri, index = _uploaded(s3_server, tmp_path)
    cold, _ = _counted_history(proxy, uri, options, index)
    warm, made = _counted_history(proxy, uri, options, index)
    assert warm == cold and _lists(made) == [f"{LOG_DIR}/{22:020d}.json", "first page"]
    assert [k for k in _gets_of_log_files(made) if k.endswith(".json")] == []


def test_the_commit_times_of_a_later_open_are_the_whole_listings(s3_server, small_pages, tmp_path):
    from inspector.log.filetimes import commit_times
    from inspector.log.listing import list_log

    _, uri, index = _uploaded(s3_server, tmp_path)
    options = s3_server.options
    for _ in ("cold", "warm"):
        log = DeltaLog.open(uri, storage_options=options, index=index)
        listed = list_log(log.storage).commits
        assert commit_times(log, 27) == {
            v: f.modification_time for v, f in listed.items() if v < 27
        }
        assert log.whole_listing is None  # no listing of a LogFile per file was made


def test_the_refresh_reaches_back_to_older_checkpoints_so_a_newest_page_lists_nothing_more(
    s3_server, counted_s3, monkeypatch, tmp_path
):
    from deltalake import DeltaTable

    from inspector.table.history import history_page

    proxy, options = counted_s3
    local = tmp_path / "t"
    for n in range(6):  # checkpoints at versions 4, 9, 14, 19 and 24; commits up to 29
        one_row_appends(local, 5, seed=10 + n)
        if n < 5:
            DeltaTable(str(local)).create_checkpoint()
    uri = s3_server.upload(local)
    expected = history_page(DeltaLog.open(uri, storage_options=options), Settings(), limit=12)

    monkeypatch.setattr(relist, "REACH", 12)  # from version 12: checkpoints 14, 19, 24 listed
    proxy.clear()
    log = DeltaLog.open(uri, storage_options=options)
    assert log.tail.from_version == 14 and sorted(log.tail.checkpoints) == [14, 19, 24]
    assert history_page(log, Settings(), limit=12) == expected
    after = [
        unquote(r.path).rpartition("start-after=")[2]
        for r in proxy.requests
        if "start-after=" in r.path
    ]
    # One start-after listing, the refresh's from version 12 on: the page of 12 versions
    # lists no part of the log of its own (its times chain from version 0: the whole one).
    assert after == [f"{uri.split('/', 3)[3]}/{LOG_DIR}/{12:020d}"]


def test_staged_commits_on_s3_come_with_each_refreshs_listing_not_a_listing_of_their_own(
    s3_server, counted_s3, tmp_path
):
    proxy, options = counted_s3
    local = tmp_path / "t"
    _checkpointed(local, 30)
    staged = local / LOG_DIR / "_staged_commits"
    staged.mkdir()
    proposed = (local / LOG_DIR / f"{29:020d}.json").read_bytes()
    for version in (30, 31):
        name = f"{version:020d}.3a0d65cd-4056-49b8-937b-95f9e3ee90e{version - 30}.json"
        (staged / name).write_bytes(proposed)
    uri = s3_server.upload(local)

    proxy.clear()
    log = DeltaLog.open(uri, storage_options=options)
    assert len(log.staged_files) == len(DeltaLog.open(str(local)).staged_files) == 2
    lists = [unquote(r.path) for r in proxy.requests if "list-type=2" in r.path]
    assert len(lists) == 1 and "start-after" in lists[0] and "_staged_commits" not in lists[0]

    # A staged commit published by the catalog's writer elsewhere goes from the folder: the
    # next refresh says so though no new version was published meanwhile.
    s3_server.delete(
        f"{uri}/{LOG_DIR}/_staged_commits/{sorted(p.name for p in staged.iterdir())[0]}"
    )
    assert not log.refresh() and len(log.staged_files) == 1
