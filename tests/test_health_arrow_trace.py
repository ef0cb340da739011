"""The check of every version in Arrow gives the report the traced replay gives.

``check --all-versions`` on a plain log (every commit after the earliest version present
and readable) derives each file key's live intervals in Arrow and replays only the bad
files' keys; any other log goes through the traced replay. Both must give the same
:class:`~inspector.health.HealthReport`: the same versions, statuses, counts, capped lists,
problems and orphans. Held here on seeded random tables (adds, removes, re-adds, deletion
vectors, files deleted or truncated, a checkpoint in the middle, log cleanup), on the
corpus tables with deletion vectors, and on the other health tests' tables.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from inspector.health import check_table
from inspector.health.allversions import check_all_versions
from inspector.health.check import check_traced
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.conftest import corpus_index

_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_PROTOCOL = {
    "minReaderVersion": 3,
    "minWriterVersion": 7,
    "readerFeatures": ["deletionVectors"],
    "writerFeatures": ["deletionVectors"],
}
_SCHEMA = json.dumps(
    {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]}
)
_METADATA = {
    "id": "random-table",
    "format": {"provider": "parquet", "options": {}},
    "schemaString": _SCHEMA,
    "partitionColumns": [],
    "configuration": {},
    "createdTime": 0,
}


def _z85(data: bytes) -> str:
    out = []
    for i in range(0, len(data), 4):
        value = int.from_bytes(data[i : i + 4], "big")
        out.append("".join(_Z85[value // 85**k % 85] for k in range(4, -1, -1)))
    return "".join(out)


class _RandomTable:
    """A table written action by action: data files of random sizes, deletion vectors in
    shared DV files, removes, re-adds of live and of removed files."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng = root, rng
        self.live: dict[tuple[str, str | None], dict] = {}  # key -> add body
        self.gone: list[dict] = []  # add bodies removed earlier (for re-adds)
        self.files: list[str] = []  # every file written, relative to the root
        self.version = -1
        self.compact = rng.random() < 0.8
        (root / "_delta_log").mkdir(parents=True)

    def commit(self, actions: list[dict]) -> None:
        self.version += 1
        # mostly compact, as Spark writes (read in bulk by Arrow); sometimes spaced (parsed)
        separators = (",", ":") if self.compact else (", ", ": ")
        lines = [json.dumps(a, separators=separators) for a in actions]
        (self.root / "_delta_log" / f"{self.version:020d}.json").write_text("\n".join(lines) + "\n")

    def new_file(self) -> dict:
        name = f"part-{len(self.files):05d}-{uuid.UUID(int=self.rng.getrandbits(128))}.parquet"
        size = self.rng.randrange(10, 200)
        (self.root / name).write_bytes(b"d" * size)
        self.files.append(name)
        return {"path": name, "partitionValues": {}, "size": size, "modificationTime": 1}

    def new_dv(self, count: int) -> list[dict]:
        """``count`` deletion vectors stored in one new DV file."""
        file_id = uuid.UUID(int=self.rng.getrandbits(128))
        prefix = self.rng.choice(["", "ab"])
        name = f"deletion_vector_{file_id}.bin"
        relative = f"{prefix}/{name}" if prefix else name
        dvs, offset = [], 1
        for _ in range(count):
            size = self.rng.randrange(20, 40)
            dvs.append(
                {
                    "storageType": "u",
                    "pathOrInlineDv": prefix + _z85(file_id.bytes),
                    "offset": offset,
                    "sizeInBytes": size,
                    "cardinality": 1,
                }
            )
            offset += 4 + size + 4
        (self.root / relative).parent.mkdir(parents=True, exist_ok=True)
        (self.root / relative).write_bytes(b"v" * offset)
        self.files.append(relative)
        return dvs

    def step(self) -> None:
        """One commit of random adds, removes, re-adds and DV updates."""
        rng, actions = self.rng, []
        for _ in range(rng.randrange(1, 5)):
            actions += self._one(rng.random())
        rng.shuffle(actions)
        self.commit(actions)

    def _one(self, roll: float) -> list[dict]:
        live = list(self.live.items())
        if roll < 0.35 or not live:
            add = self.new_file()
            self.live[(add["path"], None)] = add
            return [{"add": add}]
        key, add = self.rng.choice(live)
        if roll < 0.55:
            del self.live[key]
            self.gone.append(add)
            return [{"remove": {"path": add["path"], "deletionTimestamp": 1, "dataChange": True}}]
        if roll < 0.65:
            return [{"add": add}]  # a re-add of a live key: no change
        if roll < 0.75 and self.gone:
            again = self.rng.choice(self.gone)
            self.live[(again["path"], _dv_id(again))] = again
            return [{"add": again}]
        if roll < 0.9:
            return self._dv_update(key, add)
        other = self.new_file()  # added and removed in one commit: never live
        return [{"add": other}, {"remove": {"path": other["path"], "deletionTimestamp": 1}}]

    def _dv_update(self, key: tuple[str, str | None], add: dict) -> list[dict]:
        (dv,) = self.new_dv(1) if self.rng.random() < 0.5 else self.new_dv(2)[:1]
        newer = {**add, "deletionVector": dv}
        del self.live[key]
        self.live[(add["path"], _dv_id(newer))] = newer
        removed = {"path": add["path"], "deletionTimestamp": 1, "dataChange": True}
        if "deletionVector" in add:
            removed["deletionVector"] = add["deletionVector"]
        return [{"remove": removed}, {"add": newer}]

    def checkpoint(self) -> None:
        """A classic checkpoint of the current version (and ``_last_checkpoint``)."""
        rows = [{"protocol": _PROTOCOL}, {"metaData": _METADATA}]
        rows += [{"add": {**a, "dataChange": False}} for a in self.live.values()]
        table = pa.Table.from_pylist(rows, schema=_CHECKPOINT_SCHEMA)
        log = self.root / "_delta_log"
        pq.write_table(table, log / f"{self.version:020d}.checkpoint.parquet")
        (log / "_last_checkpoint").write_text(
            json.dumps({"version": self.version, "size": len(rows)})
        )


