"""Specification: on a real Spark cluster, rows, row diffs and restores equal local mode's.

A session-scoped fixture starts a Spark standalone master and one worker on 127.0.0.1
from the pyspark install, and stops both afterwards (also when a test fails). The CLI
runs against it in a subprocess (a process has one Spark session, and this test run's
is local): ``show`` of two versions read by Delta Lake (its jars on the executors' class
path: a master on loopback has its workers on this machine), ``diff --rows`` (Delta's scan
of the changed files) and a restore, each with ``--spark-master spark://127.0.0.1:PORT``. The same commands run in local mode
here, and the results must be equal. Every process exits on its own, and its exit
status is part of the verdict: five restores in a row, each its own ``python -m
inspector restore`` process as an operator's script runs it, exit 0 with their commit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.demo import write_demo_table
from inspector.desktop.server import free_port
from inspector.log.deltalog import DeltaLog
from tests.conftest import REPO, sales_table

pytestmark = pytest.mark.spark

_CHILD = """
import contextlib, io, json, os, sys, time
from inspector.cli.main import main
from inspector.rows.session import spark_status
calls, results = json.loads(sys.argv[1]), []
for call in calls:
    os.environ.update(call["env"])
    out, started = io.StringIO(), time.monotonic()
    with contextlib.redirect_stdout(out):
        code = main(call["argv"])
    results.append({"code": code, "out": out.getvalue(), "seconds": time.monotonic() - started})
results.append({"master": spark_status().master})
with open(sys.argv[2], "w") as fh:
    json.dump(results, fh)
"""


def _wait_for(log: Path, text: str, process: subprocess.Popen, seconds: float = 90) -> None:
    """Poll the daemon's log until it says ``text``; fail early if the daemon died."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            pytest.fail(f"{log.name} exited: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    pytest.fail(f"{log.name} did not say {text!r} within {seconds}s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # its own session: only our daemon's group
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _spark_env() -> dict[str, str]:
    import pyspark

    return {
        **os.environ,
        "SPARK_HOME": os.path.dirname(pyspark.__file__),
        "SPARK_LOCAL_IP": "127.0.0.1",  # RPC and web UIs on loopback only
        "SPARK_DAEMON_MEMORY": "256m",
        "PYSPARK_PYTHON": sys.executable,
    }


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory) -> Iterator[str]:
    """A standalone master and one worker (1 core, 1 GB) on loopback; yields the master URL."""
    env = _spark_env()
    spark_class = os.path.join(env["SPARK_HOME"], "bin", "spark-class")
    folder = tmp_path_factory.mktemp("spark-cluster")
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    daemons: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = folder / f"{name}.log"
        with open(log, "w") as out:
            daemons.append(
                subprocess.Popen(
                    [spark_class, *args],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    cwd=folder,
                    start_new_session=True,
                )
            )
        return daemons[-1], log

    try:
        master, log = start(
            "master",
            "org.apache.spark.deploy.master.Master",
            *("--host", "127.0.0.1", "--port", str(port), "--webui-port", str(free_port())),
        )
        _wait_for(log, "I have been elected leader", master)
        worker, log = start(
            "worker",
            "org.apache.spark.deploy.worker.Worker",
            url,
            *("--host", "127.0.0.1", "--port", str(free_port())),
            *("--webui-port", str(free_port()), "--cores", "1", "--memory", "1g"),
            *("--work-dir", str(folder / "work")),
        )
        _wait_for(log, "Successfully registered with master", worker)
        yield url
    finally:
        for daemon in reversed(daemons):
            _stop(daemon)


def _spark_args(url: str) -> list[str]:
    return [
        *("--spark-master", url),
        *("--spark-conf", "spark.driver.host=127.0.0.1"),
        *("--spark-conf", "spark.executor.memory=512m"),
        *("--spark-conf", "spark.sql.shuffle.partitions=2"),
        # Delta replays a log in 50 tasks by default: minutes on one busy executor core.
        *("--spark-conf", "spark.databricks.delta.snapshotPartitions=2"),
    ]


