"""The log index holds a big commit parsed: its file actions as the log core's Arrow tables.

A real table (deltalake writes one commit of more than 1 MB: thousands of partitions),
a real cache folder; the counting storage only counts what the real local storage is asked.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from bench.tablegen import make_files_table
from inspector.delta.paths import LOG_DIR
from inspector.log.bigcommit import COLUMNAR_FROM
from inspector.log.index import LogIndex
from inspector.log.index import segments as seg
from inspector.settings import Settings
from inspector.table.history import build_history
from tests.conftest import add_files
from tests.counting_storage import CountingStorage, counted_log


@pytest.fixture(scope="module")
def big_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table in Spark's layout whose first commit adds 6,000 files (more than 1 MB, read
    by Arrow), then a MERGE, an append and a DELETE (``bench/tablegen.py``)."""
    table = tmp_path_factory.mktemp("big") / "t"
    make_files_table(str(table), 6000)
    assert (table / LOG_DIR / f"{0:020d}.json").stat().st_size >= COLUMNAR_FROM
    return table


@pytest.fixture(scope="module")
def odd_big_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table whose first commit (deltalake's, 3,000 partitions: more than 1 MB) has fields
    the columnar reader leaves to the line-by-line parser (``tags``, ``clusteringProvider``)."""
    table = tmp_path_factory.mktemp("odd") / "t"
    parts = pa.table({"p": [f"part-{i:05d}" for i in range(3000)], "x": list(range(3000))})
    write_deltalake(str(table), parts, partition_by=["p"])
    for value in (7, 8):
        write_deltalake(str(table), pa.table({"p": ["part-00001"], "x": [value]}), mode="append")
    assert (table / LOG_DIR / f"{0:020d}.json").stat().st_size >= COLUMNAR_FROM
    return table


def _held(cache: Path) -> dict[int, tuple[seg.Segment, seg.Entry]]:
    (folder,) = [p for p in cache.iterdir() if p.is_dir()]
    held = {}
    for segment in seg.segments(str(folder)):
        entries = seg.read_segment(str(folder), segment)
        assert entries is not None
        held.update({v: (segment, e) for v, es in entries.items() for e in es})
    return held


def _index(folder: Path) -> LogIndex:
    return LogIndex(str(folder), max_bytes=64 * 1024 * 1024)


def _commit_reads(storage: CountingStorage) -> int:
    return sum(n for path, n in storage.reads.items() if path.endswith(".json"))


def test_a_big_commit_is_held_parsed_in_a_segment_of_its_own(big_table, tmp_path):
    cache = tmp_path / "cache"
    log, _ = counted_log(big_table, _index(cache))
    log.commit(0)  # parsed (as ``files --version 0`` parses it)
    held = _held(cache)
    segment, big = held[0]
    assert big.data is None and big.files is not None  # parsed, not bytes
    assert big.files.adds.num_rows == 6000
    assert segment.first == segment.last == 0  # a question about v2 or v3 never reads it


def test_a_big_commit_the_columnar_reader_leaves_is_held_as_bytes_on_its_own(
    odd_big_table, tmp_path
):
    cache = tmp_path / "cache"
    index = _index(cache)
    expected = build_history(counted_log(odd_big_table, None)[0], Settings())
    cold, _ = counted_log(odd_big_table, index)
    assert build_history(cold, Settings()) == expected
    cold.commit(0)
    segment, big = _held(cache)[0]
    assert big.files is None and big.data is not None
    assert segment.first == segment.last == 0
    warm, storage = counted_log(odd_big_table, index, count_open=True)
    assert build_history(warm, Settings()) == expected
    assert _commit_reads(storage) == 0


def test_a_warm_read_answers_as_without_the_index_and_reads_no_commit(big_table, tmp_path):
    index = _index(tmp_path / "cache")
    off, _ = counted_log(big_table, None)
    cold, _ = counted_log(big_table, index)
    expected = build_history(off, Settings())
    assert build_history(cold, Settings()) == expected
    warm, storage = counted_log(big_table, index, count_open=True)
    assert build_history(warm, Settings()) == expected
    assert _commit_reads(storage) == 0
    snapshot, plain = warm.snapshot(0), off.snapshot(0)
    assert add_files(snapshot) == add_files(plain)
    assert warm.commit(0).actions == off.commit(0).actions
    assert warm.commit(0).file_summary == off.commit(0).file_summary


def test_a_damaged_parsed_segment_is_removed_and_the_commit_read_again(big_table, tmp_path):
    cache = tmp_path / "cache"
    index = _index(cache)
    off = counted_log(big_table, None)[0]
    cold = counted_log(big_table, index)[0]
    build_history(cold, Settings())
    cold.commit(0)
    (big,) = list(cache.glob("*/00000000000000000000-00000000000000000000-*.arrow"))
    raw = bytearray(big.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    big.write_bytes(bytes(raw))
    warm, storage = counted_log(big_table, index, count_open=True)
    assert warm.commit(0).actions == off.commit(0).actions
    assert build_history(warm, Settings()) == build_history(off, Settings())
    assert _commit_reads(storage) == 1
    assert big.read_bytes() != bytes(raw)  # removed and written whole again
