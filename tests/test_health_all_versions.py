"""Every retained version's verdict, specified on seeded random tables.

A random table is written action by action (adds, removes, re-adds, deletion vectors in
shared DV files, a checkpoint in the middle, log cleanup), its files damaged as a
replication would leave them (deleted, truncated), and sometimes its log too (a commit
lost or cut short). The test keeps its own model of each version's live files; the
check must find, per version, exactly the files of that model that are missing or too
small, the versions no replay reaches as unreadable (from a lost commit until a
checkpoint after it), and as orphans exactly the stray files. The fast check must agree
with the full one on the latest version.
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

from inspector.health import HealthReport, VersionStatus, check_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.counting_storage import counted_log

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
        self.dv_files: dict[str, str] = {}  # pathOrInlineDv -> the DV file, relative
        self.states: list[dict] = []  # each version's live adds by key, replayed
        self.version = -1
        self.compact = rng.random() < 0.8
        (root / "_delta_log").mkdir(parents=True)

    def commit(self, actions: list[dict]) -> None:
        self.version += 1
        # mostly compact, as Spark writes (read in bulk by Arrow); sometimes spaced (parsed)
        separators = (",", ":") if self.compact else (", ", ": ")
        lines = [json.dumps(a, separators=separators) for a in actions]
        (self.root / "_delta_log" / f"{self.version:020d}.json").write_text("\n".join(lines) + "\n")
        state = dict(self.states[-1]) if self.states else {}
        for action in actions:  # in file order: a version's newest action wins
            if "add" in action:
                state[(action["add"]["path"], _dv_id(action["add"]))] = action["add"]
            elif "remove" in action:
                state.pop((action["remove"]["path"], _dv_id(action["remove"])), None)
        self.states.append(state)
        self.live = dict(state)  # a checkpoint holds what the commits give

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
        self.dv_files[prefix + _z85(file_id.bytes)] = relative
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


def _needed(table: _RandomTable, version: int) -> dict[str, int]:
    """The model: each file the version's live adds reference, with the bytes it needs."""
    needed: dict[str, int] = {}
    for add in table.states[version].values():
        needed[add["path"]] = add["size"]
        dv = add.get("deletionVector")
        if dv is not None:
            where = table.dv_files[dv["pathOrInlineDv"]]
            size = dv["offset"] + 4 + dv["sizeInBytes"] + 4
            needed[where] = max(needed.get(where, 0), size)
    return needed


def _expected(root: Path, table: _RandomTable, version: int) -> tuple[int, int]:
    """The model's (missing, too small) counts of a version."""
    missing = small = 0
    for name, size in _needed(table, version).items():
        path = root / name
        if not path.exists():
            missing += 1
        elif path.stat().st_size < size:
            small += 1
    return missing, small


def _unreadable(root: Path, table: _RandomTable, first: int) -> set[int]:
    """The model's unreadable versions: from a lost or cut commit until a checkpoint after it."""
    log, out, broken = root / "_delta_log", set(), False
    for version in range(first, table.version + 1):
        commit = log / f"{version:020d}.json"
        damaged = version > first and (not commit.exists() or not commit.read_text().endswith("\n"))
        if (log / f"{version:020d}.checkpoint.parquet").exists():
            broken = False
        elif damaged:
            broken = True
        if broken:
            out.add(version)
    return out


def _assert_specified(root: Path, table: _RandomTable, settings: Settings) -> HealthReport:
    """Every version's verdict is the model's; the fast check agrees on the latest."""
    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=settings)
    first = report.versions[0].version
    unreadable = _unreadable(root, table, first)
    assert [v.version for v in report.versions] == list(range(first, table.version + 1))
    for health in report.versions:
        if health.version in unreadable:
            assert health.status is VersionStatus.UNREADABLE, health.version
            continue
        missing, small = _expected(root, table, health.version)
        assert (health.missing_count, health.size_mismatch_count) == (missing, small), health
        assert health.status is (
            VersionStatus.INCOMPLETE if missing + small else VersionStatus.COMPLETE
        )
        assert len(health.missing_files) == min(missing, settings.max_listed_files)
    if (root / "stray.parquet").exists() and report.orphan_files <= settings.max_listed_files:
        assert "stray.parquet" in report.orphan_paths
    fast = check_table(DeltaLog.open(str(root)), settings=settings)
    if fast.is_consistent:  # the latest version alone
        assert (fast.latest.status, fast.latest.missing_count) == (VersionStatus.COMPLETE, 0)
    else:  # then every version, as the full check finds them
        assert [v.status for v in fast.versions] == [v.status for v in report.versions]
    return report


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_give_the_models_verdicts(tmp_path, seed):
    table = _random_table(tmp_path / "t", seed)

    _assert_specified(tmp_path / "t", table, Settings(max_listed_files=1))
    _assert_specified(tmp_path / "t", table, Settings())