def _dv_id(add: dict) -> str | None:
    dv = add.get("deletionVector")
    return None if dv is None else f"{dv['storageType']}{dv['pathOrInlineDv']}@{dv['offset']}"


_STR_MAP = pa.map_(pa.string(), pa.string())
_DV = pa.struct(
    [
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int32()),
        ("sizeInBytes", pa.int32()),
        ("cardinality", pa.int64()),
    ]
)
_CHECKPOINT_SCHEMA = pa.schema(
    [
        (
            "protocol",
            pa.struct(
                [
                    ("minReaderVersion", pa.int32()),
                    ("minWriterVersion", pa.int32()),
                    ("readerFeatures", pa.list_(pa.string())),
                    ("writerFeatures", pa.list_(pa.string())),
                ]
            ),
        ),
        (
            "metaData",
            pa.struct(
                [
                    ("id", pa.string()),
                    ("format", pa.struct([("provider", pa.string()), ("options", _STR_MAP)])),
                    ("schemaString", pa.string()),
                    ("partitionColumns", pa.list_(pa.string())),
                    ("configuration", _STR_MAP),
                    ("createdTime", pa.int64()),
                ]
            ),
        ),
        (
            "add",
            pa.struct(
                [
                    ("path", pa.string()),
                    ("partitionValues", _STR_MAP),
                    ("size", pa.int64()),
                    ("modificationTime", pa.int64()),
                    ("dataChange", pa.bool_()),
                    ("deletionVector", _DV),
                ]
            ),
        ),
    ]
)


