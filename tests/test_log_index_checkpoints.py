"""On S3 (moto's server on loopback), the log index keeps the checkpoints a question read, so
that a later ``detail``, ``files --version N`` or full history GETs no checkpoint: keyed by
the checkpoint file's name, size, modification time and ETag (classic, multi-part, and V2
with its sidecars), never served for a rewritten checkpoint, rebuilt when damaged, and left
alone by ``--no-cache``. Requests are counted at a proxy in front of the server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.log.index import checkpoints as kept
from tests.conftest import CORPUS, REPO, add_files, one_row_appends
from tests.object_stores import upload_new_files


def _cli(proxy, capsys, argv: list[str], options: dict[str, str], cache: Path | None):
    """One CLI command's JSON answer and the log files it GET: (checkpoint GETs, commit GETs)."""
    flags = [a for k, v in options.items() for a in ("--storage-option", f"{k}={v}")]
    cache_flags = ["--no-cache"] if cache is None else []
    proxy.clear()
    code = main([*argv, "--json", *flags, *cache_flags])
    out = capsys.readouterr().out
    gets = [
        unquote(r.path.partition("?")[0].rsplit("/_delta_log/", 1)[-1])
        for r in proxy.requests
        if r.method == "GET" and "list-type=2" not in r.path and "/_delta_log/" in r.path
    ]
    checkpoints = sorted(g for g in gets if ".checkpoint." in g or g.startswith("_sidecars/"))
    commits = sorted(
        g for g in gets if g.endswith(".json") and g[:1].isdigit() and g not in checkpoints
    )
    return (code, out), checkpoints, commits


@pytest.fixture
def cache(monkeypatch, tmp_path):
    folder = tmp_path / "cache"
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(folder))
    return folder


def _checkpointed(table: Path) -> None:
    """30 appends with checkpoints at versions 9 and 25 (the newest below the latest, 29)."""
    one_row_appends(table, 10, seed=1)
    DeltaTable(str(table)).create_checkpoint()
    one_row_appends(table, 16, seed=2)
    DeltaTable(str(table)).create_checkpoint()
    one_row_appends(table, 4, seed=3)


@pytest.fixture
def checkpointed_s3(s3_server, tmp_path) -> tuple[Path, str]:
    """A :func:`_checkpointed` table written locally, and its upload's URI in S3."""
    local = tmp_path / "t"
    _checkpointed(local)
    return local, s3_server.upload(local)


QUESTIONS = {
    "detail": ["detail"],
    "files": ["files", "--version", "27"],
    "history": ["history"],
    "files below the newest checkpoint": ["files", "--version", "20"],
}


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_later_read_gets_no_checkpoint_and_after_k_new_commits_gets_just_those_k(
    s3_server, counted_s3, checkpointed_s3, cache, capsys, question
):
    proxy, options = counted_s3
    local, uri = checkpointed_s3
    argv = [QUESTIONS[question][0], uri, *QUESTIONS[question][1:]]

    off, off_cps, _ = _cli(proxy, capsys, argv, options, None)
    cold, cold_cps, _ = _cli(proxy, capsys, argv, options, cache)
    warm, warm_cps, warm_commits = _cli(proxy, capsys, argv, options, cache)
    assert cold == warm == off
    # The first read, and every read without the index, GET them; a whole history reads
    # every commit instead when all are present (the checkpoint is `check`'s question).
    reads_checkpoints = question != "history"
    assert bool(cold_cps and off_cps) == reads_checkpoints
    assert (warm_cps, warm_commits) == ([], [])

    one_row_appends(local, 3, seed=4)
    upload_new_files(s3_server, local, uri)
    after, after_cps, after_commits = _cli(proxy, capsys, argv, options, cache)
    assert after == _cli(proxy, capsys, argv, options, None)[0]
    assert after_cps == []
    if question == "history":  # the files questions read only the commits their version needs
        assert after_commits == [f"{v:020d}.json" for v in (30, 31, 32)]
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    copies = list(cache.glob("*/checkpoint-*"))
    assert bool(copies) == reads_checkpoints
    assert all(stat.S_IMODE(c.stat().st_mode) == 0o600 for c in copies)


def test_without_the_index_no_checkpoint_is_kept(counted_s3, checkpointed_s3, cache, capsys):
    proxy, options = counted_s3
    _, uri = checkpointed_s3
    for _ in range(2):
        _, cps, _ = _cli(proxy, capsys, ["detail", uri], options, None)
        assert cps == [f"{25:020d}.checkpoint.parquet"]
    assert not list(cache.glob("*/checkpoint-*"))


