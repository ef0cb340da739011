"""Generate Spark-shaped Delta tables of lakehouse scale, cheaply.

Two shapes, both readable by Spark, deltalake and this project:

* ``commits``: a streaming job's table, N commits (one or two appends each with stats and
  a ``txn``, an OPTIMIZE every 100 commits) and a classic checkpoint every 100 versions;
* ``files``: a table of N live files: commit 0 writes them all (a CREATE TABLE AS SELECT)
  and has a checkpoint; then a MERGE (3,000 removes + 3,000 adds, 6,000 file actions),
  an append of 1,000 files and a DELETE of 2,000 files.

Data files exist: each is a hard link of one small Parquet file (the same rows, the same
size), so a million files cost directory entries, not disk. ext4 allows 65,000 links per
inode, so every 50,000 links use a new source file (a copy of the first one).
Checkpoints are written with pyarrow in the schema Spark writes (no ``stats_parsed``).

Run::

    python bench/tablegen.py commits 20000 /tmp/t20k
    python bench/tablegen.py files 300000 /tmp/f300k
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from inspector.log.columnar import FIELDS  # noqa: E402

ENGINE = "Apache-Spark/3.5.1 Delta-Lake/3.2.0"
MINUTE_MS = 60_000
LINKS_PER_SOURCE = 50_000  # below ext4's 65,000 links per inode
ROWS_PER_FILE = 10
SCHEMA = {
    "type": "struct",
    "fields": [
        {"name": n, "type": t, "nullable": True, "metadata": {}}
        for n, t in (("event_id", "long"), ("event_type", "string"), ("event_date", "date"))
    ],
}

_STR_MAP = pa.map_(pa.string(), pa.string())


def _checkpoint_struct(kind: str, *absent: str) -> pa.DataType:
    """Spark's checkpoint column of ``add`` or ``remove``: the action's Delta fields as this
    project reads them (:data:`inspector.log.columnar.FIELDS`, in Spark's order), less the
    ``absent`` ones these tables never carry."""
    return pa.struct([(name, type_) for name, type_ in FIELDS[kind] if name not in absent])


# These tables have no deletion vectors and no row tracking, and their removes no stats or tags.
_NOT_WRITTEN = ("deletionVector", "baseRowId", "defaultRowCommitVersion")
_ADD = _checkpoint_struct("add", *_NOT_WRITTEN)
_REMOVE = _checkpoint_struct("remove", "stats", "tags", *_NOT_WRITTEN)
_META = pa.struct(
    [
        ("id", pa.string()),
        ("name", pa.string()),
        ("description", pa.string()),
        ("format", pa.struct([("provider", pa.string()), ("options", _STR_MAP)])),
        ("schemaString", pa.string()),
        ("partitionColumns", pa.list_(pa.string())),
        ("configuration", _STR_MAP),
        ("createdTime", pa.int64()),
    ]
)
_PROTOCOL = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())])
_TXN = pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])
CHECKPOINT_SCHEMA = pa.schema(
    [
        ("txn", _TXN),
        ("add", _ADD),
        ("remove", _REMOVE),
        ("metaData", _META),
        ("protocol", _PROTOCOL),
    ]
)


class DataFiles:
    """Hard links of a few identical small Parquet files, one source per 50,000 links."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.source_dir = os.path.join(root, "_generator_sources")
        os.makedirs(self.source_dir, exist_ok=True)
        first = os.path.join(self.source_dir, "source-0.parquet")
        table = pa.table(
            {
                "event_id": pa.array(range(ROWS_PER_FILE), pa.int64()),
                "event_type": pa.array(["click"] * ROWS_PER_FILE),
            }
        )
        pq.write_table(table, first)
        self.sources, self.links = [first], 0
        self.size = os.path.getsize(first)
        self.stats = json.dumps(
            {
                "numRecords": ROWS_PER_FILE,
                "minValues": {"event_id": 0, "event_type": "click"},
                "maxValues": {"event_id": ROWS_PER_FILE - 1, "event_type": "click"},
                "nullCount": {"event_id": 0, "event_type": 0},
            },
            separators=(",", ":"),
        )
        self.made_dirs: set[str] = set()

    def link(self, rel: str) -> None:
        """Create the data file at ``rel`` (relative to the table root)."""
        if self.links and self.links % LINKS_PER_SOURCE == 0:
            new = os.path.join(self.source_dir, f"source-{len(self.sources)}.parquet")
            shutil.copyfile(self.sources[0], new)
            self.sources.append(new)
        target = os.path.join(self.root, rel)
        folder = os.path.dirname(target)
        if folder not in self.made_dirs:
            os.makedirs(folder, exist_ok=True)
            self.made_dirs.add(folder)
        os.link(self.sources[-1], target)
        self.links += 1

    def remove_sources(self) -> None:
        """Drop the source files (the links keep the data); the folder is not part of the table."""
        shutil.rmtree(self.source_dir)


def _day(ts: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts / 1000))


