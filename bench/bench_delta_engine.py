"""Benchmark: Delta Inspector's cost on top of Delta Lake on Spark, and deltalake beside it.

Run from the repository root (needs the jar cache ``./dev.sh`` fills)::

    .venv/bin/python bench/bench_delta_engine.py [--repeat 5] [--rows 200000] [--commits 20]

A partitioned table of ``--commits`` appends plus a DELETE and an UPDATE is written with
deltalake. Then, in this one process with one warm Spark session (local mode, the jars on
the class path):

- **preview** of version ``commits // 2``, as ``show`` builds it (``build_preview``: the
  first 100 rows and the exact row count, read by Delta), against the bare Delta read in
  the same session (``versionAsOf``: ``limit(100)`` and ``count()``) and deltalake
  reading the same (``DeltaTable(path, version=v).to_pyarrow_dataset()``: ``head(100)``
  and ``count_rows()``);
- **restore** to version 1 on a fresh copy each time (the copy is not timed): the guarded
  restore (open, plan, guards, Delta's ``RESTORE TABLE``, verification, audit) against
  the bare ``RESTORE TABLE`` plus one verification read (``count()`` of the new version),
  and deltalake's ``DeltaTable.restore`` alone.

The three sides run interleaved, ``--repeat`` times after one untimed warm-up round; the
figures are medians, with ratios against deltalake (the baseline) measured in the same run,
and the machine's 1-minute load average before and after each block.
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

#: A side of a block: its name and a function that returns the untimed setup's timed step.
Side = tuple[str, Callable[[], Callable[[], object]]]


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


def _block(title: str, sides: list[Side], repeat: int) -> None:
    """Time the sides interleaved; print medians, ratios to the last side, and the load."""
    times: dict[str, list[float]] = {name: [] for name, _ in sides}
    load_before = os.getloadavg()[0]
    for round_ in range(repeat + 1):
        for name, setup in sides:
            step = setup()
            start = time.perf_counter()
            step()
            if round_:  # round 0 warms the JVM's code paths up
                times[name].append(time.perf_counter() - start)
    load_after = os.getloadavg()[0]
    base = statistics.median(times[sides[-1][0]])
    print(f"\n{title} (load average {load_before:.1f} before, {load_after:.1f} after)")
    for name, samples in times.items():
        median = statistics.median(samples)
        every = " ".join(f"{s:.2f}" for s in samples)
        print(f"  {name:34s} {median:7.3f} s  {median / base:6.1f}x  [{every}]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--commits", type=int, default=20)
    args = parser.parse_args()

    from deltalake import DeltaTable

    from inspector.restore import RestoreRequest, execute_restore, plan_restore
    from inspector.rows.preview import build_preview
    from inspector.rows.session import get_spark
    from inspector.settings import Settings
    from inspector.table import open_table

    work = tempfile.mkdtemp(prefix="delta-inspector-bench-engine-")
    source = os.path.join(work, "source")
    _write(source, args.rows, args.commits)
    version = args.commits // 2
    audit = os.path.join(work, "audit.jsonl")
    delta = Settings(audit_log=audit)
    started = time.perf_counter()
    spark = get_spark(delta)
    print(f"Spark started in {time.perf_counter() - started:.1f} s; Delta {spark.version}")
    log = open_table(source, Settings()).log

    def preview() -> Callable[[], object]:
        return lambda: build_preview(log, version, settings=delta, limit=100, spark=spark)

    def bare_read() -> object:
        df = spark.read.format("delta").option("versionAsOf", version).load(source)
        return df.limit(100).toArrow(), df.count()

    def deltalake_preview() -> object:
        dataset = DeltaTable(source, version=version).to_pyarrow_dataset()
        return dataset.head(100), dataset.count_rows()

    _block(
        f"preview of version {version}: first 100 rows and the exact count",
        [
            ("show (build_preview)", preview),
            ("bare versionAsOf read", lambda: bare_read),
            ("deltalake", lambda: deltalake_preview),
        ],
        args.repeat,
    )
    copies = iter(range(10_000))

    def fresh() -> str:
        target = os.path.join(work, f"copy-{next(copies)}")
        shutil.copytree(source, target)
        return target

    def guarded() -> Callable[[], object]:
        table = fresh()

        def run() -> object:
            plan = plan_restore(open_table(table, delta), 1, settings=delta)
            request = RestoreRequest(
                plan=plan, typed_table_name=plan.table_name, typed_version="1", reason="bench"
            )
            result = execute_restore(request, settings=delta, spark=spark)
            assert result.verification.ok, result.verification
            return result

        return run

    def bare_restore() -> Callable[[], object]:
        table = fresh()

        def run() -> object:
            spark.sql(f"RESTORE TABLE delta.`{table}` TO VERSION AS OF 1")
            return spark.read.format("delta").load(table).count()

        return run

    def deltalake_restore() -> Callable[[], object]:
        table = DeltaTable(fresh())
        return lambda: table.restore(1)

    _block(
        "restore to version 1 (a fresh copy each time, not timed)",
        [
            ("guarded restore (Delta's RESTORE)", guarded),
            ("bare RESTORE TABLE + count", bare_restore),
            ("deltalake restore", deltalake_restore),
        ],
        args.repeat,
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
