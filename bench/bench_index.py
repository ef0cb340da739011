"""Benchmark: the log index (#35): what filling it costs, what a second read saves.

Run from the repository root::

    .venv/bin/python bench/bench_index.py [--tables c20000,f300000] [--repeat 3]
        [--dir /tmp/di-bench] [--s3 c5001] [--cases fill,warm,small,memory,s3]

Every figure is a whole process (``bench_scale.run``: wall, CPU = user + system, peak RSS),
the median of ``--repeat`` interleaved runs, against a baseline measured in the same run:

* ``history-fill`` (local): ``history --json`` filling an empty index, against the same
  command with ``--no-cache`` (a first read without the index): what filling costs;
* ``history-warm`` (local): ``history --json`` from a warm index, against deltalake 1.6.6's
  ``DeltaTable(t).history()``;
* ``detail-warm`` / ``history10-warm`` (local): ``detail --json`` and
  ``history --limit 10 --json`` read a second time (the index filled by the read before),
  against deltalake's whole process (``DeltaTable(t)``, ``DeltaTable(t).history(10)``);
* ``detail-memory`` / ``history10-memory`` (local): peak memory of ``detail --json`` and
  ``history --limit 10 --json`` with a cache holding every bench table, against the same
  command with an empty cache: no command's memory grows with the cache;
* ``history-warm-s3`` (``--s3``, moto on loopback as in ``bench_requests.py``): the second
  ``history --json`` of an unchanged table, against deltalake's ``history()`` (wall time:
  on an object store the wait is the requests).

The CLI runs as shipped: on a local disk a read of many commit files (or of a big commit)
goes through the index (``LOCAL_FROM``, ``LOCAL_BYTES`` in ``inspector/log/index/tables.py``)
and a whole history is kept whole (``inspector/table/history_store.py``). Results go to ``bench/results/bench_index.json`` for ``docs/performance.md``'s targets.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

from bench_scale import PY, compile_project, ensure_table, figures, run  # noqa: E402

from bench.results import machine, save  # noqa: E402

DELTALAKE_HISTORY = (
    "import sys; from deltalake import DeltaTable; DeltaTable(sys.argv[1]).history()"
)
DELTALAKE_OPEN = "import sys; from deltalake import DeltaTable; DeltaTable(sys.argv[1])"
DELTALAKE_HISTORY10 = (
    "import sys; from deltalake import DeltaTable; DeltaTable(sys.argv[1]).history(10)"
)
CASES = ("fill", "warm", "small", "memory", "s3")


def cli(*args: str) -> list[str]:
    """This project's CLI, as shipped."""
    return [PY, "-m", "inspector", *args]


def _with_cache(folder: str) -> None:
    os.environ["DELTA_INSPECTOR_LOG_INDEX_FOLDER"] = folder


def local_rows(table: str, name: str, repeat: int, cache: str, cases: list[str]) -> list[dict]:
    """history-fill and history-warm of one local table (the cache is left filled)."""
    history = ("history", table, "--json")
    plain, filled, warm, theirs = [], [], [], []
    for _ in range(repeat):
        _with_cache(cache)
        plain.append(run(cli(*history, "--no-cache")))
        shutil.rmtree(cache, ignore_errors=True)
        filled.append(run(cli(*history)))
        warm.append(run(cli(*history)))
        theirs.append(run([PY, "-c", DELTALAKE_HISTORY, table]))
    rows = []
    if "fill" in cases:
        rows.append({"table": name, "case": "history-fill", **figures(filled, plain)})
    if "warm" in cases:
        rows.append({"table": name, "case": "history-warm", **figures(warm, theirs)})
    return rows


def small_rows(table: str, name: str, repeat: int, cache: str) -> list[dict]:
    """The small commands read a second time (the index filled by a first read) against
    deltalake's whole process, interleaved."""
    rows = []
    for case, args, theirs_code in (
        ("detail-warm", ("detail", table, "--json"), DELTALAKE_OPEN),
        ("history10-warm", ("history", table, "--limit", "10", "--json"), DELTALAKE_HISTORY10),
    ):
        _with_cache(cache)
        run(cli(*args))  # the first read fills the index
        mine, theirs = [], []
        for _ in range(repeat):
            mine.append(run(cli(*args)))
            theirs.append(run([PY, "-c", theirs_code, table]))
        rows.append({"table": name, "case": case, **figures(mine, theirs)})
    return rows


