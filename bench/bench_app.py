"""Benchmark: the app's pages at scale, driven through Streamlit's AppTest.

Run from the repository root::

    .venv/bin/python bench/bench_app.py [--repeat 5] [--dir /tmp/di-bench]

Tables (generated once by ``bench/tablegen.py`` into ``--dir`` and reused): ``c20000``
(20,000 commits) and ``f300000`` (300,000 files in version 0, then a 6,000-action MERGE,
an append of 1,000 files and a DELETE).

Each repetition is a fresh process. It first opens the table and reads its history the
way the app does (``ui.tables.open_table`` + ``ui.tables.history``, the sidebar's cached
calls), timed on its own as "open + history"; then it runs the app with AppTest (each
``run()`` is one whole pass of ``app.py``, the sidebar included, as a browser rerun is)
and times every step, wall clock and CPU (user + system of the whole process, the
steadier figure on a shared machine). Figures are medians over the repetitions.

Steps: on ``c20000``, the Timeline's first draw, the sidebar's Older button, the chart's
"Older versions" window button, a version pick (what a click on a mark or a history row
does: select the version and rerun) and an operation filter. On ``f300000``, the Version
page of version 1 (the MERGE) and of version 0 (300,000 added files) with a move to page 2
of its file table, and the Diff page (opened at version 2: 1 to 2), then From version 0
(a new diff, 0 to 2, so timed as a first draw) and page 2 of its added files.
Targets (issue #11, item 6): first draw of a page at most 2 s, each later interaction at
most 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

FIRST_DRAW_S, INTERACTION_S = 2.0, 0.3
FIRST_SCREEN_S = {"orders": 1.5, "c20000": 2.0}  # issue #27: the first Timeline screen, cold


def _child(scenario: str, table: str) -> None:
    """One repetition: print one JSON line per step (``step``, ``wall``, ``cpu``, ``note``)."""
    os.environ.setdefault("DELTA_INSPECTOR_RECENT_TABLES_FILE", os.devnull)
    os.environ["DELTA_INSPECTOR_SPARK_WARMUP"] = "false"  # no JVM starting in the background
    sys.argv = ["app.py"]  # the app reads its launch options from argv
    from streamlit.testing.v1 import AppTest

    from inspector.settings import Settings
    from ui import tables

    def step(name: str, action: Callable[[], object], note: str = "") -> object:
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(json.dumps({"step": name, "wall": wall, "cpu": cpu, "note": note}), flush=True)
        return result

    def warm_up() -> None:  # what a running server has done before anyone opens a table
        import pandas  # noqa: F401
        import plotly.graph_objects  # noqa: F401

        import ui.pages.diff  # noqa: F401
        import ui.pages.timeline  # noqa: F401
        import ui.pages.version  # noqa: F401

        AppTest.from_function(_blank).run()  # Streamlit's one-time scan for components

    step("process warm-up (imports, Streamlit start)", warm_up)
    settings = Settings.from_env()
    opened = time.perf_counter(), time.process_time()
    step(
        "open + history (backend, cached for every page)",
        lambda: tables.history(tables.open_table(table, settings).log, settings),
    )

    def app(view: str, version: int | None = None) -> AppTest:
        at = AppTest.from_file(os.path.join(REPO, "app.py"), default_timeout=900)
        at.query_params["table"] = table
        at.query_params["view"] = view
        if version is not None:
            at.query_params["version"] = str(version)
        return at

    def checked(at: AppTest) -> AppTest:
        if at.exception or at.error:
            raise SystemExit(f"the app failed: {at.exception} {[e.value for e in at.error]}")
        return at

    if scenario in ("timeline", "orders"):
        at = app("timeline")
        step("Timeline: first draw", lambda: checked(at.run()))
        name = "orders" if scenario == "orders" else "20,000 commits"
        print(  # what a user waits for: the table opened, its history read, the page drawn
            json.dumps(
                {
                    "step": f"first Timeline screen, {name} (open + history + first draw)",
                    "wall": time.perf_counter() - opened[0],
                    "cpu": time.process_time() - opened[1],
                    "note": "",
                }
            ),
            flush=True,
        )
        if scenario == "orders":
            return
        drawn = len(at.dataframe[0].value)
        step(
            "Timeline: rerun, nothing changed",
            lambda: checked(at.run()),
            f"{drawn:,} rows in the table",
        )
        step("Timeline: sidebar Older", lambda: checked(at.button(key="_older").click().run()))
        step(
            "Timeline: chart window Older versions",
            lambda: checked(at.button(key="timeline_older").click().run()),
        )
        step(
            "Timeline: pick a version (as a mark click)",
            lambda: checked(at.selectbox(key="version_select").set_value(12345).run()),
        )
        step(
            "Timeline: filter by operation",
            lambda: checked(at.multiselect(key="timeline_ops").select("OPTIMIZE").run()),
        )
        return
    for version in (1, 0):
        at = app("version", version)
        step(f"Version page v{version}: first draw", lambda: checked(at.run()))
        rows = len(at.dataframe[0].value)
        step(f"Version page v{version}: rerun", lambda: checked(at.run()), f"{rows:,} rows sent")
        if version == 0:
            step(
                "Version page v0: file table page 2",
                lambda: checked(at.number_input(key="version_files_add_page").set_value(2).run()),
            )
    at = app("diff", 2)
    step("Diff page: first draw (v1 to v2)", lambda: checked(at.run()))
    step(
        "Diff page: pick From v0, a new diff (first draw of v0 to v2)",
        lambda: checked(at.selectbox(key="diff_from_2").set_value(0).run()),
    )
    files = [d for d in at.dataframe if "path" in d.value.columns]
    rows = len(files[0].value) if files else 0
    step(
        "Diff page: added files page 2",
        lambda: checked(at.number_input(key="diff_added_files_page").set_value(2).run()),
        f"{rows:,} rows sent",
    )


def _orders(directory: str) -> str:
    """The demo's orders table under ``directory`` (written once)."""
    from inspector.demo import write_demo_table

    path = os.path.join(directory, "orders")
    return path if os.path.isdir(os.path.join(path, "_delta_log")) else write_demo_table(path)


