"""Specification: a restore killed at any moment leaves the table at the old or the new version.

Each run executes a planned restore in a separate process whose commit writer pauses between
its steps (write, fsync, link, unlink), and kills the process group with SIGKILL after a random
delay. Afterwards the log must be whole: every commit file complete, the latest version either
the pre-restore one or the restore, and no temporary file that a reader would take for a commit.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.log.deltalog import DeltaLog
from inspector.restore.execute import plan_restore
from inspector.rows.reader import read_snapshot
from inspector.settings import Settings
from tests.conftest import REPO
from tests.test_restore import sales_table

pytestmark = pytest.mark.spark

RUNS = 20
PAUSE_SECONDS = 0.04
_COMMIT_NAME = re.compile(r"^\d{20}\.json$")

_RESTORE_IN_CHILD = """
import pickle, sys
import inspector.log.commit_writer as writer
writer.STEP_PAUSE_SECONDS = float(sys.argv[3])
from inspector.restore.execute import execute_restore
from tests.conftest import confirmed
from inspector.settings import Settings
plan = pickle.load(open(sys.argv[1], "rb"))
print("ready", flush=True)
execute_restore(confirmed(plan, "fault injection"), settings=Settings(audit_log=sys.argv[2]))
"""


def run_and_kill(
    plan_file: Path, audit: Path, delay: float | None = None, commit: Path | None = None
) -> float:
    """Start the restore in its own process group and SIGKILL the whole group.

    The kill comes ``delay`` seconds after the child is ready or, when ``commit`` is given,
    as soon as that commit file exists. Returns the seconds from ready to the kill.
    """
    child = subprocess.Popen(
        [sys.executable, "-c", _RESTORE_IN_CHILD, str(plan_file), str(audit), str(PAUSE_SECONDS)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        start = time.monotonic()
        if commit is None:
            time.sleep(delay)
        while commit is not None and not commit.exists() and time.monotonic() - start < 60:
            time.sleep(0.005)
        return time.monotonic() - start
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=30)


def copy_with_plan(pristine: str, plan, folder: Path) -> tuple[str, Path]:
    """A fresh copy of the table and the plan pointed at it (the plan's paths are relative)."""
    shutil.copytree(pristine, folder)
    plan_file = folder.with_suffix(".pkl")
    plan_file.write_bytes(pickle.dumps(dataclasses.replace(plan, table_root=str(folder))))
    return str(folder), plan_file


def test_a_restore_killed_at_any_moment_leaves_the_old_or_the_new_version(tmp_path, spark):
    pristine = sales_table(tmp_path / "pristine")
    plan = plan_restore(
        DeltaLog.open(pristine),
        1,
        settings=Settings(audit_log=str(tmp_path / "a.jsonl")),
        spark=spark,
    )
    original, target = DeltaLog.open(pristine).snapshot(4), DeltaLog.open(pristine).snapshot(1)
    rng, outcomes, rows_checked = random.Random(20240501), [], set()
    # Calibrate on this machine's load: how long from "ready" until the commit file exists.
    table, plan_file = copy_with_plan(pristine, plan, tmp_path / "calibration")
    to_commit = run_and_kill(
        plan_file,
        tmp_path / "audit.jsonl",
        commit=Path(table) / "_delta_log" / "00000000000000000005.json",
    )

    for run in range(RUNS):
        table, plan_file = copy_with_plan(pristine, plan, tmp_path / f"run{run}")

        run_and_kill(plan_file, tmp_path / "audit.jsonl", rng.uniform(0.0, 2 * to_commit))

        log = DeltaLog.open(table)
        assert all(c.is_complete for c in log.commits), (
            f"run {run}: a partial commit file is visible"
        )
        names = os.listdir(os.path.join(table, "_delta_log"))
        stray = [n for n in names if n.endswith(".tmp")]
        assert all(n.startswith(".") for n in stray), (
            f"run {run}: a temporary file looks like a log file"
        )
        assert sorted(n for n in names if _COMMIT_NAME.match(n))[-1] in (
            "00000000000000000004.json",
            "00000000000000000005.json",
        )
        latest = log.snapshot()
        if latest.version == 5:
            assert log.commit(5).commit_info.operation == "RESTORE"
            assert set(latest.files) == set(target.files)
        else:
            assert latest.version == 4 and set(latest.files) == set(original.files)
        outcomes.append(latest.version)
        if latest.version not in rows_checked:  # rows via Spark once for each outcome
            rows_checked.add(latest.version)
            expected = target.num_records if latest.version == 5 else original.num_records
            assert read_snapshot(latest, spark=spark).count() == expected

    assert {4, 5} <= set(outcomes), (
        f"the kills should land both before and after the commit: {outcomes}"
    )
