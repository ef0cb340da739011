"""Benchmark: plan a VACUUM (lite and full) and compare a replica, on a table with many versions.

Run from the repository root::

    .venv/bin/python bench/bench_vacuum.py [--commits 10000] [--files-per-commit 5]
        [--compact-every 10] [--keep PATH]

It writes a streaming-sink table: every commit appends ``--files-per-commit``
sparse files; every ``--compact-every``-th commit is an OPTIMIZE that removes the
files appended since the previous one and adds one, so about 90% of the files are
tombstones. Tombstones are dated one minute apart, so a retention picks a cut
through the history. It measures:

* ``plan_vacuum`` lite and full (full also lists the folder and checks every file);
* ``compare_replica`` against a copy of the table missing the newest commit's files.

The plan replays the log once and marks lost versions by file spans, so its cost
grows with the number of files and versions, not with versions x files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from inspector.health.replica import compare_replica  # noqa: E402
from inspector.health.vacuum import VacuumMode, plan_vacuum  # noqa: E402
from inspector.log.deltalog import DeltaLog  # noqa: E402
from inspector.settings import Settings  # noqa: E402

MINUTE_MS = 60_000
START = 1_700_000_000_000
SCHEMA = json.dumps(
    {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]}
)


def write_table(root: str, commits: int, per_commit: int, compact_every: int) -> None:
    """Write the table (sparse data files of the sizes the log records)."""
    os.makedirs(os.path.join(root, "_delta_log"))
    pending: list[dict] = []
    for version in range(commits):
        now = START + version * MINUTE_MS
        lines: list[dict] = [{"commitInfo": {"timestamp": now, "operation": "WRITE"}}]
        if version == 0:
            lines += [
                {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
                {
                    "metaData": {
                        "id": str(uuid.uuid4()),
                        "format": {"provider": "parquet", "options": {}},
                        "schemaString": SCHEMA,
                        "partitionColumns": [],
                        "configuration": {},
                        "createdTime": now,
                    }
                },
            ]
        if version and version % compact_every == 0:
            lines[0]["commitInfo"]["operation"] = "OPTIMIZE"
            lines += [_remove(add, now) for add in pending]
            pending = [_add(root, version, 0, per_commit * len(pending), now, data_change=False)]
            lines.append({"add": pending[0]})
        else:
            adds = [_add(root, version, i, 1, now) for i in range(per_commit)]
            pending += adds
            lines += [{"add": add} for add in adds]
        with open(os.path.join(root, "_delta_log", f"{version:020d}.json"), "w") as fh:
            fh.write("\n".join(json.dumps(line) for line in lines) + "\n")


def _add(root: str, version: int, index: int, weight: int, now: int, data_change: bool = True):
    path = f"part-{version:06d}-{index:03d}-{uuid.uuid4()}.parquet"
    size = 4096 * weight
    with open(os.path.join(root, path), "wb") as fh:
        fh.truncate(size)
    return {
        "path": path,
        "partitionValues": {},
        "size": size,
        "modificationTime": now,
        "dataChange": data_change,
        "stats": json.dumps({"numRecords": 64 * weight}),
    }


def _remove(add: dict, now: int) -> dict:
    return {
        "remove": {
            "path": add["path"],
            "deletionTimestamp": now,
            "dataChange": False,
            "size": add["size"],
        }
    }


def _timed(label: str, run) -> object:
    began = time.perf_counter()
    result = run()
    print(f"{label:<40} {time.perf_counter() - began:8.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--files-per-commit", type=int, default=5)
    parser.add_argument("--compact-every", type=int, default=10)
    parser.add_argument("--keep", help="Write the table here and keep it.")
    args = parser.parse_args()
    base = args.keep or tempfile.mkdtemp(prefix="bench_vacuum_")
    root, replica = os.path.join(base, "table"), os.path.join(base, "replica")
    try:
        _timed(
            "write table",
            lambda: write_table(root, args.commits, args.files_per_commit, args.compact_every),
        )
        log = DeltaLog.open(root)
        # Half the history's tombstones are older than the retention.
        now = START + args.commits * MINUTE_MS
        hours = args.commits / 2 / 60
        for mode in VacuumMode:
            plan = _timed(
                f"plan_vacuum {mode.value}",
                lambda m=mode: plan_vacuum(log, retain_hours=hours, mode=m, now_ms=now),
            )
            print(f"  {len(plan.files):,} files, {len(plan.versions_lost):,} versions lost")
        shutil.copytree(root, replica)
        for add in log.commit(log.latest_version).adds:
            os.remove(os.path.join(replica, add.path))
        report = _timed(
            "compare_replica", lambda: compare_replica(root, replica, settings=Settings.from_env())
        )
        print(f"  last consistent {report.replica_last_consistent_version}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
