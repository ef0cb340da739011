"""Benchmark: the app's first Timeline screen of a 100,000-commit table, locally and on S3.

Run from the repository root::

    .venv/bin/python bench/bench_timeline.py [--commits 100000] [--repeat 3]
        [--dir /tmp/delta-inspector-bench] [--only local|s3]

The table is a streaming job's log (``bench/tablegen.py``: a commit a minute, an OPTIMIZE
every 100 commits, a checkpoint every 100 versions), generated once into ``--dir``; for S3
only its ``_delta_log`` is uploaded to moto's server on loopback (the Timeline reads no data
file). Each repetition is a fresh process that first warms up (imports, Streamlit's one-time
component scan: what a running server has done before anyone opens a table), then times:

* **first Timeline screen**: ``AppTest`` runs ``app.py`` at ``/timeline?table=...``, the
  sidebar included, from opening the table to the drawn page (the newest page of the history:
  about 2,000 versions locally, 250 on S3, where each commit is a request and the window
  fills from the background reading; older ones are read afterwards, in the background);
* the baseline, in the same process: deltalake 1.6.6's ``DeltaTable(uri).history(2000)``
  (the same 2,000 newest entries, without drawing anything), for a ratio.

Targets (issue #24, item 2): the first screen in at most 2 s locally and 5 s on S3 (moto).
Medians over the repetitions, wall clock and CPU time (user + system of the process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

TARGET_S = {"local": 2.0, "s3": 5.0}
NEWEST = 2000  # the versions the first screen draws


def _child(where: str, uri: str, options: dict[str, str]) -> None:
    """One repetition: one JSON line per step (``step``, ``wall``, ``cpu``, ``note``)."""
    os.environ.setdefault("DELTA_INSPECTOR_RECENT_TABLES_FILE", os.devnull)
    os.environ["DELTA_INSPECTOR_SPARK_WARMUP"] = "false"
    os.environ.update(options)  # the app reads AWS_* from the environment
    sys.argv = ["app.py"]
    from deltalake import DeltaTable
    from streamlit.testing.v1 import AppTest

    def step(name: str, action: Callable[[], object], note: Callable[[object], str]) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        line = {"step": name, "wall": wall, "cpu": cpu, "note": note(result)}
        print(json.dumps(line), flush=True)

    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401

    import ui.pages.timeline  # noqa: F401

    AppTest.from_function(_blank).run()  # Streamlit's one-time scan for components

    def first_screen() -> AppTest:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=900)
        at.query_params["table"] = uri
        at.query_params["view"] = "timeline"
        at.run()
        if at.exception or at.error:
            raise SystemExit(f"the app failed: {at.exception} {[e.value for e in at.error]}")
        return at

    def drawn(at: object) -> str:
        assert isinstance(at, AppTest)
        table = next(d.value for d in at.dataframe if "operation" in d.value.columns)
        return (
            f"{len(table):,} versions drawn, v{table['version'].min()} to v{table['version'].max()}"
        )

    step(f"first Timeline screen ({where})", first_screen, drawn)
    step(
        f"deltalake history({NEWEST}) ({where}, baseline)",
        lambda: DeltaTable(uri, storage_options=options or None).history(NEWEST),
        lambda h: f"{len(h):,} entries",  # type: ignore[arg-type]
    )


def _blank() -> None:
    import streamlit as st

    st.write("warm")


def _runs(where: str, uri: str, options: dict[str, str], repeat: int) -> dict[str, list[dict]]:
    results: dict[str, list[dict]] = {}
    for i in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", where, uri, json.dumps(options)],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=False,
        )
        if out.returncode:
            raise SystemExit(out.stderr[-3000:])
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                results.setdefault(record["step"], []).append(record)
        print(f"{where} run {i + 1}/{repeat} done", file=sys.stderr)
    return results


def _s3(local: str, name: str) -> tuple[object, str, dict[str, str]]:
    """moto's server with the table's ``_delta_log`` uploaded: the server, the URI, options."""
    from bench_object_store import start_moto, upload

    server, options = start_moto()
    began = time.perf_counter()
    upload(Path(local) / "_delta_log", f"{name}/_delta_log", options)
    print(f"uploaded in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return server, f"s3://bench/{name}", options


def main(argv: list[str] | None = None) -> int:
    """Generate (or reuse) the table, run the repetitions and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/delta-inspector-bench")
    parser.add_argument("--only", choices=("local", "s3"))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], json.loads(args.child[2]))
        return 0
    from bench_scale import ensure_table

    os.makedirs(args.dir, exist_ok=True)
    name = f"c{args.commits}"
    local = ensure_table(args.dir, name)
    results: dict[str, list[dict]] = {}
    if args.only in (None, "local"):
        results |= _runs("local", local, {}, args.repeat)
    if args.only in (None, "s3"):
        server, uri, options = _s3(local, name)
        try:
            results |= _runs("s3", uri, options, args.repeat)
        finally:
            server.stdin.close()  # type: ignore[attr-defined]
            server.wait()  # type: ignore[attr-defined]
    _print(results, args.repeat)
    return 0


def _print(results: dict[str, list[dict]], repeat: int) -> None:
    load = os.getloadavg()
    print(f"\nmedian of {repeat} fresh processes; load average {load[0]:.1f}\n")
    print("| step | wall | CPU | target | met (wall) | ratio to deltalake (wall) | note |")
    print("|---|---|---|---|---|---|---|")
    baseline = {
        where: statistics.median(r["wall"] for r in records)
        for name, records in results.items()
        for where in TARGET_S
        if name.startswith("deltalake") and f"({where}" in name
    }
    for name, records in results.items():
        wall = statistics.median(r["wall"] for r in records)
        cpu = statistics.median(r["cpu"] for r in records)
        where = next(w for w in TARGET_S if f"({w}" in name)
        first = name.startswith("first")
        target = f"≤ {TARGET_S[where]:g} s" if first else ""
        met = ("yes" if wall <= TARGET_S[where] else "**no**") if first else ""
        ratio = f"{wall / baseline[where]:.1f}" if first and where in baseline else ""
        note = records[-1]["note"]
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {target} | {met} | {ratio} | {note} |")


if __name__ == "__main__":
    raise SystemExit(main())
