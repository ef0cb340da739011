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

#: Restores in a row per store: six on S3, where the abort at exit was seen (3 of 8 runs, so
#: six runs miss it 6% of the time; each costs about 40 s of Spark start and verification in
#: CI); three on Azure, for the same exit path through another store.
RUNS = {"s3": 6, "azure": 3}


def _restore(uri: str, options: dict[str, str], audit: str, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "restore", uri, *flags(options), *args, "--json"],
        cwd=REPO,
        # Each process's temporary files go to one folder the test can look into afterwards.
        env={**os.environ, "DELTA_INSPECTOR_AUDIT_LOG": audit, "TMPDIR": os.path.dirname(audit)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture(params=["s3", "azure"])
def object_store(request: pytest.FixtureRequest):
    """The object store under test: moto's S3 or Azurite, both on loopback."""
    return request.param, request.getfixturevalue(
        "s3_server" if request.param == "s3" else "azurite"
    )


def test_restores_in_a_row_on_an_object_store_exit_0_with_their_commit_leaving_no_scratch(
    object_store, tmp_path
):
    kind, store = object_store
    uri = store.upload(sales_table(tmp_path / "sales"))
    audit = str(tmp_path / "audit.jsonl")

    for run in range(RUNS[kind]):
        latest = 4 + run
        code, out = _restore(
            uri, store.options, audit, "--to-version", str(1 + run % 2),
            "--expect-version", str(latest), "--yes", "--reason", f"run {run}",
        )  # fmt: skip

        assert code == 0, f"run {run}: exit {code}: {out[-2000:]}"
        log = DeltaLog.open(uri, storage_options=store.options)
        assert log.latest_version == latest + 1, f"run {run}"
        assert log.commit(latest + 1).commit_info.operation == "RESTORE", f"run {run}"

    code, out = _restore(
        uri, store.options, audit, "--to-version", "1", "--expect-version", "0",
        "--yes", "--reason", "stale plan",
    )  # fmt: skip
    assert code == 3, out[-2000:]
    assert json.loads(out[: out.rindex("}") + 1])["error"]["exitCode"] == 3
    assert DeltaLog.open(uri, storage_options=store.options).latest_version == 4 + RUNS[kind]
    # Spark's scratch folders (its log, the warehouse) go with the process that made them.
    assert [n for n in os.listdir(tmp_path) if n.startswith("delta-inspector-spark-")] == []