def test_a_rewritten_checkpoint_is_read_again_never_served_from_its_old_copy(
    s3_server, counted_s3, checkpointed_s3, cache, capsys
):
    proxy, options = counted_s3
    _, uri = checkpointed_s3
    first, _, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    key = f"{uri}/_delta_log/{25:020d}.checkpoint.parquet"
    # Written again by another writer: the same actions in other bytes (a new size and ETag).
    rewritten = pa.BufferOutputStream()
    pq.write_table(pq.read_table(pa.BufferReader(s3_server.read(key))), rewritten)
    s3_server.put(key, rewritten.getvalue().to_pybytes())
    again, cps, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    assert again == first and cps == [f"{25:020d}.checkpoint.parquet"]
    later, cps, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    assert later == first and cps == []


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_copy_is_ignored_removed_and_kept_again(
    counted_s3, checkpointed_s3, cache, capsys, damage
):
    proxy, options = counted_s3
    _, uri = checkpointed_s3
    first, _, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    (copy,) = cache.glob("*/checkpoint-*.parquet")
    raw = copy.read_bytes()
    copy.write_bytes(raw[:-100] if damage == "truncated" else raw[:50] + b"X" + raw[51:])
    again, cps, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    assert again == first and cps == [f"{25:020d}.checkpoint.parquet"]
    (rebuilt,) = cache.glob("*/checkpoint-*.parquet")
    assert rebuilt.read_bytes() == raw
    later, cps, _ = _cli(proxy, capsys, ["detail", uri], options, cache)
    assert later == first and cps == []


def _counted_snapshot(proxy, uri: str, options: dict[str, str], index: LogIndex | None):
    """The latest version's files (from its checkpoint) and the checkpoint files it GET."""
    proxy.clear()
    snapshot = DeltaLog.open(uri, storage_options=options, index=index).snapshot()
    paths = sorted(a.path for a in add_files(snapshot))
    gets = [unquote(r.path.partition("?")[0]) for r in proxy.requests if r.method == "GET"]
    return paths, sorted(g.rsplit("/_delta_log/", 1)[-1] for g in gets if ".checkpoint." in g)


@pytest.mark.parametrize(
    "corpus_table",
    [
        "delta-golden/multi-part-checkpoint",
        "delta-golden/v2-checkpoint-parquet",
        "delta-golden/v2-checkpoint-json",
    ],
)
def test_multi_part_and_v2_checkpoints_with_sidecars_are_kept_whole(
    s3_server, counted_s3, tmp_path, corpus_table
):
    proxy, options = counted_s3
    uri = s3_server.upload(CORPUS / corpus_table)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    off, off_cps = _counted_snapshot(proxy, uri, options, None)
    cold, cold_cps = _counted_snapshot(proxy, uri, options, index)
    warm, warm_cps = _counted_snapshot(proxy, uri, options, index)
    assert cold == warm == off and off
    assert cold_cps == off_cps and len(off_cps) >= 2  # the parts, or the file and its sidecars
    if "v2" in corpus_table:
        assert any(g.startswith("_sidecars/") for g in off_cps)
    assert warm_cps == []
    assert len(list(Path(index.for_table(uri).folder).glob("checkpoint-*"))) == len(off_cps)


_READER = """
import json, sys
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
index = LogIndex(sys.argv[2], max_bytes=64 * 1024 * 1024)
log = DeltaLog.open(sys.argv[1], storage_options=json.loads(sys.argv[3]), index=index)
sys.stdin.readline()  # then read the checkpoint, as the other process does
print(json.dumps(sorted(log.snapshot().files_table.column("path").to_pylist())))
"""


def test_two_processes_filling_the_copies_at_once_leave_them_whole(s3_server, tmp_path):
    local = tmp_path / "t"
    _checkpointed(local)
    uri = s3_server.upload(local)
    cache = tmp_path / "cache"
    expected = DeltaLog.open(uri, storage_options=s3_server.options).snapshot()
    argv = [sys.executable, "-c", _READER, uri, str(cache), json.dumps(s3_server.options)]
    readers = [
        subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
        for _ in range(2)
    ]
    for reader in readers:  # both started together, both told to read at once
        assert reader.stdin is not None
        reader.stdin.write("go\n")
        reader.stdin.flush()
    answers = [reader.communicate(timeout=300)[0] for reader in readers]
    assert [json.loads(a) for a in answers] == [sorted(a.path for a in add_files(expected))] * 2
    folder = Path(LogIndex(str(cache), max_bytes=1).for_table(uri).folder)
    (copy,) = folder.glob("checkpoint-*.parquet")
    assert not list(folder.glob(".tmp-*"))
    assert copy.read_bytes() == s3_server.read(f"{uri}/_delta_log/{25:020d}.checkpoint.parquet")


def test_only_the_newest_used_copies_are_kept_per_table(s3_server, tmp_path, monkeypatch):
    monkeypatch.setattr(kept, "KEPT", 2)
    local = tmp_path / "t"
    one_row_appends(local, 2, seed=5)
    for n in range(4):  # checkpoints at versions 1, 3, 5, 7
        DeltaTable(str(local)).create_checkpoint()
        one_row_appends(local, 2, seed=6 + n)
    uri = s3_server.upload(local)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    log = DeltaLog.open(uri, storage_options=s3_server.options, index=index)
    for version in (1, 3, 5, 7):
        log.snapshot(version)
    folder = Path(index.for_table(uri).folder)
    assert len(list(folder.glob("checkpoint-*"))) == 2
