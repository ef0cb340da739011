"""Benchmark: history and check of tables in S3 (moto's server on loopback) vs deltalake.

Run from the repository root::

    .venv/bin/python bench/bench_object_store.py [--commits 1000] [--files 10000]
        [--repeat 5] [--only history|check]

It generates two tables with ``bench/tablegen.py`` (``commits``: a streaming job's table of
``--commits`` commits with a checkpoint every 100; ``files``: ``--files`` live data files
in checkpoint 0, then a MERGE, an append and a DELETE), starts moto's S3 server
(``ThreadedMotoServer``, in its own process) on a free 127.0.0.1 port, uploads both tables
(concurrently, obstore's async puts), then times whole processes, interleaved,
``--repeat`` times each:

* history: ``python -m inspector history s3://... --json`` vs a Python process running
  ``DeltaTable(uri, storage_options=...).history()`` (deltalake 1.6.6) and printing it as
  JSON, with the same storage options over the same server;
* history10 and detail: ``history --limit 10`` vs deltalake's ``history(10)``, and
  ``detail`` vs opening the table (``DeltaTable(uri, ...)``), on the same commits table;
* check: ``python -m inspector check s3://... --json`` (the latest version: every live
  file's presence and size, from one listing of the table prefix) vs a Python process that
  does the least a check must: ``DeltaTable(uri, ...)`` + ``get_add_actions()`` (the live
  files and their sizes) + one listing of the table prefix (obstore, as ours does) and a
  comparison of the two.

It prints the median wall time and the peak RSS (``ru_maxrss`` of each child) of each, and
the ratios (this project / baseline; below 1 is faster). The project's modules are
compiled to bytecode first, as an installed package's are (``bench_scale.compile_project``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_scale import compile_project  # noqa: E402

from inspector.desktop.server import free_port  # noqa: E402

KEY_ID, SECRET = "bench-key-id", "bench-secret-key"
BUCKET = "bench"

HISTORY_BASELINE = """
import json, os, sys
from deltalake import DeltaTable
options = json.loads(os.environ["BENCH_OPTIONS"])
history = DeltaTable(sys.argv[1], storage_options=options).history()
json.dump(history, sys.stdout, default=str)
"""

HISTORY10_BASELINE = HISTORY_BASELINE.replace(".history()", ".history(10)")

OPEN_BASELINE = """
import json, os, sys
from deltalake import DeltaTable
table = DeltaTable(sys.argv[1], storage_options=json.loads(os.environ["BENCH_OPTIONS"]))
print(table.version())
"""

CHECK_BASELINE = """
import json, os, sys
import obstore
from obstore.store import from_url
from deltalake import DeltaTable
uri, options = sys.argv[1], json.loads(os.environ["BENCH_OPTIONS"])
import pyarrow as pa
adds = pa.table(DeltaTable(uri, storage_options=options).get_add_actions(flatten=True)).to_pydict()
store = from_url(uri, config={k.lower(): v for k, v in options.items() if k != "AWS_ALLOW_HTTP"},
                 client_options={"allow_http": True})
listed = {m["path"]: m["size"] for chunk in obstore.list(store, chunk_size=1000) for m in chunk}
bad = [p for p, s in zip(adds["path"], adds["size_bytes"]) if listed.get(p) != s]
json.dump({"files": len(adds["path"]), "problems": len(bad)}, sys.stdout)
sys.exit(4 if bad else 0)
"""


def serve(port: int) -> None:
    """The moto server process: one bucket, then serve until stdin closes."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    serve_until_told(port)
    server.stop()


def serve_until_told(port: int) -> None:
    """Make the bench's bucket on the server at ``port``, say ``ready``, and return when
    the bench closes this process's standard input."""
    import boto3

    boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id=KEY_ID,
        aws_secret_access_key=SECRET,
        region_name="us-east-1",
    ).create_bucket(Bucket=BUCKET)
    print("ready", flush=True)
    sys.stdin.read()


@contextmanager
def moto_server(script: str = __file__) -> Iterator[dict[str, str]]:
    """moto's S3 server in its own process on a free loopback port, for the ``with`` block:
    the options that reach it; the server stops when the block ends.

    Its own process: the timed processes are forked from this small one, not from one
    that holds a server's objects (a child's peak RSS counts its parent's at the fork).
    ``script`` is the bench whose ``--serve PORT`` runs the server (bench_requests counts).
    """
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, script, "--serve", str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    assert server.stdin is not None
    try:
        if server.stdout.readline().strip() != "ready":
            raise SystemExit("moto's server did not start")
        yield {
            "AWS_ACCESS_KEY_ID": KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ALLOW_HTTP": "true",
        }
    finally:
        server.stdin.close()  # the server's signal to stop
        server.wait()


def prepare(shape: str, count: int, options: dict[str, str]) -> None:
    """The setup process: generate one table in a temp dir and upload it."""
    from tablegen import make_commits_table, make_files_table

    work = Path(tempfile.mkdtemp(prefix="bench-objstore-"))
    try:
        local = work / f"{shape[0]}{count}"
        (make_commits_table if shape == "commits" else make_files_table)(str(local), count)
        upload(local, local.name, options)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def prepared(shape: str, count: int, options: dict[str, str]) -> str:
    """Generate and upload a table in a separate process; its URI."""
    subprocess.run(
        [sys.executable, __file__, "--prepare", shape, str(count), json.dumps(options)],
        check=True,
    )
    return f"s3://{BUCKET}/{shape[0]}{count}"


