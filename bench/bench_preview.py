"""Benchmark: time to a preview's first rows and to its exact row count on a ~1 GB table.

Local Spark (Delta Lake's reader, ``versionAsOf``) against deltalake reading the same
version, in the same run:

    .venv/bin/python bench/bench_preview.py [--size-mb 1000] [--out bench/out/preview-table]

The table (about 100 files of about 10 MB, partitioned by ``day``, one append per
file, so 100 versions) is written with deltalake on first use and reused after.
Timings are wall-clock seconds; "cold" is the first query after Spark started,
"warm" a repeat. Ratios are Spark / deltalake (lower is better for Spark). The exact
count is what the preview runs without a filter (Delta answers it from the log's
statistics where it can); with a filter Spark scans every row.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, write_deltalake

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.log.deltalog import DeltaLog  # noqa: E402
from inspector.rows.delta_engine import read_snapshot  # noqa: E402
from inspector.rows.session import get_spark  # noqa: E402
from inspector.settings import Settings  # noqa: E402

ROWS_PER_FILE = 330_000  # about 10 MB of Parquet with the columns below
PREVIEW_ROWS = Settings().preview_rows
FILTER = "amount > 150"  # a filtered preview: Spark scans every row


def build_table(path: Path, size_mb: int) -> None:
    """Append ~10 MB files (one per commit) until the table holds ``size_mb``."""
    rng = np.random.default_rng(7)
    files = max(size_mb // 10, 1)
    for i in range(files):
        n = ROWS_PER_FILE
        batch = pa.table(
            {
                "id": pa.array(np.arange(i * n, (i + 1) * n, dtype=np.int64)),
                "amount": pa.array(rng.normal(100, 30, n)),
                "customer": pa.array(rng.integers(0, 5_000_000, n, dtype=np.int64)),
                "token": pa.array(rng.integers(0, 2**62, n, dtype=np.int64).astype(str)),
                "day": pa.array([f"2024-03-{1 + i % 10:02d}"] * n),
            }
        )
        write_deltalake(str(path), batch, partition_by=["day"], mode="append")


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1000)
    parser.add_argument(
        "--out", default=str(Path(__file__).resolve().parent / "out" / "preview-table")
    )
    args = parser.parse_args()
    path = Path(args.out)
    if not (path / "_delta_log").is_dir():
        print(f"writing a ~{args.size_mb} MB table to {path} ...", flush=True)
        seconds, _ = timed(lambda: build_table(path, args.size_mb))
        print(f"  written in {seconds:.0f} s")
    log = DeltaLog.open(str(path))
    latest = log.latest_version
    size = log.snapshot(latest).size_in_bytes
    print(
        f"table: {path}  versions 0..{latest}  {log.snapshot(latest).num_files} files  "
        f"{size / 2**20:,.0f} MiB  ({os.cpu_count()} cores)"
    )

    start_s, spark = timed(get_spark)
    print(f"Spark session start: {start_s:.1f} s (once per process)")
    rows = []
    # The lambdas run at once inside timed(), so binding late is harmless here.
    for label, version in (("latest", latest), ("half (time travel)", latest // 2)):
        for run in ("cold", "warm"):
            snap_s, snapshot = timed(lambda: DeltaLog.open(str(path)).snapshot(version))
            dataset = lambda: DeltaTable(str(path), version=version).to_pyarrow_dataset()  # noqa: E731
            first = (
                timed(lambda: read_snapshot(snapshot, spark=spark).limit(PREVIEW_ROWS).toArrow())[
                    0
                ],
                timed(lambda: dataset().head(PREVIEW_ROWS))[0],
            )
            count_s, count = timed(lambda: read_snapshot(snapshot, spark=spark).count())
            dl_count_s, dl_count = timed(lambda: dataset().count_rows())
            where_s, where_n = timed(
                lambda: read_snapshot(snapshot, spark=spark).where(FILTER).count()
            )
            dl_where_s, dl_where_n = timed(
                lambda: dataset().count_rows(filter=pc.field("amount") > 150)
            )
            assert (count, where_n) == (dl_count, dl_where_n), (
                count,
                dl_count,
                where_n,
                dl_where_n,
            )
            rows.append(
                (
                    f"{label} (v{version})",
                    run,
                    f"{count:,}",
                    snap_s,
                    *first,
                    count_s,
                    dl_count_s,
                    where_s,
                    dl_where_s,
                )
            )

    print()
    print(
        f"| version | run | rows | log replay | first {PREVIEW_ROWS} rows: Spark | deltalake | ratio "
        f"| exact count: Spark | deltalake | ratio | count where {FILTER}: Spark | deltalake | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (
        name,
        run,
        count,
        snap_s,
        first_s,
        dl_first_s,
        count_s,
        dl_count_s,
        where_s,
        dl_where_s,
    ) in rows:
        print(
            f"| {name} | {run} | {count} | {snap_s:.2f} s | {first_s:.2f} s | {dl_first_s:.2f} s | "
            f"{first_s / dl_first_s:.1f}x | {count_s:.2f} s | {dl_count_s:.2f} s | "
            f"{count_s / dl_count_s:.1f}x | {where_s:.2f} s | {dl_where_s:.2f} s | "
            f"{where_s / dl_where_s:.1f}x |"
        )


if __name__ == "__main__":
    main()
