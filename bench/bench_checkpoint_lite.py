"""Benchmark: up to which checkpoint size the pure-Python reader beats importing pyarrow.

Run from the repository root::

    .venv/bin/python bench/bench_checkpoint_lite.py [--files 250,500,1000,2000,4000]
        [--repeat 5] [--dir /tmp/delta-inspector-lite]

For each size it generates (once, with ``bench/tablegen.py``) a table whose checkpoint 0
holds that many live files, then opens the table and reads its snapshot at version 0 (the
checkpoint alone: its files, bytes and rows, what ``detail`` shows) in fresh processes,
interleaved: once with every checkpoint read by the pure-Python reader
(:mod:`inspector.log.checkpoint_lite`, its limits lifted) and once with every one read by
pyarrow (the limits at -1). It prints the checkpoint's size and the medians of CPU time
(user + system) and peak RSS of both; :data:`inspector.log.checkpoint_lite.LITE_MAX_ROWS`
is chosen from where the two cross.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.bench_scale import compile_project  # noqa: E402

PROBE = """
import sys
import inspector.log.checkpoint_lite as lite
lite.LITE_MAX_BYTES = lite.LITE_MAX_ROWS = int(sys.argv[1])
from inspector.log.deltalog import DeltaLog
snap = DeltaLog.open(sys.argv[2]).snapshot(0)
print(snap.num_files, snap.size_in_bytes, snap.num_records)
"""


def ensure_table(folder: str, files: int) -> str:
    """A table of ``files`` live files in checkpoint 0 (generated once)."""
    root = os.path.join(folder, f"f{files}")
    if not os.path.exists(root + ".done"):
        from bench.tablegen import make_files_table

        make_files_table(root, files)
        open(root + ".done", "w").close()
    return root


def run(limit: int, table: str) -> tuple[float, float]:
    """CPU seconds and peak MB of one process reading the snapshot at checkpoint 0."""
    argv = [sys.executable, "-c", PROBE, str(limit), table]
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    """Generate the tables, measure both readers on each, print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="250,500,1000,2000,4000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-lite"))
    args = parser.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    compile_project()
    print(
        "| live files | checkpoint | CPU: pure Python | CPU: pyarrow | ratio | MB: pure Python | MB: pyarrow |"
    )
    print("|---|---|---|---|---|---|---|")
    for files in (int(n) for n in args.files.split(",")):
        table = ensure_table(args.dir, files)
        size = os.path.getsize(os.path.join(table, "_delta_log", f"{0:020d}.checkpoint.parquet"))
        lite, arrow = [], []
        for _ in range(args.repeat):
            lite.append(run(2**62, table))
            arrow.append(run(-1, table))
        cpu_lite = statistics.median(c for c, _ in lite)
        cpu_arrow = statistics.median(c for c, _ in arrow)
        print(
            f"| {files:,} | {size / 1024:,.0f} KB | {cpu_lite:.3f} s | {cpu_arrow:.3f} s "
            f"| {cpu_lite / cpu_arrow:.2f} | {max(m for _, m in lite):.0f} "
            f"| {max(m for _, m in arrow):.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
