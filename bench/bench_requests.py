"""Benchmark: how many requests each log question makes on S3, ours against deltalake's.

Run from the repository root::

    .venv/bin/python bench/bench_requests.py [--commits 5001] [--dir /tmp/di-bench]

A streaming job's table (``bench/tablegen.py``: ``--commits`` commits, a checkpoint every
100 versions; 5,001 commits put a checkpoint at the latest version, 5,000) is generated once
into ``--dir`` and uploaded to moto's S3 server on a free loopback port, in its own process.
The server counts every request it answers (a WSGI layer in front of moto's application),
so what is counted is what a store would bill, whoever the client is. Each question runs as
a whole process, once per side, the same storage options over the same server:

* ``detail``: ``detail --json`` vs ``DeltaTable(uri)`` and its ``metadata()``;
* ``history10``: ``history --limit 10 --json`` vs ``DeltaTable(uri).history(10)``;
* ``history``: ``history --json`` vs ``DeltaTable(uri).history()``;
* ``files``: ``files --version N --json`` (``N`` = the latest version - 10, not a
  checkpoint's) vs ``DeltaTable(uri, version=N).file_uris()``.

Each of our cases has its own empty log index (``DELTA_INSPECTOR_LOG_INDEX_FOLDER``) and
runs three times: the first read (case ``detail``), a second read of the unchanged table
(``detail-second``), and, once every case has read twice, a read after ``K`` new commits
were written to the bucket (``detail-after3``); deltalake, which keeps nothing, is counted
beside each. The GETs of commit files and of checkpoint parts are counted apart
(``ours_log_gets``): a second read should make none, a read after k new commits k.

It prints a Markdown table (requests by kind: LIST, GET, HEAD) and saves the rows as
``bench/results/bench_requests.json`` for the targets table of ``docs/performance.md``
(``bench/targets.py``): the first read makes no more requests than deltalake; the later
reads GET no commit or checkpoint but the new commits.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from collections import Counter
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_object_store import BUCKET, moto_server, serve_until_told, upload  # noqa: E402
from bench_scale import compile_project, ensure_table  # noqa: E402

from bench.results import machine, save  # noqa: E402

TAKE = "/__bench_requests__"  # the counting layer's own path: the requests so far, then none

_OPEN = """
import json, os, sys
from deltalake import DeltaTable
options = json.loads(os.environ["BENCH_OPTIONS"])
"""
THEIRS = {
    "detail": _OPEN + "t = DeltaTable(sys.argv[1], storage_options=options)\n"
    "print(t.version(), t.metadata().id, t.schema().to_json(), t.protocol())",
    "history10": _OPEN + "json.dump(DeltaTable(sys.argv[1], storage_options=options)"
    ".history(10), sys.stdout, default=str)",
    "history": _OPEN + "json.dump(DeltaTable(sys.argv[1], storage_options=options)"
    ".history(), sys.stdout, default=str)",
    "files": _OPEN + "t = DeltaTable(sys.argv[1], storage_options=options, "
    "version=int(sys.argv[2]))\nprint(len(t.file_uris()), t.schema().to_json())",
}
CASES = ("detail", "history10", "history", "files")
K = 3  # the new commits of the reads after new commits
_COMMIT = re.compile(r"/_delta_log/\d{20}\.json$")
_CHECKPOINT = re.compile(r"/_delta_log/\d{20}\.checkpoint\.[^/]*parquet$")


def serve(port: int) -> None:
    """The moto server process, counting requests: one bucket, then serve until stdin closes."""
    import logging

    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    moto = DomainDispatcherApplication(create_backend_app)
    seen: list[tuple[str, str, str]] = []

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == TAKE:
            body = json.dumps(seen).encode()
            seen.clear()
            start_response("200 OK", [("Content-Type", "application/json")])
            return [body]
        seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], environ["QUERY_STRING"]))
        return moto(environ, start_response)

    server = make_server("127.0.0.1", port, counting, threaded=True)
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    serve_until_told(port)
    server.shutdown()


def counting_server() -> AbstractContextManager[dict[str, str]]:
    """The counting moto server (:func:`bench_object_store.moto_server`) for a ``with`` block."""
    return moto_server(__file__)


def take(options: dict[str, str]) -> list[tuple[str, str, str]]:
    """The requests the server answered since the last call (and none from now on)."""
    with urllib.request.urlopen(options["AWS_ENDPOINT_URL"] + TAKE) as answer:
        return [tuple(r) for r in json.load(answer)]


def kind(method: str, path: str, query: str) -> str:
    """LIST (a listing of the bucket), GET, HEAD or the method."""
    if method == "GET" and path.rstrip("/") == f"/{BUCKET}" and "list-type" in query:
        return "LIST"
    return method


def count(cmd: list[str], env: dict[str, str], options: dict[str, str]) -> Counter[str]:
    """Run one process against the server; its requests by kind, and its GETs of commit
    files (``commit GET``) and of checkpoint parts (``checkpoint GET``) besides."""
    take(options)
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:5])} exited {done.returncode}: {done.stderr[-2000:]!r}")
    made = take(options)
    counts = Counter(kind(*r) for r in made)
    for method, path, _ in made:
        if method == "GET" and _COMMIT.search(path):
            counts["commit GET"] += 1
        elif method == "GET" and _CHECKPOINT.search(path):
            counts["checkpoint GET"] += 1
    return counts


def append_commits(uri: str, newest: int, k: int, options: dict[str, str]) -> None:
    """Write ``k`` new commits to the bucket: copies of the newest commit's actions under new
    file names (what a streaming job's next appends look like to a log reader)."""
    import obstore
    from bench_object_store import s3_store

    store = s3_store(options)
    prefix = uri[len(f"s3://{BUCKET}/") :] + "/_delta_log/"
    model = bytes(obstore.get(store, f"{prefix}{newest - 1:020d}.json").bytes())  # an append
    for i in range(1, k + 1):
        data = model.replace(b"-0000-0000-0000-", f"-{i:04d}-0000-0000-".encode())
        obstore.put(store, f"{prefix}{newest + i:020d}.json", data, mode="create")


def main(argv: list[str] | None = None) -> int:
    """Generate and upload the table, count both sides' requests, print and save them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=5001)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-bench"))
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    os.makedirs(args.dir, exist_ok=True)
    compile_project(str(REPO))
    name = f"c{args.commits}"
    local = ensure_table(args.dir, name)
    started = machine()
    with counting_server() as options:
        rows = measure(Path(local), name, args.commits - 11, args.cases.split(","), options)
    print(save("bench_requests", rows, started=started), file=sys.stderr)
    return 0


def measure(
    local: Path, name: str, version: int, cases: list[str], options: dict[str, str]
) -> list[dict[str, Any]]:
    """Upload the table, then count each case's requests, ours and deltalake's: a first read
    and a second one of every case, then ``K`` new commits, then a read after them."""
    uri = upload(local, name, options)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DELTA_"))}
    env["BENCH_OPTIONS"] = json.dumps(options)
    flags = [a for k, v in options.items() for a in ("--storage-option", f"{k}={v}")]
    cli = [sys.executable, "-m", "inspector"]
    ours = {
        "detail": [*cli, "detail", uri, "--json", *flags],
        "history10": [*cli, "history", uri, "--limit", "10", "--json", *flags],
        "history": [*cli, "history", uri, "--json", *flags],
        "files": [*cli, "files", uri, "--version", str(version), "--json", *flags],
    }
    chosen = [c for c in CASES if c in cases]
    indexes = tempfile.mkdtemp(prefix="bench-requests-index-")
    envs = {
        c: {**env, "DELTA_INSPECTOR_LOG_INDEX_FOLDER": os.path.join(indexes, c)} for c in chosen
    }
    print("| table | case | ours | deltalake 1.6.6 | ours by kind | deltalake by kind |")
    print("|---|---|---|---|---|---|")
    rows = []

    def one(case: str, row_case: str, budget: int | None) -> None:
        mine = count(ours[case], envs[case], options)
        theirs = count([sys.executable, "-c", THEIRS[case], uri, str(version)], env, options)
        rows.append(_row(name, row_case, mine, theirs, budget))

    for case in chosen:
        one(case, case, None)
        one(case, f"{case}-second", 0)
    newest = max(int(p.name[:20]) for p in (local / "_delta_log").glob("*.json"))
    append_commits(uri, newest, K, options)
    for case in chosen:
        one(case, f"{case}-after{K}", K)
    return rows


def _row(
    name: str, case: str, mine: Counter[str], theirs: Counter[str], budget: int | None
) -> dict[str, Any]:
    """One row: both sides' requests; for a later read, its GETs of log files and the budget."""
    log_gets = {k: mine.pop(f"{k} GET", 0) for k in ("commit", "checkpoint")}
    for k in ("commit", "checkpoint"):
        theirs.pop(f"{k} GET", None)
    row: dict[str, Any] = {
        "table": name,
        "case": case,
        "ours_requests": sum(mine.values()),
        "theirs_requests": sum(theirs.values()),
        "ours_by_kind": dict(mine),
        "theirs_by_kind": dict(theirs),
        "ours_log_gets_by_kind": log_gets,
        "runs": 1,
    }
    if budget is not None:  # "theirs" is the budget: k GETs of new commits (0 unchanged)
        row["ours_log_gets"], row["theirs_log_gets"] = sum(log_gets.values()), budget
    print(
        f"| {name} | {case} | {row['ours_requests']} | {row['theirs_requests']} "
        f"| {_kinds(mine)}; commit GETs {log_gets['commit']}, checkpoint GETs "
        f"{log_gets['checkpoint']} | {_kinds(theirs)} |",
        flush=True,
    )
    return row


def _kinds(counts: Counter[str]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))


if __name__ == "__main__":
    sys.exit(main())