def _info(ts: int, version: int, operation: str, params: dict, metrics: dict) -> dict:
    info = {
        "timestamp": ts,
        "operation": operation,
        "operationParameters": params,
        "isolationLevel": "Serializable",
        "isBlindAppend": operation in ("STREAMING UPDATE", "WRITE", "CREATE TABLE AS SELECT"),
        "operationMetrics": metrics,
        "engineInfo": ENGINE,
        "txnId": str(uuid.UUID(int=version + 1)),
    }
    if version:
        info["readVersion"] = version - 1
    return {"commitInfo": info}


def _metadata(ts: int, interval: int) -> dict:
    return {
        "id": "5e1d0c3b-0000-4000-8000-000000000001",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps(SCHEMA),
        "partitionColumns": ["event_date"],
        "configuration": {"delta.checkpointInterval": str(interval)},
        "createdTime": ts,
    }


class Table:
    """The live state of a generated table, and the writer of its log."""

    def __init__(self, root: str, start_ms: int, interval: int) -> None:
        self.root, self.start_ms = root, start_ms
        self.log = os.path.join(root, "_delta_log")
        os.makedirs(self.log, exist_ok=True)
        self.data = DataFiles(root)
        self.live: dict[str, dict] = {}  # path -> add body
        self.meta = _metadata(start_ms, interval)
        self.protocol = {"minReaderVersion": 1, "minWriterVersion": 2}
        self.txn: dict | None = None
        self.tombstones: dict[str, dict] = {}

    def new_add(self, version: int, ts: int, part: int, *, data_change: bool = True) -> dict:
        """A new data file of this commit (linked on disk), as an add body."""
        day = _day(ts)
        rel = f"event_date={day}/part-{part:05d}-{uuid.UUID(int=(version << 32) + part)}.c000.snappy.parquet"
        self.data.link(rel)
        return {
            "path": rel,
            "partitionValues": {"event_date": day},
            "size": self.data.size,
            "modificationTime": ts,
            "dataChange": data_change,
            "stats": self.data.stats,
        }

    def commit(self, version: int, actions: Iterable[dict]) -> None:
        """Write commit ``version`` and apply it to the live state."""
        ts = self.start_ms + version * MINUTE_MS
        path = os.path.join(self.log, f"{version:020d}.json")
        with open(path, "w") as fh:
            for action in actions:
                fh.write(json.dumps(action, separators=(",", ":")))
                fh.write("\n")
                if "add" in action:
                    self.live[action["add"]["path"]] = action["add"]
                    self.tombstones.pop(action["add"]["path"], None)
                elif "remove" in action:
                    self.live.pop(action["remove"]["path"], None)
                    self.tombstones[action["remove"]["path"]] = action["remove"]
                elif "txn" in action:
                    self.txn = action["txn"]
        os.utime(path, (ts / 1000, ts / 1000))

    def checkpoint(self, version: int) -> None:
        """Write a classic checkpoint of the live state, and ``_last_checkpoint``."""
        adds = list(self.live.values())
        removes = list(self.tombstones.values())
        n = 2 + (self.txn is not None) + len(adds) + len(removes)
        columns = {
            "protocol": [self.protocol] + [None] * (n - 1),
            "metaData": [None, _as_checkpoint_meta(self.meta)] + [None] * (n - 2),
        }
        offset = 2
        txn_col: list = [None] * n
        if self.txn is not None:
            txn_col[offset] = self.txn
            offset += 1
        columns["txn"] = txn_col
        add_col: list = [None] * n
        add_col[offset : offset + len(adds)] = [_as_checkpoint_add(a) for a in adds]
        offset += len(adds)
        remove_col: list = [None] * n
        remove_col[offset:] = [_as_checkpoint_remove(r) for r in removes]
        columns["add"], columns["remove"] = add_col, remove_col
        table = pa.table(
            {f.name: pa.array(columns[f.name], f.type) for f in CHECKPOINT_SCHEMA},
            schema=CHECKPOINT_SCHEMA,
        )
        pq.write_table(table, os.path.join(self.log, f"{version:020d}.checkpoint.parquet"))
        with open(os.path.join(self.log, "_last_checkpoint"), "w") as fh:
            json.dump({"version": version, "size": n}, fh)


