"""Benchmark: Delta Lake's own engine against Delta Inspector's and deltalake's.

Run from the repository root (needs the jar cache ``./dev.sh`` fills)::

    .venv/bin/python bench/bench_delta_engine.py [--repeat 3] [--rows 200000] [--commits 20]

A partitioned table of ``--commits`` appends plus a DELETE and an UPDATE is written with
deltalake. Then, in this one process with one warm Spark session:

- **preview**: the first 100 rows of version ``commits // 2`` through Delta's reader
  (``versionAsOf``), through Delta Inspector's own reader, and through deltalake
  (``DeltaTable(path, version=v).to_pyarrow_dataset().head(100)``);
- **restore** to version 1 on a fresh copy each time: Delta's ``RESTORE TABLE`` (through
  Delta Inspector's guarded restore), Delta Inspector's own commit writer, and deltalake's
  ``DeltaTable.restore``. Both guarded restores include the plan, guards and verification.

Medians of ``--repeat`` runs; ratios against deltalake, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def _write(root: str, rows: int, commits: int) -> None:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    per = rows // commits
    for c in range(commits):
        ids = list(range(c * per, (c + 1) * per))
        data = pa.table({"id": ids, "region": [("eu", "us", "apac")[i % 3] for i in ids], "x": ids})
        write_deltalake(root, data, partition_by=["region"], mode="append")
    DeltaTable(root).delete("id % 11 = 0")
    DeltaTable(root).update(updates={"x": "x * 2"}, predicate="region = 'eu'")


def _median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--commits", type=int, default=20)
    args = parser.parse_args()

    from deltalake import DeltaTable

    from inspector.log.deltalog import DeltaLog
    from inspector.restore import RestoreRequest
    from inspector.restore.execute import execute_restore, plan_restore
    from inspector.rows.reader import read_snapshot
    from inspector.rows.session import get_spark
    from inspector.settings import Settings

    work = tempfile.mkdtemp(prefix="delta-inspector-bench-engine-")
    source = os.path.join(work, "source")
    _write(source, args.rows, args.commits)
    version = args.commits // 2
    delta, own = Settings(), Settings(spark_engine="own")
    spark = get_spark(delta)
    snapshot = DeltaLog.open(source).snapshot(version)

    def preview(settings: Settings) -> Callable[[], object]:
        return lambda: (
            get_spark(settings),
            read_snapshot(snapshot, spark=spark).limit(100).collect(),
        )

    results = {
        "preview: Delta's reader": _median(preview(delta), args.repeat),
        "preview: own reader": _median(preview(own), args.repeat),
        "preview: deltalake": _median(
            lambda: DeltaTable(source, version=version).to_pyarrow_dataset().head(100),
            args.repeat,
        ),
    }
    copies = iter(range(10_000))

    def fresh() -> str:
        target = os.path.join(work, f"copy-{next(copies)}")
        shutil.copytree(source, target)
        return target

    def guarded(settings: Settings) -> Callable[[], object]:
        def run() -> object:
            get_spark(settings)
            audit = Settings(spark_engine=settings.spark_engine, audit_log=os.path.join(work, "a"))
            plan = plan_restore(DeltaLog.open(fresh()), 1, settings=audit, spark=spark)
            request = RestoreRequest(
                plan=plan,
                typed_table_name=plan.table_name,
                typed_version="1",
                reason="bench",
            )
            return execute_restore(request, settings=audit, spark=spark)

        return run

    results["restore: Delta's RESTORE (guarded)"] = _median(guarded(delta), args.repeat)
    results["restore: own writer (guarded)"] = _median(guarded(own), args.repeat)
    results["restore: deltalake"] = _median(lambda: DeltaTable(fresh()).restore(1), args.repeat)
    base = {k.split(":")[0]: v for k, v in results.items() if k.endswith("deltalake")}
    for name, seconds in results.items():
        ratio = seconds / base[name.split(":")[0]]
        print(f"{name:40s} {seconds:8.3f} s  {ratio:6.1f}x deltalake")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