def _blank() -> None:
    import streamlit as st

    st.write("warm")


def _target(step: str) -> float | None:
    if step.startswith("first Timeline screen"):
        return FIRST_SCREEN_S["orders" if "orders" in step else "c20000"]
    if step.startswith(("open", "process")):
        return None
    return FIRST_DRAW_S if "first draw" in step else INTERACTION_S


def main(argv: list[str] | None = None) -> int:
    """Generate (or reuse) the tables, run the repetitions and print the table of figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-bench"))
    parser.add_argument("--scenarios", default="orders,timeline,files")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    from bench.bench_scale import ensure_table

    os.makedirs(args.dir, exist_ok=True)
    tables = {"timeline": "c20000", "files": "f300000"}
    results: dict[str, list[dict]] = {}
    for scenario in args.scenarios.split(","):
        table = (
            _orders(args.dir) if scenario == "orders" else ensure_table(args.dir, tables[scenario])
        )
        for i in range(args.repeat):
            out = subprocess.run(
                [sys.executable, __file__, "--child", scenario, table],
                capture_output=True,
                text=True,
                cwd=REPO,
                check=False,
            )
            if out.returncode:
                print(out.stderr[-3000:], file=sys.stderr)
                return 1
            for line in out.stdout.splitlines():
                if line.startswith("{"):
                    record = json.loads(line)
                    results.setdefault(record["step"], []).append(record)
            print(f"{scenario} run {i + 1}/{args.repeat} done", file=sys.stderr)
    _print(results, args.repeat)
    return 0


def _print(results: dict[str, list[dict]], repeat: int) -> None:
    load = os.getloadavg()
    print(
        f"\nmedian of {repeat} fresh processes; load average {load[0]:.1f} on {os.cpu_count()} CPUs\n"
    )
    print("| step | wall | CPU | target | met (wall) | met (CPU) | note |")
    print("|---|---|---|---|---|---|---|")
    for name, records in results.items():
        wall = statistics.median(r["wall"] for r in records)
        cpu = statistics.median(r["cpu"] for r in records)
        target = _target(name)
        met = ("yes" if wall <= target else "**no**") if target else ""
        met_cpu = ("yes" if cpu <= target else "**no**") if target else ""
        limit = f"≤ {target:g} s" if target else ""
        note = next((r["note"] for r in records if r["note"]), "")
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {limit} | {met} | {met_cpu} | {note} |")


if __name__ == "__main__":
    raise SystemExit(main())
