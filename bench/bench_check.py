"""Benchmark: a full health check of a table with 10,000 versions and 50,000 files.

Run from the repository root::

    .venv/bin/python bench/bench_check.py [--commits 10000] [--files-per-commit 5]
        [--missing 5] [--samples 50] [--naive-all] [--keep PATH]

It writes a table shaped like a streaming sink without compaction: commit 0
creates the table, every commit appends ``--files-per-commit`` files to a daily
partition (10,000 x 5 = 50,000 files, all live at the latest version). Data files
are sparse files (``os.truncate``) of the size the log records: the check only
stats them. Replication then "loses" ``--missing`` files of the newest 100
commits, so the last consistent version is a little before the latest.

It measures, in the same run:

* ours: ``check_table(log, all_versions=True)``: one forward replay, each distinct
  file stat'ed once (in parallel, ``check_workers``), versions evaluated
  incrementally; also with one worker, and the fast (latest-only) check; on this plain
  log the every-version check runs the Arrow trace (``health/allversions.py``);
* naive: for each version, ``log.snapshot(v)`` then ``os.stat`` of every live file.
  Checking every version that way means about 250 million stat calls, so by
  default it runs on ``--samples`` evenly spaced versions and extrapolates
  (mean time per sampled version x number of versions); ``--naive-all`` runs it
  on every version instead. The sampled verdicts are compared with ours.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from inspector.delta.paths import data_file_path  # noqa: E402
from inspector.health import check_table  # noqa: E402
from inspector.log.deltalog import DeltaLog  # noqa: E402
from inspector.settings import Settings  # noqa: E402

DAY_MS, MINUTE_MS = 86_400_000, 60_000
COMMITS_PER_DAY = 100
SCHEMA = json.dumps(
    {
        "type": "struct",
        "fields": [
            {"name": n, "type": t, "nullable": True, "metadata": {}}
            for n, t in (("event_id", "long"), ("amount", "double"), ("date", "date"))
        ],
    }
)


def write_table(root: str, commits: int, per_commit: int, seed: int = 7) -> list[str]:
    """Write the table; returns every data file's relative path, in commit order."""
    rng = random.Random(seed)
    log = os.path.join(root, "_delta_log")
    os.makedirs(log)
    start, paths = 1_700_000_000_000, []
    for version in range(commits):
        now = start + version * MINUTE_MS
        day = f"2024-01-01+{version // COMMITS_PER_DAY:03d}"
        lines = [
            {
                "commitInfo": {
                    "timestamp": now,
                    "operation": "STREAMING UPDATE",
                    "operationParameters": {"outputMode": "Append", "epochId": str(version)},
                    "readVersion": version - 1,
                    "isBlindAppend": True,
                }
            }
        ]
        if version == 0:
            lines += [
                {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
                {
                    "metaData": {
                        "id": str(uuid.UUID(int=rng.getrandbits(128))),
                        "format": {"provider": "parquet", "options": {}},
                        "schemaString": SCHEMA,
                        "partitionColumns": ["date"],
                        "configuration": {},
                        "createdTime": now,
                    }
                },
            ]
        for i in range(per_commit):
            rel = (
                f"date={day}/part-{i:05d}-{uuid.UUID(int=rng.getrandbits(128))}.c000.snappy.parquet"
            )
            size = rng.randint(256 * 1024, 4 * 1024 * 1024)
            _sparse_file(os.path.join(root, rel), size)
            stats = {"numRecords": size // 64, "minValues": {}, "maxValues": {}, "nullCount": {}}
            lines.append(
                {
                    "add": {
                        "path": rel,
                        "partitionValues": {"date": day},
                        "size": size,
                        "modificationTime": now,
                        "dataChange": True,
                        "stats": json.dumps(stats, separators=(",", ":")),
                    }
                }
            )
            paths.append(rel)
        with open(os.path.join(log, f"{version:020d}.json"), "w") as fh:
            # compact, as Spark and delta-rs write commits (the bulk reads expect that spelling)
            fh.write("\n".join(json.dumps(line, separators=(",", ":")) for line in lines) + "\n")
    return paths


def _sparse_file(path: str, size: int) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.truncate(size)


def naive_check(root: str, versions: list[int]) -> tuple[float, int, dict[int, int]]:
    """The obvious check: rebuild each version's snapshot and stat every file it has.

    Returns:
        (seconds, stat calls, missing files by version).
    """
    log = DeltaLog.open(root)
    stats, missing = 0, {}
    started = time.perf_counter()
    for version in versions:
        snap = log.snapshot(version)
        lost = 0
        for add in snap.files.values():
            stats += 1
            try:
                if os.stat(data_file_path(snap.table_root, add.path)).st_size != add.size:
                    lost += 1
            except FileNotFoundError:
                lost += 1
        missing[version] = lost
    return time.perf_counter() - started, stats, missing


def timed_check(root: str, check=check_table, **kwargs):
    started = time.perf_counter()
    log = DeltaLog.open(root)
    opened, cpu = time.perf_counter(), time.process_time()
    report = check(log, **kwargs)
    CPU.append(time.process_time() - cpu)  # this process's CPU (all threads) for the check
    return opened - started, time.perf_counter() - opened, report


CPU: list[float] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--files-per-commit", type=int, default=5)
    parser.add_argument(
        "--missing", type=int, default=5, help="Files of the newest 100 commits to delete."
    )
    parser.add_argument("--samples", type=int, default=50, help="Versions the naive check runs on.")
    parser.add_argument(
        "--naive-all", action="store_true", help="Run the naive check on every version."
    )
    parser.add_argument(
        "--keep", help="Write the table here and keep it (default: a temp dir, removed)."
    )
    args = parser.parse_args()

    root = args.keep or os.path.join(tempfile.mkdtemp(prefix="bench-check-"), "table")
    if os.path.exists(root):
        shutil.rmtree(root)
    started = time.perf_counter()
    paths = write_table(root, args.commits, args.files_per_commit)
    newest = paths[-100 * args.files_per_commit :]
    for rel in random.Random(11).sample(newest, min(args.missing, len(newest))):
        os.unlink(os.path.join(root, rel))
    print(
        f"table: {args.commits:,} versions, {len(paths):,} data files "
        f"({args.missing} lost by 'replication'), written in {time.perf_counter() - started:.1f} s"
    )
    try:
        _measure(root, args)
    finally:
        if not args.keep:
            shutil.rmtree(os.path.dirname(root))


def _measure(root: str, args) -> None:
    workers = Settings().check_workers
    open_s, ours_s, report = timed_check(root, all_versions=True, settings=Settings())
    _, ours_1w_s, _ = timed_check(root, all_versions=True, settings=Settings(check_workers=1))
    _, fast_s, fast = timed_check(root, settings=Settings())
    full_cpu, one_cpu, fast_cpu = CPU[-3:]
    print(
        f"ours, full check ({workers} workers): {ours_s:.2f} s wall, {full_cpu:.2f} s CPU "
        f"(+ {open_s:.2f} s to open the log), "
        f"{report.files_examined:,} files examined (one stat each)"
    )
    print(f"ours, full check (1 worker):  {ours_1w_s:.2f} s wall, {one_cpu:.2f} s CPU")
    print(
        f"ours, fast check (latest, then all because it is incomplete): {fast_s:.2f} s wall, "
        f"{fast_cpu:.2f} s CPU"
    )
    print(
        f"  latest {report.latest_version}, last consistent {report.last_consistent_version}, "
        f"{len(report.damaged_versions):,} versions incomplete, {report.orphan_files} orphans"
    )

    versions = [v.version for v in report.versions]
    if args.naive_all:
        sample = versions
    else:
        step = max(1, len(versions) // args.samples)
        sample = versions[::step]
    naive_s, naive_stats, naive_missing = naive_check(root, sample)
    ours_missing = {v.version: v.missing_count for v in report.versions}
    assert all(naive_missing[v] == ours_missing[v] for v in sample), "naive and ours disagree"
    total_stats = sum(args.files_per_commit * (v + 1) for v in versions)
    if args.naive_all:
        naive_total, how = naive_s, "measured"
    else:
        naive_total = naive_s / len(sample) * len(versions)
        how = f"extrapolated from {len(sample)} evenly spaced versions ({naive_s:.1f} s, {naive_stats:,} stats)"
    print(
        f"naive, per-version snapshot + stat: {naive_total:,.0f} s, {total_stats:,} stat calls ({how})"
    )
    print(
        f"ratio: ours is {naive_total / ours_s:,.0f}x faster and makes "
        f"{total_stats / report.files_examined:,.0f}x fewer stat calls; verdicts agree on the sample"
    )


if __name__ == "__main__":
    main()