def _random_table(root: Path, seed: int) -> _RandomTable:
    """Write a random table, then damage it as a replication would, by the seed."""
    rng = random.Random(seed)
    table = _RandomTable(root, rng)
    table.commit(
        [{"protocol": _PROTOCOL}, {"metaData": _METADATA}]
        + [{"add": table.new_file()} for _ in range(3)]
    )
    table.live = {(a["add"]["path"], None): a["add"] for a in _first_adds(root)}
    commits = rng.randrange(8, 30)
    middle = rng.randrange(2, commits - 2)
    for _ in range(commits):
        table.step()
        if table.version == middle:
            table.checkpoint()
    if rng.random() < 0.4:  # log cleanup: the checkpoint is the earliest version
        for version in range(middle + (rng.random() < 0.5)):
            (root / "_delta_log" / f"{version:020d}.json").unlink()
    lost = rng.randrange(0, 10) if rng.random() < 0.5 else len(table.files) // 2
    for name in rng.sample(table.files, k=min(len(table.files), lost)):
        path = root / name
        if rng.random() < 0.5:
            path.unlink()
        else:
            os.truncate(path, path.stat().st_size // 2)
    if rng.random() < 0.5:
        (root / "stray.parquet").write_bytes(b"s" * 7)
    return table


def _first_adds(root: Path) -> list[dict]:
    lines = (root / "_delta_log" / f"{0:020d}.json").read_text().splitlines()
    return [a for a in map(json.loads, lines) if "add" in a]


def _assert_same(root: Path, settings: Settings, *, plain: bool = True) -> None:
    """Every-version reports by both paths are equal (and the Arrow one was taken)."""
    log = DeltaLog.open(str(root))
    traced = check_traced(log, all_versions=True, deep=False, verify_all=True, settings=settings)
    arrow = check_table(DeltaLog.open(str(root)), all_versions=True, settings=settings)
    assert arrow == traced
    full = check_all_versions(
        DeltaLog.open(str(root)),
        all_checkpoints=True,
        cap=settings.max_listed_files,
        workers=2,
    )
    assert (full is not None) == plain
    fast = check_table(DeltaLog.open(str(root)), settings=settings)  # then every version
    if not fast.is_consistent:
        again = check_traced(
            DeltaLog.open(str(root)),
            all_versions=False,
            deep=False,
            verify_all=False,
            settings=settings,
        )
        assert fast == again


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_give_the_traced_report(tmp_path, seed):
    _random_table(tmp_path / "t", seed)

    _assert_same(tmp_path / "t", Settings(max_listed_files=1))
    _assert_same(tmp_path / "t", Settings())


@pytest.mark.parametrize("seed", range(3))
def test_a_missing_commit_leaves_the_check_to_the_traced_replay(tmp_path, seed):
    table = _random_table(tmp_path / "t", seed)
    (tmp_path / "t" / "_delta_log" / f"{table.version - 1:020d}.json").unlink()

    _assert_same(tmp_path / "t", Settings(), plain=False)


_DV_TABLES = sorted(
    t["path"]
    for t in corpus_index()
    if (t["log"].get("adds_with_dv") or 0) > 0 and not t.get("duplicate_of")
)


@pytest.mark.parametrize("table", _DV_TABLES)
def test_corpus_tables_with_deletion_vectors_give_the_traced_report(copy_table, table):
    root = copy_table(table)
    _assert_same(root, Settings())
    rng = random.Random(table)
    referenced = [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file() and "_delta_log" not in p.parts and p.suffix in (".parquet", ".bin")
    ]
    for path in rng.sample(referenced, k=min(3, len(referenced))):
        if rng.random() < 0.5:
            path.unlink()
        else:
            os.truncate(path, path.stat().st_size // 2)

    _assert_same(root, Settings(max_listed_files=1))


def test_a_tag_without_a_value_damages_its_commit_for_both_paths(tmp_path):
    table = _random_table(tmp_path / "t", 5)
    last = tmp_path / "t" / "_delta_log" / f"{table.version:020d}.json"
    added = {"add": {**table.new_file(), "tags": {"writer": None}}}
    last.write_text(last.read_text() + json.dumps(added, separators=(",", ":")) + "\n")

    _assert_same(tmp_path / "t", Settings(), plain=False)


def _lose_newest_file(root: Path) -> None:
    log = DeltaLog.open(str(root))
    (root / log.commit(log.latest_version).adds[-1].key[0]).unlink()


def _truncate_every_other_file(root: Path) -> None:
    for i, path in enumerate(sorted(root.rglob("*.parquet"))):
        if "_delta_log" not in path.parts and i % 2:
            os.truncate(path, path.stat().st_size // 2)


def _drop_a_middle_commit(root: Path) -> None:
    (root / "_delta_log" / f"{DeltaLog.open(str(root)).latest_version // 2:020d}.json").unlink()


@pytest.mark.parametrize(
    "table",
    [
        "delta-kernel-java/basic-with-checkpoint",
        "delta-kernel-java/kernel-pagination-all-jsons",
        "delta-golden/basic-with-inserts-deletes-checkpoint",
        "delta-kernel-rs/v2-checkpoints-parquet-with-sidecars",
    ],
)
@pytest.mark.parametrize(
    "damage", [_lose_newest_file, _truncate_every_other_file, _drop_a_middle_commit]
)
def test_the_health_tests_tables_give_the_traced_report(copy_table, table, damage):
    root = copy_table(table)
    damage(root)

    _assert_same(root, Settings(max_listed_files=1), plain=damage is not _drop_a_middle_commit)
