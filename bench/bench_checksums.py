"""Benchmark: what comparing the log's checksums (``.crc``) costs ``check --all-versions``.

Run from the repository root::

    .venv/bin/python bench/bench_checksums.py [--commits 2000] [--files-per-commit 5]

It writes :mod:`bench_check`'s streaming table (every commit appends files) and beside
each commit the ``.crc`` its writer would leave (the live files' count and bytes, the
metadata and protocol). It measures, in the same run, ``check --all-versions`` with the
``.crc`` files and without them (moved aside), in wall and CPU time (medians of
interleaved repeats), and counts the requests each makes through a counting storage (what
an object store would be sent).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_check import write_table  # noqa: E402

from inspector.health import check_table  # noqa: E402
from inspector.log.deltalog import DeltaLog  # noqa: E402
from inspector.settings import Settings  # noqa: E402
from tests.counting_storage import CountingStorage  # noqa: E402


def write_checksums(root: str) -> int:
    """A ``.crc`` beside each commit, as its writer records it; returns how many."""
    log = os.path.join(root, "_delta_log")
    names = sorted(n for n in os.listdir(log) if n.endswith(".json"))
    files = size = 0
    metadata = protocol = None
    for name in names:
        with open(os.path.join(log, name)) as fh:
            for line in fh:
                action = json.loads(line)
                if "add" in action:
                    files, size = files + 1, size + action["add"]["size"]
                metadata = action.get("metaData", metadata)
                protocol = action.get("protocol", protocol)
        crc = {
            "tableSizeBytes": size,
            "numFiles": files,
            "numMetadata": 1,
            "numProtocol": 1,
            "setTransactions": [],
            "domainMetadata": [],
            "metadata": metadata,
            "protocol": protocol,
        }
        with open(os.path.join(log, name.replace(".json", ".crc")), "w") as fh:
            json.dump(crc, fh)
    return len(names)


def _timed(root: str) -> tuple[float, float, int, int]:
    """One ``check --all-versions``: wall, CPU, requests, and the versions whose .crc matched."""
    storage = CountingStorage(root)
    log = DeltaLog(root, storage)
    log.refresh()
    wall, cpu = time.perf_counter(), time.process_time()
    report = check_table(log, all_versions=True, settings=Settings())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    matched = sum(1 for v in report.versions if v.checksum is not None and not v.checksum.fields)
    return wall, cpu, storage.calls, matched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--files-per-commit", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    base = tempfile.mkdtemp(prefix="bench-crc-")
    root = os.path.join(base, "table")
    try:
        write_table(root, args.commits, args.files_per_commit)
        count = write_checksums(root)
        aside = os.path.join(base, "crc")
        os.makedirs(aside)
        runs: dict[bool, list[tuple[float, float, int, int]]] = {True: [], False: []}
        for _ in range(args.repeats):
            for with_crc in (True, False):
                _move(root, aside, back=with_crc)
                runs[with_crc].append(_timed(root))
        for with_crc in (True, False):
            wall = statistics.median(r[0] for r in runs[with_crc])
            cpu = statistics.median(r[1] for r in runs[with_crc])
            _, _, calls, matched = runs[with_crc][0]
            label = f"with {count:,} .crc files" if with_crc else "without .crc files"
            print(
                f"check --all-versions {label}: {wall:.2f} s wall, {cpu:.2f} s CPU, "
                f"{calls:,} requests, {matched:,} checksums matched"
            )
    finally:
        shutil.rmtree(base)


def _move(root: str, aside: str, *, back: bool) -> None:
    """Put the .crc files in the log (``back``) or aside."""
    log = os.path.join(root, "_delta_log")
    source, target = (aside, log) if back else (log, aside)
    for name in os.listdir(source):
        if name.endswith(".crc"):
            os.replace(os.path.join(source, name), os.path.join(target, name))


if __name__ == "__main__":
    main()