@pytest.mark.parametrize("seed", range(12))
def test_a_lost_commit_makes_versions_unreadable_until_a_checkpoint(tmp_path, seed):
    table = _random_table(tmp_path / "t", seed)
    rng = random.Random(seed)
    lost = rng.randrange(1, table.version + 1)
    (tmp_path / "t" / "_delta_log" / f"{lost:020d}.json").unlink(missing_ok=True)

    report = _assert_specified(tmp_path / "t", table, Settings())

    assert (
        any(v.status is VersionStatus.UNREADABLE for v in report.versions)
        or lost <= report.versions[0].version
    )


@pytest.mark.parametrize("seed", range(12))
def test_a_commit_cut_short_is_damaged_and_breaks_the_replay(tmp_path, seed):
    table = _random_table(tmp_path / "t", seed)
    rng = random.Random(seed)
    cut = tmp_path / "t" / "_delta_log" / f"{rng.randrange(1, table.version + 1):020d}.json"
    if cut.exists():
        text = cut.read_text()
        end = len(text) // 2
        while text[end - 1] in "}\n":  # mid-line: a reader can tell the commit is cut
            end -= 1
        cut.write_text(text[:end])

    _assert_specified(tmp_path / "t", table, Settings())


def test_a_tag_without_a_value_damages_its_commit(tmp_path):
    table = _random_table(tmp_path / "t", 5)
    last = tmp_path / "t" / "_delta_log" / f"{table.version:020d}.json"
    added = {"add": {**table.new_file(), "tags": {"writer": None}}}
    last.write_text(last.read_text() + json.dumps(added, separators=(",", ":")) + "\n")

    report = check_table(DeltaLog.open(str(tmp_path / "t")), all_versions=True, settings=Settings())

    assert report.latest.status is VersionStatus.UNREADABLE
    assert report.latest.problems[0].kind == "commit_damaged"


def _checkpointed_table(root: Path, every: int, commits: int) -> _RandomTable:
    """A random table (seeded) with a classic checkpoint every ``every`` versions."""
    table = _RandomTable(root, random.Random(11))
    table.commit(
        [{"protocol": _PROTOCOL}, {"metaData": _METADATA}]
        + [{"add": table.new_file()} for _ in range(3)]
    )
    for _ in range(commits):
        table.step()
        if table.version % every == 0:
            table.checkpoint()
    return table


def test_verifying_every_checkpoint_reads_each_once(tmp_path):
    """Verified oldest first, each checkpoint is read once: as the one verified, and then
    (as it was read) as the base the next one's commits are replayed from."""
    _checkpointed_table(tmp_path / "t", every=4, commits=14)
    log, storage = counted_log(tmp_path / "t")

    problems = log.checkpoint_problems(verify_all=True)

    read = {name: n for name, n in storage.reads.items() if ".checkpoint." in name}
    assert read == {f"{v:020d}.checkpoint.parquet": 1 for v in (4, 8, 12)}
    assert problems == {}


def test_a_checkpoint_that_disagrees_with_its_commits_is_named_and_the_next_is_judged_alone(
    tmp_path,
):
    """A checkpoint missing a live file is named; the next one is judged by its own commits
    (replayed from an older checkpoint), not by the one that disagrees."""
    table = _checkpointed_table(tmp_path / "t", every=4, commits=14)
    path = tmp_path / "t" / "_delta_log" / f"{8:020d}.checkpoint.parquet"
    rows = pq.read_table(path).to_pylist()
    dropped = next(i for i, r in enumerate(rows) if r["add"] is not None)
    pq.write_table(
        pa.Table.from_pylist(rows[:dropped] + rows[dropped + 1 :], schema=_CHECKPOINT_SCHEMA),
        path,
    )
    assert table.version == 14

    problems = DeltaLog.open(str(tmp_path / "t")).checkpoint_problems(verify_all=True)

    assert list(problems) == [8]  # 12 is replayed from checkpoint 4: it agrees
    assert "Checkpoint 8" in problems[8][0]