def s3_store(options: dict[str, str]) -> Any:
    """An obstore S3 store on the bench's bucket at moto's endpoint."""
    from obstore.store import S3Store

    return S3Store(
        BUCKET,
        endpoint=options["AWS_ENDPOINT_URL"],
        access_key_id=KEY_ID,
        secret_access_key=SECRET,
        region="us-east-1",
        client_options={"allow_http": True},
    )


async def _upload(local: Path, prefix: str, options: dict[str, str]) -> int:
    import obstore

    store = s3_store(options)
    gate = asyncio.Semaphore(32)
    files = [p for p in local.rglob("*") if p.is_file()]

    async def one(path: Path) -> None:
        async with gate:
            key = f"{prefix}/{path.relative_to(local).as_posix()}"
            await obstore.put_async(store, key, path.read_bytes())

    await asyncio.gather(*(one(p) for p in files))
    return len(files)


def upload(local: Path, prefix: str, options: dict[str, str]) -> str:
    """Copy a local table to the bucket (concurrently); returns its URI."""
    began = time.perf_counter()
    count = asyncio.run(_upload(local, prefix, options))
    print(f"uploaded {count:,} objects of {local.name} in {time.perf_counter() - began:.1f} s")
    return f"s3://{BUCKET}/{prefix}"


def timed(cmd: list[str], env: dict[str, str], expect: int = 0) -> tuple[float, float, float]:
    """Run one process; its wall time (s), peak RSS (MB) and CPU time (s)."""
    began = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    code = os.waitstatus_to_exitcode(status)
    if code != expect:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd[:5])} exited {code}: {err[-2000:]}")
    if proc.stderr:
        proc.stderr.close()
    proc.returncode = code
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def compare(
    name: str, ours: list[str], theirs: list[str], env: dict[str, str], repeat: int
) -> dict[str, float | str]:
    """Run both ``repeat`` times, interleaved; medians and ratios."""
    runs: dict[str, list[tuple[float, float, float]]] = {"ours": [], "theirs": []}
    for i in range(repeat):
        order = [("ours", ours), ("theirs", theirs)]
        for who, cmd in order if i % 2 == 0 else order[::-1]:
            runs[who].append(timed(cmd, env))
    med = {who: statistics.median(w for w, _, _ in r) for who, r in runs.items()}
    rss = {who: max(m for _, m, _ in r) for who, r in runs.items()}
    cpu = {who: statistics.median(c for _, _, c in r) for who, r in runs.items()}
    return {
        "measurement": name,
        "ours_s": med["ours"],
        "theirs_s": med["theirs"],
        "ratio": med["ours"] / med["theirs"],
        "ours_cpu": cpu["ours"],
        "theirs_cpu": cpu["theirs"],
        "ours_mb": rss["ours"],
        "theirs_mb": rss["theirs"],
        "ours_all": " ".join(f"{w:.2f}" for w, _, _ in runs["ours"]),
        "theirs_all": " ".join(f"{w:.2f}" for w, _, _ in runs["theirs"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("history", "latest", "check"))
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--prepare", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    if args.prepare:
        prepare(args.prepare[0], int(args.prepare[1]), json.loads(args.prepare[2]))
        return 0
    compile_project(str(REPO))
    with moto_server() as options:
        results = run_all(args, options)
    print_table(results)
    return 0


def run_all(args: argparse.Namespace, options: dict[str, str]) -> list[dict[str, float | str]]:
    """Prepare the tables and time both commands on each."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DELTA_"))}
    env["BENCH_OPTIONS"] = json.dumps(options)
    flags = [a for k, v in options.items() for a in ("--storage-option", f"{k}={v}")]
    ours = [sys.executable, "-m", "inspector"]
    # (group for --only, command words, the table's shape, how many, the baseline's script)
    measurements = [
        ("history", ["history"], "commits", args.commits, HISTORY_BASELINE),
        ("latest", ["history", "--limit", "10"], "commits", args.commits, HISTORY10_BASELINE),
        ("latest", ["detail"], "commits", args.commits, OPEN_BASELINE),
        ("check", ["check"], "files", args.files, CHECK_BASELINE),
    ]
    results = []
    for group, words, shape, count, baseline in measurements:
        if args.only not in (None, group):
            continue
        uri = prepared(shape, count, options)
        results.append(
            compare(
                f"{' '.join(words)}, {count:,} {shape}",
                [*ours, words[0], uri, *words[1:], "--json", *flags],
                [sys.executable, "-c", baseline, uri],
                env,
                args.repeat,
            )
        )
    return results


def print_table(results: list[dict[str, float | str]]) -> None:
    """The figures as a Markdown table, then every run's wall time."""
    print()
    print(
        "| measurement | this project | deltalake 1.6.6 | ratio | CPU: ours | CPU: deltalake "
        "| peak RSS: ours | peak RSS: deltalake |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['measurement']} | {r['ours_s'] * 1000:,.0f} ms | {r['theirs_s'] * 1000:,.0f} ms "
            f"| {r['ratio']:.2f} | {r['ours_cpu'] * 1000:,.0f} ms | {r['theirs_cpu'] * 1000:,.0f} ms "
            f"| {r['ours_mb']:,.0f} MB | {r['theirs_mb']:,.0f} MB |"
        )
    for r in results:
        print(f"{r['measurement']}: ours {r['ours_all']} s; deltalake {r['theirs_all']} s")


if __name__ == "__main__":
    sys.exit(main())