def _pairs(mapping: dict | None) -> list | None:
    return None if mapping is None else list(mapping.items())


def _as_checkpoint_add(add: dict) -> dict:
    return {**add, "partitionValues": _pairs(add["partitionValues"]), "tags": None}


def _as_checkpoint_remove(remove: dict) -> dict:
    return {**remove, "partitionValues": _pairs(remove.get("partitionValues"))}


def _as_checkpoint_meta(meta: dict) -> dict:
    return {
        **meta,
        "name": None,
        "description": None,
        "format": {"provider": "parquet", "options": []},
        "configuration": _pairs(meta["configuration"]),
    }


def make_commits_table(
    root: str, commits: int, *, checkpoint_every: int = 100, in_commit_timestamps: bool = False
) -> None:
    """A streaming job's table: ``commits`` commits, a checkpoint every ``checkpoint_every``;
    with ``in_commit_timestamps``, enabled when the table is created.

    Tombstones older than one checkpoint interval are dropped from checkpoints (as log
    cleanup and the tombstone retention would), so checkpoints stay small.
    """
    day_ms = 24 * 60 * MINUTE_MS
    start = (int(time.time() * 1000) - (commits + 10) * MINUTE_MS) // day_ms * day_ms
    table = Table(root, start, checkpoint_every)
    if in_commit_timestamps:
        table.meta["configuration"]["delta.enableInCommitTimestamps"] = "true"
        table.protocol = {
            "minReaderVersion": 1,
            "minWriterVersion": 7,
            "writerFeatures": ["inCommitTimestamp"],
        }
    query = "9b0c1de2-0000-4000-8000-00000000abcd"
    pending: list[dict] = []
    for version in range(commits):
        ts = start + version * MINUTE_MS
        if version == 0:
            params = {"isManaged": "false", "partitionBy": '["event_date"]', "properties": "{}"}
            actions = [
                _info(ts, 0, "CREATE TABLE", params, {}),
                {"protocol": table.protocol},
                {"metaData": table.meta},
            ]
        elif version % 100 == 0:
            actions = _optimize(table, version, ts, pending)
            pending = []
        else:
            adds = [table.new_add(version, ts, p) for p in range(1 + (version % 3 == 0))]
            pending += adds
            metrics = {
                "numRemovedFiles": "0",
                "numOutputRows": str(ROWS_PER_FILE * len(adds)),
                "numAddedFiles": str(len(adds)),
                "numOutputBytes": str(table.data.size * len(adds)),
            }
            params = {"outputMode": "Append", "queryId": query, "epochId": str(version)}
            txn = {"appId": query, "version": version, "lastUpdated": ts}
            actions = [
                _info(ts, version, "STREAMING UPDATE", params, metrics),
                {"txn": txn},
                *({"add": a} for a in adds),
            ]
        if in_commit_timestamps:  # the commit's own time, in its commitInfo (the first action)
            actions[0]["commitInfo"]["inCommitTimestamp"] = ts
        table.commit(version, actions)
        if version and version % checkpoint_every == 0:
            table.checkpoint(version)
            table.tombstones.clear()
    table.data.remove_sources()


