"""On S3 (moto's server on loopback), the log index spares every commit GET a second read
would make, and after k new commits the read GETs those k: with the answers unchanged."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
from deltalake import write_deltalake

from inspector.delta.paths import LOG_DIR
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.settings import Settings
from inspector.table.history import HistoryEntry, build_history


def _appends(table: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        write_deltalake(str(table), pa.table({"x": [rng.randrange(99)]}), mode="append")


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
    _appends(local, 40, seed=1)
    uri = s3_server.upload(local)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    options = s3_server.options

    cold, cold_gets = _history(uri, options, index)
    warm, warm_gets = _history(uri, options, index)
    assert warm == cold == _history(uri, options, None)[0]
    assert (cold_gets, warm_gets) == (40, 0)

    _appends(local, 3, seed=2)
    for path in sorted(local.rglob("*")):
        rel = path.relative_to(local).as_posix()
        if path.is_file() and (not rel.startswith(LOG_DIR) or rel >= f"{LOG_DIR}/{40:020d}"):
            s3_server.put(f"{uri}/{rel}", path.read_bytes())
    after, after_gets = _history(uri, options, index)
    assert after == _history(uri, options, None)[0]
    assert len(after) == 43 and after_gets == 3
    (held,) = index.tables()
    assert held.location == uri and held.commits == 43
