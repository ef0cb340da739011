"""Specification: a restore's exit status tells the truth, run after run, on an object store.

Each restore runs as an operator's script runs it: its own ``python -m inspector``
process (Spark started, deltalake verifying, obstore writing), exiting on its own. A
committed restore exits 0 with its commit in the log, every time (a crash at interpreter
exit after a successful commit would make a script retry it); a refused one exits 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from inspector.log.deltalog import DeltaLog
from tests.conftest import REPO, sales_table
from tests.object_stores import flags

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("no_cloud_env")]

RUNS = 10


def _restore(uri: str, options: dict[str, str], audit: str, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "restore", uri, *flags(options), *args, "--json"],
        cwd=REPO,
        env={**os.environ, "DELTA_INSPECTOR_AUDIT_LOG": audit},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.xfail(
    reason="the abort at exit is not fixed: in the full suite run a committed S3 restore "
    "exited -6 ('terminate called without an active exception') after printing its result, "
    "with Delta's jars loaded for the verification's Spark read (issue #26 stays open)",
    strict=False,
)
def test_ten_restores_in_a_row_on_s3_each_exit_0_with_their_commit(s3_server, tmp_path):
    uri = s3_server.upload(sales_table(tmp_path / "sales"))
    audit = str(tmp_path / "audit.jsonl")

    for run in range(RUNS):
        latest = 4 + run
        code, out = _restore(
            uri, s3_server.options, audit, "--to-version", str(1 + run % 2),
            "--expect-version", str(latest), "--yes", "--reason", f"run {run}",
        )  # fmt: skip

        assert code == 0, f"run {run}: exit {code}: {out[-2000:]}"
        log = DeltaLog.open(uri, storage_options=s3_server.options)
        assert log.latest_version == latest + 1, f"run {run}"
        assert log.commit(latest + 1).commit_info.operation == "RESTORE", f"run {run}"

    code, out = _restore(
        uri, s3_server.options, audit, "--to-version", "1", "--expect-version", "0",
        "--yes", "--reason", "stale plan",
    )  # fmt: skip
    assert code == 3, out[-2000:]
    assert json.loads(out[: out.rindex("}") + 1])["error"]["exitCode"] == 3
    assert DeltaLog.open(uri, storage_options=s3_server.options).latest_version == 4 + RUNS