def on_cluster(url: str, calls: list[dict], tmp_path: Path) -> list[dict]:
    """Run CLI calls in one subprocess whose Spark session is on the cluster."""
    spark_args = _spark_args(url)
    for call in calls:  # every command that has the flags (the first call starts the session)
        if _takes_spark_flags(call["argv"][0]):
            call["argv"] = call["argv"] + spark_args
    assert _takes_spark_flags(calls[0]["argv"][0])
    results = tmp_path / "results.json"
    env = {**_spark_env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(calls), str(results)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # Exit 0 after everything: the interpreter's teardown with a cluster session included.
    assert done.returncode == 0 and results.exists(), (done.returncode, done.stderr[-3000:])
    *outputs, session = json.loads(results.read_text())
    assert session["master"] == url
    return outputs


def _takes_spark_flags(command: str) -> bool:
    from inspector.cli.main import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    return "--spark-master" in subparsers.choices[command]._option_string_actions  # type: ignore[attr-defined]


def locally(capsys, argv: list[str], env: dict[str, str], monkeypatch) -> dict:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code = main(argv)
    return {"code": code, "out": capsys.readouterr().out}


def rows_of(output: dict) -> tuple[int, list[str], str]:
    shown = json.loads(output["out"])
    rows = sorted(json.dumps(r, sort_keys=True) for r in shown["rows"])
    return shown["numRows"], rows


def test_show_diff_and_restore_on_a_cluster_equal_local_mode(
    spark, spark_cluster, tmp_path, capsys, monkeypatch
):
    demo = write_demo_table(str(tmp_path / "demo"))
    for copy in ("cluster", "local"):
        shutil.copytree(demo, tmp_path / copy)
    audit = {"DELTA_INSPECTOR_AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    calls = [
        {"argv": ["show", demo, "--limit", "1000", "--json"], "env": audit},
        {"argv": ["show", demo, "--version", "5", "--limit", "1000", "--json"], "env": audit},
        {"argv": ["diff", demo, "--from", "2", "--to", "6", "--rows", "--json"], "env": audit},
        {
            "argv": ["restore", "TABLE", "--to-version", "6", "--reason", "dr", "--yes", "--json"],
            "env": audit,
        },
    ]
    cluster_calls = [_with_table(c, str(tmp_path / "cluster")) for c in calls]
    local_calls = [_with_table(c, str(tmp_path / "local")) for c in calls]
    remote = on_cluster(spark_cluster, cluster_calls, tmp_path)
    local = [locally(capsys, c["argv"], c["env"], monkeypatch) for c in local_calls]

    assert [r["code"] for r in remote] == [r["code"] for r in local] == [0] * len(calls)
    assert rows_of(remote[0]) == rows_of(local[0])
    assert rows_of(remote[1]) == rows_of(local[1])
    assert _diff(remote[2]) == _diff(local[2])
    restored = [json.loads(r[3]["out"]) for r in (remote, local)]
    assert [r["committedVersion"] for r in restored] == [14, 14]
    # Verification compared the new version's rows with version 6's, on each side.
    assert all(r["verification"]["ok"] for r in restored)
    # Delta's RESTORE committed on both (its jars went to the cluster's executors).
    assert [r["result"]["engine"] for r in restored] == ["delta-spark"] * 2
    assert _outcome(restored[0]) == _outcome(restored[1])


def _with_table(call: dict, table: str) -> dict:
    return {**call, "argv": [table if a == "TABLE" else a for a in call["argv"]]}


def _outcome(restored: dict) -> dict:
    result = restored["result"]
    return {
        **{k: result[k] for k in ("committedVersion", "metrics", "partial", "engine")},
        "checks": [(c.get("name"), c.get("status")) for c in result["verification"]["checks"]],
    }


def _diff(output: dict) -> dict:
    record = json.loads(output["out"])
    return {key: value for key, value in record.items() if key != "table"}


#: Restores in a row, each its own process on the cluster (about 85 s each in CI: a driver,
#: the cluster's executors for it, Delta's RESTORE and the verification's reads).
RUNS = 5


def _restore(url: str, table: str, audit: str, *args: str) -> tuple[int, str, str]:
    """One ``python -m inspector restore`` process on the cluster: exit status, stdout, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "restore", table, *args, "--json", *_spark_args(url)],
        cwd=REPO,
        env={**_spark_env(), "PYTHONPATH": str(REPO), "DELTA_INSPECTOR_AUDIT_LOG": audit},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout, done.stderr


def test_restores_in_a_row_on_a_cluster_each_exit_0_with_their_commit(spark_cluster, tmp_path):
    table = sales_table(tmp_path / "sales")
    audit = str(tmp_path / "audit.jsonl")

    for run in range(RUNS):
        latest = 4 + run
        code, out, err = _restore(
            spark_cluster, table, audit, "--to-version", str(1 + run % 2),
            "--expect-version", str(latest), "--yes", "--reason", f"run {run}",
        )  # fmt: skip

        assert code == 0, f"run {run}: exit {code}: {err[-2000:]}"
        assert json.loads(out)["result"]["engine"] == "delta-spark", f"run {run}"
        log = DeltaLog.open(table)
        assert log.latest_version == latest + 1, f"run {run}"
        assert log.commit(latest + 1).commit_info.operation == "RESTORE", f"run {run}"

    code, out, err = _restore(
        spark_cluster, table, audit, "--to-version", "1", "--expect-version", "0",
        "--yes", "--reason", "stale plan",
    )  # fmt: skip
    assert code == 3, err[-2000:]
    assert json.loads(out)["error"]["exitCode"] == 3
    assert DeltaLog.open(table).latest_version == 4 + RUNS
