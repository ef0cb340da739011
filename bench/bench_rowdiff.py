"""Benchmark: the row diff of two adjacent versions where one commit rewrote one file.

Run from the repository root::

    .venv/bin/python bench/bench_rowdiff.py [--rows 1200000] [--target-file-size 6144]
        [--repeat 3] [--keep PATH]

It writes (with deltalake) one unpartitioned table of ``--rows`` rows in small
files (at least 1,000 of them), then one DELETE that removes 10 rows, which
copy-on-write rewrites as one file. Then, in the same Spark session, it measures:

* ours: ``diff_rows(log, 0, 1)``: the file diff from the log (no Spark), then
  Delta's own scan reads only the two changed files (``read_files``); counts plus a
  page of samples;
* path filter: the same two files picked with a filter on ``_metadata.file_path`` of
  the two versions' Delta reads (Delta prunes no file on it: every file is opened);
* naive: ``read_snapshot(v0).exceptAll(read_snapshot(v1)).count()`` and the
  other way round: two full time-travel reads compared with EXCEPT ALL.

Each is run once to warm up, then ``--repeat`` times; the median is reported.
Both must find the same counts (10 removed, 0 added).

``--tables A B ... --from 2 --to 3`` instead measures only ``diff_rows`` between the same
two versions of tables of different sizes with the same change (``bench/tablegen.py
files N``: its DELETE at version 3 removes 2,000 files at any N >= 10,000), interleaved,
so whether its cost follows the change and not the table shows as a ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.timing import interleaved, step  # noqa: E402
from inspector.diff.filediff import diff_files  # noqa: E402
from inspector.log.deltalog import DeltaLog  # noqa: E402
from inspector.rows.delta_engine import read_snapshot  # noqa: E402
from inspector.rows.rowdiff import diff_rows  # noqa: E402
from inspector.rows.session import get_spark  # noqa: E402
from inspector.settings import Settings  # noqa: E402


def write_table(root: str, rows: int, target_file_size: int) -> None:
    """Version 0: ``rows`` rows in many small files; version 1: a DELETE of 10 rows (one file)."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    data = pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "amount": pa.array([float(i % 977) for i in range(rows)]),
            "note": pa.array([f"row {i}" for i in range(rows)]),
        }
    )
    write_deltalake(root, data, target_file_size=target_file_size)
    middle = rows // 2
    DeltaTable(root).delete(f"id >= {middle} and id < {middle + 10}")


def timed(fn, repeat: int) -> tuple[float, object]:
    """(median seconds over ``repeat`` runs after one warm-up run, last result)."""
    timings = interleaved({"run": step(fn)}, repeat)
    return statistics.median(timings.seconds["run"]), timings.last["run"]


def compare_sizes(tables: list[str], start: int, end: int, repeat: int) -> int:
    """``diff_rows(start, end)`` on each table, interleaved: medians, and each against the first."""
    spark = get_spark(Settings())
    logs = {t: DeltaLog.open(t) for t in tables}
    timings = interleaved(
        {
            t: step(lambda log=log: diff_rows(log, start, end, spark=spark, settings=Settings()))
            for t, log in logs.items()
        },
        repeat,
    )
    runs, results = timings.seconds, timings.last
    base = statistics.median(runs[tables[0]])
    print(f"{'table':<40} {'files':>9} {'files read':>10} {'median':>9} {'ratio':>6}")
    for t in tables:
        median = statistics.median(runs[t])
        diff = results[t]
        print(
            f"{t:<40} {logs[t].snapshot(end).num_files:>9,} {diff.files_read:>10,} "
            f"{median:>8.2f}s {median / base:>6.2f}   (+{diff.added:,} / -{diff.removed:,} rows)"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_200_000)
    parser.add_argument("--target-file-size", type=int, default=6 * 1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="Write the table here and keep it.")
    parser.add_argument("--tables", nargs="+", help="Existing tables to compare (see above).")
    parser.add_argument("--from", dest="start", type=int, default=2)
    parser.add_argument("--to", dest="end", type=int, default=3)
    args = parser.parse_args()
    if args.tables:
        return compare_sizes(args.tables, args.start, args.end, args.repeat)

    root = args.keep or os.path.join(tempfile.mkdtemp(prefix="bench-rowdiff-"), "table")
    if not os.path.exists(root):
        start = time.perf_counter()
        write_table(root, args.rows, args.target_file_size)
        print(f"wrote {root} in {time.perf_counter() - start:.1f} s")
    log = DeltaLog.open(root)
    files = diff_files(log, 0, 1)
    print(
        f"version 0: {log.snapshot(0).num_files:,} files, {log.snapshot(0).num_records:,} rows; "
        f"version 1 rewrote {len(files.only_in_from)} file(s) into {len(files.only_in_to)}"
    )
    assert log.snapshot(0).num_files >= 1000, "use a smaller --target-file-size"

    spark = get_spark(Settings())
    file_diff_s, _ = timed(lambda: diff_files(log, 0, 1), args.repeat)
    ours_s, ours = timed(
        lambda: diff_rows(log, 0, 1, spark=spark, settings=Settings()), args.repeat
    )

    def naive():
        a, b = (
            read_snapshot(log.snapshot(0), spark=spark),
            read_snapshot(log.snapshot(1), spark=spark),
        )
        return b.exceptAll(a).count(), a.exceptAll(b).count()

    naive_s, (naive_added, naive_removed) = timed(naive, args.repeat)

    def path_filter():
        from pyspark.sql import functions as F

        def side(version, adds):
            wanted = [f"file:{os.path.abspath(root)}/{a.path}" for a in adds]
            df = read_snapshot(log.snapshot(version), spark=spark)
            return df.where(F.col("_metadata.file_path").isin(wanted))

        a, b = side(0, files.only_in_from), side(1, files.only_in_to)
        return b.exceptAll(a).count(), a.exceptAll(b).count()

    filter_s, filtered = timed(path_filter, args.repeat)
    assert filtered == (0, 10), filtered
    assert (ours.added, ours.removed) == (naive_added, naive_removed) == (0, 10), (
        ours,
        naive_added,
    )

    print(f"{'method':<52} {'median time':>12}")
    print(f"{'file diff only (log, no Spark)':<52} {file_diff_s * 1000:>10.1f} ms")
    print(
        f"{'ours: diff_rows (reads the 2 changed files)':<52} {ours_s:>10.2f} s"
        f"   ({ours.files_read} files, {ours.bytes_read:,} bytes)"
    )
    print(f"{'path filter: _metadata.file_path of both versions':<52} {filter_s:>10.2f} s")
    print(
        f"{'naive: full snapshots, exceptAll both ways':<52} {naive_s:>10.2f} s"
        f"   (4 reads of ~{log.snapshot(0).num_files:,} files, {log.snapshot(0).size_in_bytes:,} bytes)"
    )
    print(
        f"ratio: ours is {naive_s / ours_s:.1f}x faster; both found {ours.removed} removed, "
        f"{ours.added} added rows"
    )
    if not args.keep:
        shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