def _optimize(table: Table, version: int, ts: int, small: list[dict]) -> list[dict]:
    removes = compaction_removes(small, ts)
    adds = [{"add": table.new_add(version, ts, 0, data_change=False)}] if small else []
    metrics = {"numRemovedFiles": str(len(removes)), "numAddedFiles": str(len(adds))}
    params = {"predicate": "[]", "zOrderBy": "[]", "auto": "false"}
    return [_info(ts, version, "OPTIMIZE", params, metrics), *removes, *adds]


def compaction_removes(small: list[dict], ts: int) -> list[dict]:
    """The ``remove`` actions (no data change) of an OPTIMIZE that compacts the adds ``small``."""
    return [
        {
            "remove": {
                "path": a["path"],
                "deletionTimestamp": ts,
                "dataChange": False,
                "extendedFileMetadata": True,
                "partitionValues": a["partitionValues"],
                "size": a["size"],
            }
        }
        for a in small
    ]


def make_files_table(root: str, files: int) -> None:
    """A table of ``files`` live files in checkpoint 0, then a MERGE, an append and a DELETE."""
    start = int(time.time() * 1000) // 1000 * 1000 - 10 * MINUTE_MS
    table = Table(root, start, 100)
    days = max(1, files // 1000)  # about 1,000 files per partition folder
    adds = []
    for i in range(files):
        add = table.new_add(0, start + (i % days) * 24 * 60 * MINUTE_MS, i)
        add["modificationTime"] = start
        adds.append({"add": add})
    metrics = {
        "numFiles": str(files),
        "numOutputRows": str(files * ROWS_PER_FILE),
        "numOutputBytes": str(files * table.data.size),
    }
    params = {"isManaged": "false", "partitionBy": '["event_date"]', "properties": "{}"}
    head = [
        _info(start, 0, "CREATE TABLE AS SELECT", params, metrics),
        {"protocol": table.protocol},
        {"metaData": table.meta},
    ]
    table.commit(0, [*head, *adds])
    del adds
    table.checkpoint(0)
    table.tombstones.clear()
    live = list(table.live)
    _rewrite(table, 1, "MERGE", live[: min(3000, files // 4)], new=min(3000, files // 4))
    _rewrite(table, 2, "WRITE", [], new=min(1000, files // 10))
    _rewrite(table, 3, "DELETE", live[files // 2 : files // 2 + min(2000, files // 5)], new=0)
    table.data.remove_sources()


def _rewrite(table: Table, version: int, operation: str, gone: list[str], new: int) -> None:
    ts = table.start_ms + version * MINUTE_MS
    removes = [
        {
            "remove": {
                "path": path,
                "deletionTimestamp": ts,
                "dataChange": True,
                "extendedFileMetadata": True,
                "partitionValues": table.live[path]["partitionValues"],
                "size": table.live[path]["size"],
            }
        }
        for path in gone
    ]
    adds = [{"add": table.new_add(version, ts, p)} for p in range(new)]
    metrics = {"numRemovedFiles": str(len(removes)), "numAddedFiles": str(len(adds))}
    table.commit(version, [_info(ts, version, operation, {}, metrics), *removes, *adds])


def main(argv: list[str] | None = None) -> int:
    """Generate one table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shape", choices=("commits", "files"))
    parser.add_argument("count", type=int)
    parser.add_argument("root")
    args = parser.parse_args(argv)
    if os.path.exists(args.root):
        raise SystemExit(f"{args.root} exists; remove it first")
    began = time.perf_counter()
    if args.shape == "commits":
        make_commits_table(args.root, args.count)
    else:
        make_files_table(args.root, args.count)
    print(f"{args.root}: {time.perf_counter() - began:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
