"""Benchmark: ``blame`` of one row of a 100-version table, against reading every version.

Run from the repository root (needs the jar cache ``./dev.sh`` fills)::

    .venv/bin/python bench/bench_blame.py [--repeat 3] [--versions 100] [--rows 2000]

A table of ``--versions`` appends (``--rows`` rows each, ids ascending), written with
deltalake, where every tenth version also updates the row ``id = 42`` (a MERGE-free
UPDATE through deltalake). In this one process with one warm Spark session:

- **blame**: ``blame_rows(log, latest, "id = 42")`` (the walk reads only the versions whose
  files' statistics may hold the row);
- **baseline**: what a user would do without it: read every version with Delta
  (``versionAsOf``, ``WHERE id = 42``, collect).

The two run interleaved, ``--repeat`` times after one untimed warm-up; the figures are
medians, with the ratio blame / baseline measured in the same run. The run is saved to
``bench/results/bench_blame.json`` (``bench/results.py``), which the targets table of
``docs/performance.md`` reads.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.results import machine, save  # noqa: E402
from bench.timing import interleaved, step  # noqa: E402


def _write(root: str, versions: int, rows: int) -> None:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    version = 0
    batch = 0
    while version < versions:
        ids = list(range(batch * rows, (batch + 1) * rows))
        write_deltalake(root, pa.table({"id": ids, "x": ids}), mode="append")
        batch += 1
        version += 1
        if version % 10 == 0 and version < versions:
            DeltaTable(root).update(updates={"x": f"x + {version}"}, predicate="id = 42")
            version += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    started = machine()
    base = tempfile.mkdtemp(prefix="bench-blame-")
    try:
        root = os.path.join(base, "t")
        _write(root, args.versions, args.rows)
        row = _measure(root, args.repeat)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(save("bench_blame", [row], started=started))


def _measure(root: str, repeat: int) -> dict[str, object]:
    """blame and the baseline, interleaved ``repeat`` times after a warm-up: medians."""
    from inspector.log.deltalog import DeltaLog
    from inspector.rows.blame import blame_rows
    from inspector.rows.session import get_spark
    from inspector.settings import Settings

    settings = Settings()
    spark = get_spark(settings)
    latest = DeltaLog.open(root).latest_version

    def blame() -> object:
        return blame_rows(DeltaLog.open(root), latest, "id = 42", settings=settings, spark=spark)

    def baseline() -> object:
        reader = spark.read.format("delta")
        return [
            reader.option("versionAsOf", v).load(root).where("id = 42").collect()
            for v in range(latest + 1)
        ]

    timings = interleaved({"blame": step(blame), "baseline": step(baseline)}, repeat)
    blame_s, base_s = (statistics.median(timings.seconds[n]) for n in ("blame", "baseline"))
    read = len(timings.last["blame"].versions_read)
    print(f"table: {latest + 1} versions; blame read {read} of them")
    print(f"blame    {blame_s:8.2f} s (median of {repeat})")
    print(f"baseline {base_s:8.2f} s (every version read with Delta)")
    print(f"ratio    {blame_s / base_s:8.2f} (load {os.getloadavg()[0]:.1f})")
    return {
        "table": f"v{latest + 1}",
        "case": "blame",
        "runs": repeat,
        "ours_s": blame_s,
        "theirs_s": base_s,
        "versions_read": read,
    }


if __name__ == "__main__":
    main()