def memory_rows(tables: dict[str, str], repeat: int, full: str, empty: str) -> list[dict]:
    """Peak memory of the small commands with a full cache against an empty one."""
    rows = []
    for name, table in tables.items():
        for case, args in (
            ("detail-memory", ("detail", table, "--json")),
            ("history10-memory", ("history", table, "--limit", "10", "--json")),
        ):
            mine, theirs = [], []
            for _ in range(repeat):
                shutil.rmtree(empty, ignore_errors=True)
                _with_cache(empty)
                theirs.append(run(cli(*args)))
                _with_cache(full)
                mine.append(run(cli(*args)))
            rows.append({"table": name, "case": case, **figures(mine, theirs)})
    return rows


def s3_rows(folder: str, name: str, cache: str) -> list[dict]:
    """The second full history on S3 (moto) against deltalake's, once each (minutes)."""
    from bench_object_store import upload
    from bench_requests import counting_server, kind, take

    local = ensure_table(folder, name)
    with counting_server() as options:
        uri = upload(Path(local), name, options)
        saved = dict(os.environ)
        os.environ.update({"BENCH_OPTIONS": json.dumps(options)})
        flags = [a for k, v in options.items() for a in ("--storage-option", f"{k}={v}")]
        shutil.rmtree(cache, ignore_errors=True)
        _with_cache(cache)
        first = run(cli("history", uri, "--json", *flags))
        take(options)
        second = run(cli("history", uri, "--json", *flags))
        asked = Counter(kind(*r) for r in take(options))
        theirs = run([PY, "-c", _DELTALAKE_S3, uri])
        their_asked = Counter(kind(*r) for r in take(options))
        os.environ.clear()
        os.environ.update(saved)
    row: dict[str, Any] = {"table": name, "case": "history-warm-s3", **figures([second], [theirs])}
    row["first_s"] = first[0]
    row["ours_by_kind"], row["theirs_by_kind"] = dict(asked), dict(their_asked)
    return [row]


_DELTALAKE_S3 = (
    "import json, os, sys\nfrom deltalake import DeltaTable\n"
    "options = json.loads(os.environ['BENCH_OPTIONS'])\n"
    "DeltaTable(sys.argv[1], storage_options=options).history()"
)


def main(argv: list[str] | None = None) -> int:
    """Measure the cases asked for, print a Markdown table, save the rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="c20000,f300000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-bench"))
    parser.add_argument("--s3", default="c5001")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args(argv)
    cases = args.cases.split(",")
    compile_project(REPO)
    work = tempfile.mkdtemp(prefix="bench-index-")
    full = os.path.join(work, "full")
    tables = {n: ensure_table(args.dir, n) for n in args.tables.split(",")}
    started, rows = machine(), []
    try:
        for name, table in tables.items():
            if {"fill", "warm", "memory"} & set(cases):  # memory needs the cache filled
                rows += local_rows(table, name, args.repeat, full, cases)
            if "small" in cases:
                rows += small_rows(table, name, args.repeat, full)
        if "memory" in cases:  # the cache now holds every bench table
            rows += memory_rows(tables, args.repeat, full, os.path.join(work, "empty"))
        if "s3" in cases:
            rows += s3_rows(args.dir, args.s3, os.path.join(work, "s3"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        "| table | case | ours s | theirs s | ours CPU | theirs CPU | CPU ratio | MB ours | MB theirs |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "ours_by_kind" in r:
            print(
                f"second history on S3, requests: {r['ours_by_kind']} (deltalake {r['theirs_by_kind']})"
            )
        print(
            f"| {r['table']} | {r['case']} | {r['ours_s']:.2f} | {r['theirs_s']:.2f} "
            f"| {r['ours_cpu']:.2f} | {r['theirs_cpu']:.2f} "
            f"| {r['ours_cpu'] / max(r['theirs_cpu'], 0.01):.2f} "
            f"| {r['ours_mb']:.0f} | {r['theirs_mb']:.0f} |"
        )
    print(f"saved {save('bench_index', rows, started=started, merge=True)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
