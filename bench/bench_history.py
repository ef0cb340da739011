"""Benchmark: open a 10,000-commit table and build its full history.

Run from the repository root::

    .venv/bin/python bench/bench_history.py [--commits 10000] [--repeat 5] [--keep PATH]

It builds a Spark-shaped table (a streaming job appending once a minute: commitInfo,
txn and add actions with stats per commit, an OPTIMIZE every 100 commits, a ``.crc``
file per commit, a classic checkpoint every 1,000 versions written by deltalake),
then measures, each in a fresh process:

* cold: ``DeltaLog.open`` + ``build_history`` (this project) vs ``DeltaTable(path)``
  + ``.history()`` (deltalake 1.6.6, the baseline), and the ratio;
* warm: one more commit, then ``log.refresh()`` + ``build_history`` vs cold
  (and deltalake's ``update_incremental()`` + ``history()``);
* the snapshot at the latest version (checkpoint + commits after it);
* peak memory (max RSS) above the process's size after imports.

Each figure is the best of ``--repeat`` runs (wall clock and CPU time), with the two
readers interleaved, because the machine may be shared.

Data files are not written: the benchmark is about the log.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

ENGINE = "Apache-Spark/3.5.1 Delta-Lake/3.2.0"
MINUTE_MS = 60_000
OPTIMIZE_EVERY = 100
CHECKPOINT_EVERY = 1000
SCHEMA = {
    "type": "struct",
    "fields": [
        {"name": n, "type": t, "nullable": True, "metadata": {}}
        for n, t in (
            ("event_id", "long"),
            ("user_id", "long"),
            ("event_type", "string"),
            ("amount", "decimal(12,2)"),
            ("event_time", "timestamp"),
            ("event_date", "date"),
        )
    ],
}


# --- building the table --------------------------------------------------------------


class SparkLikeLog:
    """Writes commit files shaped like a Spark Structured Streaming job's, fast.

    Args:
        root: The table root to create.
        start_ms: The time of commit 0; each commit comes one minute later.
    """

    def __init__(self, root: str, start_ms: int) -> None:
        self.root, self.start_ms = root, start_ms
        self.log = os.path.join(root, "_delta_log")
        self.rng = random.Random(7)
        self.query_id = str(uuid.UUID(int=self.rng.getrandbits(128)))
        self.pending: list[dict] = []  # small files since the last OPTIMIZE
        self.live_bytes, self.live_files = 0, 0
        os.makedirs(self.log, exist_ok=True)

    def write(self, version: int) -> None:
        """Write commit ``version`` (and its .crc), dated one minute after the previous one."""
        ts = self.start_ms + version * MINUTE_MS
        if version == 0:
            actions = self._create(ts)
        elif version % OPTIMIZE_EVERY == 0:
            actions = self._optimize(version, ts)
        else:
            actions = self._append(version, ts)
        path = os.path.join(self.log, f"{version:020d}.json")
        with open(path, "w") as fh:
            fh.writelines(json.dumps(a, separators=(",", ":")) + "\n" for a in actions)
        crc = {
            "tableSizeBytes": self.live_bytes,
            "numFiles": self.live_files,
            "numMetadata": 1,
            "numProtocol": 1,
            "txnId": str(uuid.uuid4()),
        }
        crc_path = os.path.join(self.log, f"{version:020d}.crc")
        with open(crc_path, "w") as fh:
            json.dump(crc, fh)
        for p in (path, crc_path):
            os.utime(p, (ts / 1000, ts / 1000))

    def _info(self, ts: int, version: int, operation: str, params: dict, metrics: dict) -> dict:
        info = {
            "timestamp": ts,
            "operation": operation,
            "operationParameters": params,
            "readVersion": version - 1,
            "isolationLevel": "Serializable",
            "isBlindAppend": operation != "OPTIMIZE",
            "operationMetrics": metrics,
            "engineInfo": ENGINE,
            "txnId": str(uuid.UUID(int=self.rng.getrandbits(128))),
        }
        if version == 0:
            del info["readVersion"]
        return {"commitInfo": info}

    def _create(self, ts: int) -> list[dict]:
        meta = {
            "id": str(uuid.UUID(int=self.rng.getrandbits(128))),
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps(SCHEMA),
            "partitionColumns": ["event_date"],
            "configuration": {"delta.checkpointInterval": str(CHECKPOINT_EVERY)},
            "createdTime": ts,
        }
        return [
            self._info(
                ts,
                0,
                "CREATE TABLE",
                {
                    "isManaged": "false",
                    "description": None,
                    "partitionBy": '["event_date"]',
                    "properties": "{}",
                },
                {},
            ),
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": meta},
        ]

    def _append(self, version: int, ts: int) -> list[dict]:
        adds = [self._add(version, ts, part) for part in range(self.rng.choice((1, 1, 2)))]
        rows = sum(json.loads(a["add"]["stats"])["numRecords"] for a in adds)
        metrics = {
            "numRemovedFiles": "0",
            "numOutputRows": str(rows),
            "numAddedFiles": str(len(adds)),
            "numOutputBytes": str(sum(a["add"]["size"] for a in adds)),
        }
        params = {"outputMode": "Append", "queryId": self.query_id, "epochId": str(version)}
        txn = {"txn": {"appId": self.query_id, "version": version, "lastUpdated": ts}}
        return [self._info(ts, version, "STREAMING UPDATE", params, metrics), txn, *adds]

    def _add(self, version: int, ts: int, part: int, rows: int | None = None) -> dict:
        rows = rows or self.rng.randint(500, 5000)
        day = time.strftime("%Y-%m-%d", time.gmtime(ts / 1000))
        first = version * 10_000 + part * 5000
        stats = {
            "numRecords": rows,
            "minValues": {
                "event_id": first,
                "user_id": 1,
                "event_type": "click",
                "amount": 0.5,
                "event_time": f"{day}T00:00:00.000Z",
            },
            "maxValues": {
                "event_id": first + rows - 1,
                "user_id": 99_999,
                "event_type": "view",
                "amount": 999.99,
                "event_time": f"{day}T23:59:59.999Z",
            },
            "nullCount": {
                "event_id": 0,
                "user_id": 0,
                "event_type": 0,
                "amount": 3,
                "event_time": 0,
            },
        }
        add = {
            "path": f"event_date={day}/part-{part:05d}-{uuid.UUID(int=self.rng.getrandbits(128))}"
            f".c000.snappy.parquet",
            "partitionValues": {"event_date": day},
            "size": rows * 23 + 1500,
            "modificationTime": ts,
            "dataChange": True,
            "stats": json.dumps(stats),
        }
        self.pending.append(add)
        self.live_files, self.live_bytes = self.live_files + 1, self.live_bytes + add["size"]
        return {"add": add}

    def _optimize(self, version: int, ts: int) -> list[dict]:
        """Compact the small files since the last OPTIMIZE into one file per partition."""
        small, self.pending = self.pending, []
        from tablegen import compaction_removes  # the generator's (pyarrow): not in the children

        removes = compaction_removes(small, ts)
        self.live_files -= len(small)
        self.live_bytes -= sum(a["size"] for a in small)
        adds = []
        for part, day in enumerate(sorted({a["partitionValues"]["event_date"] for a in small})):
            rows = sum(
                json.loads(a["stats"])["numRecords"]
                for a in small
                if a["partitionValues"]["event_date"] == day
            )
            add = self._add(version, ts, part, rows)
            add["add"]["dataChange"] = False
            adds.append(add)
        self.pending = []  # compacted files are not small
        metrics = {"numRemovedFiles": str(len(removes)), "numAddedFiles": str(len(adds))}
        params = {"predicate": "[]", "zOrderBy": "[]", "auto": "false"}
        return [self._info(ts, version, "OPTIMIZE", params, metrics), *removes, *adds]


def build_table(root: str, commits: int) -> float:
    """Write a table with ``commits`` commits and a checkpoint every 1,000 versions.

    Returns:
        Seconds spent writing checkpoints (deltalake's ``create_checkpoint``).
    """
    from deltalake import DeltaTable

    day_ms = 24 * 60 * MINUTE_MS  # start at a midnight so every run has the same partitions
    start_ms = (int(time.time() * 1000) - (commits + 10) * MINUTE_MS) // day_ms * day_ms
    log, checkpoint_seconds = SparkLikeLog(root, start_ms), 0.0
    for version in range(commits):
        log.write(version)
        if version and version % CHECKPOINT_EVERY == 0:
            began = time.perf_counter()
            DeltaTable(root).create_checkpoint()
            checkpoint_seconds += time.perf_counter() - began
    return checkpoint_seconds


def append_one_commit(root: str) -> str:
    """Append one streaming commit after the latest; return its path (to remove it later)."""
    versions = [
        int(n[:20])
        for n in os.listdir(os.path.join(root, "_delta_log"))
        if n.endswith(".json") and len(n) == 25
    ]
    version = max(versions) + 1
    log = SparkLikeLog(root, int(time.time() * 1000) - version * MINUTE_MS)
    log.write(version)
    return os.path.join(log.log, f"{version:020d}")


# --- measuring (each in a fresh process) ------------------------------------------------


def _peak_mb() -> float:
    """This process's peak resident memory. Not ru_maxrss: a child started by a big
    parent inherits the parent's figure across fork + exec; VmHWM starts afresh."""
    with open("/proc/self/status") as fh:
        line = next(line for line in fh if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


class Timer:
    """Wall-clock and CPU seconds of a block (CPU counts every thread of the process)."""

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def figures(self, name: str) -> dict:
        """``{name: wall seconds, name_cpu: CPU seconds}``."""
        return {name: self.wall, f"{name}_cpu": self.cpu}


def measure_ours(root: str) -> dict:
    """Cold open + history, snapshot at latest, then a warm refresh after one more commit."""
    from inspector.log.deltalog import DeltaLog
    from inspector.settings import Settings
    from inspector.table.history import build_history

    base = _peak_mb()
    with Timer() as cold:
        log = DeltaLog.open(root)
        history = build_history(log, Settings())
    with Timer() as snap:
        snapshot = log.snapshot()

    def refresh() -> list:
        log.refresh()
        return build_history(log, Settings())

    return _with_warm_figures(root, base, cold, snap, history, refresh, lambda: snapshot.num_files)


def measure_deltalake(root: str) -> dict:
    """The baseline: ``DeltaTable(path).history()``, then ``update_incremental()`` + ``history()``."""
    from deltalake import DeltaTable

    base = _peak_mb()
    with Timer() as cold:
        with Timer() as snap:
            table = DeltaTable(root)
        history = table.history()

    def refresh() -> list:
        table.update_incremental()
        return table.history()

    files = lambda: len(table.file_uris())  # noqa: E731 - counted after the refresh
    return _with_warm_figures(root, base, cold, snap, history, refresh, files)


def _with_warm_figures(
    root: str,
    base: float,
    cold: Timer,
    snap: Timer,
    history: list,
    refresh: Callable[[], list],
    files: Callable[[], int],
) -> dict:
    """Time ``refresh()`` (the history again) after one more commit, then every figure.

    The commit is removed again afterwards, so the next run finds the table as built.
    """
    added = append_one_commit(root)
    try:
        with Timer() as warm:
            warm_history = refresh()
    finally:
        for suffix in (".json", ".crc"):
            os.remove(added + suffix)
    assert len(warm_history) == len(history) + 1
    return {
        **cold.figures("cold"),
        **snap.figures("snapshot"),
        **warm.figures("warm"),
        "versions": len(history),
        "files": files(),
        "memory": _peak_mb() - base,
    }


def run_child(which: str, root: str) -> dict:
    """Run one measurement in a fresh Python process and return its figures."""
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", which, root],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if out.returncode:
        raise SystemExit(f"The {which} measurement failed:\n{out.stderr}")
    return json.loads(out.stdout)


# --- reporting ------------------------------------------------------------------------


def best_of(runs: list[dict]) -> dict:
    """The best (smallest) figure over repeated runs: the least disturbed by other load."""
    return {key: min(run[key] for run in runs) for key in runs[0]}


def report(
    commits: int, build_s: float, checkpoint_s: float, ours: dict, theirs: dict, repeat: int
) -> None:
    """Print the figures and ratios as a small Markdown table."""
    print(
        f"\nTable: {commits} commits ({ours['versions']} versions read by both), "
        f"{ours['files']} live files at the latest version; built in {build_s:.1f} s "
        f"(of which deltalake checkpoints {checkpoint_s:.1f} s). Best of {repeat} fresh processes "
        f"per reader, interleaved; {os.cpu_count()} CPUs.\n"
    )
    rows = [
        ("cold: open + full history", "cold"),
        ("snapshot at latest version", "snapshot"),
        ("warm: 1 new commit, refresh + full history", "warm"),
    ]
    print(
        "| measurement | this project | deltalake 1.6.6 | ratio | CPU: this project | CPU: deltalake | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, key in rows:
        cells = []
        for k in (key, f"{key}_cpu"):
            cells += [
                f"{ours[k] * 1000:,.0f} ms",
                f"{theirs[k] * 1000:,.0f} ms",
                f"{ours[k] / theirs[k]:.2f}",
            ]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(
        f"| peak memory above imports | {ours['memory']:.0f} MB | {theirs['memory']:.0f} MB "
        f"| {ours['memory'] / max(theirs['memory'], 1):.2f} | | | |"
    )
    print(
        f"\nRatios are this project / deltalake (below 1: this project is faster). "
        f"Warm / cold for this project: {ours['warm'] / ours['cold']:.2f}."
    )
    print(
        "deltalake's snapshot is DeltaTable(path) (its load at the latest version), part of its cold time; "
        "this project's is log.snapshot() after the open."
    )


def main(argv: list[str] | None = None) -> int:
    """Build the table, measure both readers, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument(
        "--repeat", type=int, default=5, help="Fresh processes per reader (best of)."
    )
    parser.add_argument(
        "--keep", help="Build the table here and keep it (default: a temp dir, removed)."
    )
    parser.add_argument("--child", nargs=2, metavar=("READER", "TABLE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        which, root = args.child
        print(json.dumps(measure_ours(root) if which == "ours" else measure_deltalake(root)))
        return 0
    root = args.keep or os.path.join(tempfile.mkdtemp(prefix="bench-history-"), "table")
    try:
        began = time.perf_counter()
        checkpoint_s = build_table(root, args.commits)
        build_s = time.perf_counter() - began
        theirs, ours = [], []
        for _ in range(args.repeat):  # interleaved, so changing load hits both alike
            theirs.append(run_child("deltalake", root))
            ours.append(run_child("ours", root))
        report(args.commits, build_s, checkpoint_s, best_of(ours), best_of(theirs), args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
