"""The log index: commit files kept on disk never change an answer, and spare the store.

Real tables (written by deltalake here, or copied from the corpus), a real cache folder and
real processes; the counting storage only counts what the real local storage is asked.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from inspector.cli.main import main
from inspector.delta.paths import LOG_DIR
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex, tables
from inspector.log.index import segments as seg
from inspector.log.listing import LogFile
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import HistoryEntry
from tests.at_once import at_once
from tests.conftest import REPO
from tests.counting_storage import CountingStorage, counted_log
from tests.damaged import DAMAGES, damage_file


def _index(folder: Path, max_mb: int = 64) -> LogIndex:
    return LogIndex(str(folder), max_bytes=max_mb * 1024 * 1024)


def _appends(table: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        values = [rng.randrange(1000) for _ in range(3)]
        write_deltalake(str(table), pa.table({"x": values}), mode="append")


def _history(table: Path, index: LogIndex | None) -> tuple[list[HistoryEntry], CountingStorage]:
    log, storage = counted_log(table, index, count_open=True)
    return build_history(log, Settings()), storage


def _forget_histories(cache: Path) -> None:
    """Remove the kept whole histories, so that the next history reads its commits."""
    for kept in cache.glob("*/result-history.bin"):
        kept.unlink()


def _commit_reads(storage: CountingStorage) -> int:
    return sum(n for path, n in storage.reads.items() if path.endswith(".json"))


def _segment_versions(folder: Path) -> list[int]:
    found = []
    for table in folder.iterdir():
        for segment in seg.segments(str(table)):
            entries = seg.read_segment(str(table), segment)
            assert entries is not None
            found += list(entries)
    return sorted(found)


def test_a_second_read_of_an_unchanged_table_reads_no_commit_from_the_store(tmp_path):
    table = tmp_path / "t"
    _appends(table, 12)
    index = _index(tmp_path / "cache")
    cold, first = _history(table, index)
    warm, second = _history(table, index)
    assert warm == cold == _history(table, None)[0]
    assert _commit_reads(first) == 12
    assert _commit_reads(second) == 0


def test_after_k_new_commits_only_those_k_are_read_from_the_store(tmp_path):
    table = tmp_path / "t"
    _appends(table, 6)
    index = _index(tmp_path / "cache")
    _history(table, index)
    _appends(table, 3, seed=8)
    warm, storage = _history(table, index)
    assert _commit_reads(storage) == 3
    assert warm == _history(table, None)[0]


def test_a_commit_rewritten_in_place_is_read_again_and_answers_as_without_the_index(tmp_path):
    table = tmp_path / "t"
    _appends(table, 5)
    index = _index(tmp_path / "cache")
    _history(table, index)
    commit = table / LOG_DIR / f"{3:020d}.json"
    lines = commit.read_text().splitlines()
    info = json.loads(next(line for line in lines if '"commitInfo"' in line))
    info["commitInfo"]["operation"] = "REWRITTEN"
    commit.write_text("\n".join(json.dumps(info) if '"commitInfo"' in ln else ln for ln in lines))
    warm, storage = _history(table, index)
    assert warm == _history(table, None)[0]
    assert any(e.operation == "REWRITTEN" for e in warm)
    assert _commit_reads(storage) == 1


def test_a_table_recreated_at_the_same_path_never_gets_the_old_tables_commits(tmp_path):
    table = tmp_path / "t"
    _appends(table, 4)
    index = _index(tmp_path / "cache")
    old, _ = _history(table, index)
    shutil.rmtree(table)
    write_deltalake(str(table), pa.table({"y": ["a", "b"]}))
    _appends_y = [pa.table({"y": ["c"]}), pa.table({"y": ["d"]})]
    for part in _appends_y:
        write_deltalake(str(table), part, mode="append")
    new, storage = _history(table, index)
    assert new == _history(table, None)[0]
    assert new != old
    assert _commit_reads(storage) == 3
    manifest = json.loads(next((tmp_path / "cache").glob("*/table.json")).read_text())
    log = DeltaLog(str(table))
    log.refresh()
    assert manifest["tableId"] == log.snapshot().metadata.id


def test_log_cleanup_past_the_cached_versions_answers_as_without_the_index(tmp_path):
    table = tmp_path / "t"
    _appends(table, 8)
    index = _index(tmp_path / "cache")
    _history(table, index)
    from deltalake import DeltaTable

    DeltaTable(str(table)).create_checkpoint()
    for version in range(4):
        (table / LOG_DIR / f"{version:020d}.json").unlink()
    warm, storage = _history(table, index)
    assert warm == _history(table, None)[0]
    assert warm[0].version == 4
    assert _commit_reads(storage) == 0


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_cache_file_is_ignored_removed_and_rebuilt(tmp_path, damage):
    table = tmp_path / "t"
    _appends(table, 6)
    cache = tmp_path / "cache"
    index = _index(cache)
    cold, _ = _history(table, index)
    for path in cache.glob("*/*.arrow"):
        damage_file(path, damage)
    _forget_histories(cache)
    warm, storage = _history(table, index)
    assert warm == cold
    assert _commit_reads(storage) == 6  # every commit read again from the store
    assert _segment_versions(cache) == list(range(6))  # rebuilt whole
    _forget_histories(cache)
    again, storage = _history(table, index)
    assert again == cold
    assert _commit_reads(storage) == 0


def test_staged_commits_never_enter_the_index(tmp_path, corpus, monkeypatch):
    monkeypatch.setattr(tables, "LOCAL_FROM", 1)
    source = corpus / "delta-kernel-rs/uc__catalog_managed_0"
    staged = sorted((source / LOG_DIR / "_staged_commits").glob("*.json"))
    assert staged
    index = _index(tmp_path / "cache")
    log = DeltaLog(str(source), index=index)
    log.refresh()
    files = [
        LogFile(name=p.name, path=str(p), size=p.stat().st_size, modification_time=0)
        for p in staged
    ]
    assert [bytes(d) for d in log.read_commit_files(files)] == [p.read_bytes() for p in staged]
    assert not list((tmp_path / "cache").glob("*/*.arrow"))


def test_the_index_folder_is_the_owners_alone_and_holds_no_credentials(tmp_path):
    table = tmp_path / "t"
    _appends(table, 2)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o755)
    cache.chmod(0o755)
    index = _index(cache)
    log = DeltaLog("s3://key:SECRET@bucket/t?token=SECRET2", CountingStorage(str(table)))
    log = DeltaLog(log.table_root, log.storage, index=index)
    log.refresh()
    build_history(log, Settings())
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    for path in cache.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
        assert b"SECRET" not in (path.read_bytes() if path.is_file() else b"")
    (described,) = index.tables()
    assert described.location == "s3://key@bucket/t"
    assert described.commits == 2


def test_the_least_recently_used_table_is_evicted_past_the_size_limit(tmp_path):
    tables = [tmp_path / f"t{i}" for i in range(3)]
    for i, table in enumerate(tables):
        _appends(table, 30, seed=i)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=1)
    probe = LogIndex(str(tmp_path / "probe"), max_bytes=10**9)
    _history(tables[0], probe)
    one_table = probe.size()
    index.max_bytes = int(one_table * 2.5)
    for table in tables:
        _history(table, index)
    held = [t.location for t in index.tables()]
    assert held == [str(tables[2]), str(tables[1])]
    assert index.size() <= index.max_bytes
    index.clear()
    assert index.tables() == [] and index.size() == 0


def test_two_writers_filling_the_index_at_once_leave_it_consistent(tmp_path):
    table = tmp_path / "t"
    _appends(table, 40)
    index = _index(tmp_path / "cache")
    expected = _history(table, None)[0]
    results = at_once(lambda: _history(table, _index(tmp_path / "cache"))[0], readers=4)
    assert results == [expected] * 4
    assert set(_segment_versions(tmp_path / "cache")) == set(range(40))
    warm, storage = _history(table, index)
    assert warm == expected and _commit_reads(storage) == 0


def test_two_processes_filling_the_index_at_once_answer_alike(tmp_path):
    table = tmp_path / "t"
    _appends(table, 40)
    env = {**os.environ, "DELTA_INSPECTOR_LOG_INDEX_FOLDER": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "inspector", "history", str(table), "--json"]
    for _ in range(3):
        procs = [
            subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE) for _ in range(2)
        ]
        outs = [p.communicate(timeout=120)[0] for p in procs]
        assert [p.returncode for p in procs] == [0, 0]
        assert outs[0] == outs[1]
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)
    plain = subprocess.run([*argv, "--no-cache"], cwd=REPO, capture_output=True, check=True)
    assert plain.stdout == outs[0]


def test_no_cache_neither_reads_nor_fills_the_index(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tables, "LOCAL_FROM", 1)
    table = tmp_path / "t"
    _appends(table, 3)
    cache = tmp_path / "cache"
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(cache))
    assert main(["history", str(table), "--json", "--no-cache"]) == 0
    assert not cache.exists()
    assert main(["history", str(table), "--json"]) == 0
    assert list(cache.glob("*/*.arrow"))
    capsys.readouterr()


def test_a_few_commits_read_from_a_local_disk_skip_the_index(tmp_path):
    table = tmp_path / "t"
    _appends(table, 3)
    log = DeltaLog(str(table), index=_index(tmp_path / "cache"))
    log.refresh()
    files = [log.commit_file(v) for v in range(3)]
    contents = log.read_commit_files([f for f in files if f is not None])
    assert [bytes(c) for c in contents if isinstance(c, bytes)] == [
        (table / LOG_DIR / f"{v:020d}.json").read_bytes() for v in range(3)
    ]
    assert not (tmp_path / "cache").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_cache_folder_of_another_user_is_neither_read_nor_filled(tmp_path):
    table = tmp_path / "t"
    _appends(table, 4)
    cache = tmp_path / "cache"
    index = _index(cache)
    cold, _ = _history(table, index)
    os.chown(cache, 65534, 65534)
    warm, storage = _history(table, index)
    assert warm == cold
    assert _commit_reads(storage) == 4  # every commit from the store
