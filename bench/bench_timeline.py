"""Benchmark: the app's first Timeline screen of a 100,000-commit table, locally and on S3.

Run from the repository root::

    .venv/bin/python bench/bench_timeline.py [--commits 100000] [--repeat 3]
        [--dir /tmp/di-bench] [--only local|s3] [--s3-options FILE [--index DIR]]

The table is a streaming job's log (``bench/tablegen.py``: a commit a minute, an OPTIMIZE
every 100 commits, a checkpoint every 100 versions), generated once into ``--dir``; for S3
only its ``_delta_log`` is uploaded to moto's server on loopback (the Timeline reads no data
file). Each process (below) first warms up (imports, Streamlit's one-time component scan, given to the timed ``AppTest``: what a running server has done before anyone
opens a table), then times:

* **first Timeline screen**: ``AppTest`` runs ``app.py`` at ``/timeline?table=...``, the
  sidebar included, from opening the table to the drawn page (the newest page of the history:
  about 2,000 versions locally, 250 on S3, where each commit is a request and the window
  fills from the background reading; older ones are read afterwards, in the background);
* **whole history drawn**: from the drawn first screen, the rest of the history read
  (waited for as the page's progress fragment does: it looks every ``POLL_S``, then the page
  is drawn again) and the Timeline drawn again with all of it. On a first open that is as
  slow as moto serves 100,000 GETs (about 110 a second; no target), and it fills the log
  index the later open reads; a later open draws the kept newest window on its first screen
  (no GET, the whole listing not gone through: ``ui/history_load.py``) and the whole kept
  history (``inspector/table/history_store.py``) after it;
* **retention band drawn** (no target): from there, until the chart's retention band is
  drawn (a pass over every commit's removes on a first open, kept for a later one, worked out
  in the background: ``ui/pages/timeline_retention.py``);
* the baseline, in the same process: deltalake 1.6.6's ``DeltaTable(uri).history(2000)``
  (the same 2,000 newest entries, without drawing anything), for a ratio.

Each repetition is two fresh processes sharing a new, empty log index folder: the *first
open* fills it (its whole history and the band read and kept), the *later open* (a new
server process, as after a restart) reads from it. A local later open, as an S3 one, draws
the kept newest page and then the kept whole history (``NEWEST_FIRST_FROM`` in
``ui/history_load.py``), its whole listing made from the listing record (no ``stat`` of
100,000 commit files: ``inspector/log/relist.py``).

``--s3-options FILE`` reuses a running moto server that holds the table already (uploading
101,000 objects takes about 9 minutes under load). On S3 a later open reads the listing
record (``inspector/log/relist.py``) and the kept whole history. ``--index FOLDER`` (with
``--s3-options``) times later opens only, reading a folder (DIR) a first open filled (a first
open's whole history takes about 25 minutes at moto's speed); their rows replace those of
the saved run.

Targets (issue #24, item 2; #35): the first screen in at most 2 s locally (first and later
open); on S3 at most 5 s on the first open and 1 s on a later one, with the whole history
drawn within 2 s. Medians over the repetitions, wall clock and CPU time (user + system of the
process); the figures with a target are saved as ``bench/results/bench_timeline.json`` for ``docs/performance.md`` (a run of
``--only local`` or ``--only s3`` replaces only its own rows).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

TARGET_S = {
    "local first open": 2.0,
    "local later open": 2.0,
    "s3 first open": 5.0,
    "s3 later open": 1.0,
}
WHOLE_S = 2.0  # the whole history drawn after the first screen, S3 (#35)
NEWEST = 2000  # the versions the first screen draws


def _child(where: str, uri: str, options: dict[str, str]) -> None:
    """One repetition: one JSON line per step (``step``, ``wall``, ``cpu``, ``note``)."""
    os.environ.setdefault("DELTA_INSPECTOR_RECENT_TABLES_FILE", os.devnull)
    os.environ["DELTA_INSPECTOR_SPARK_WARMUP"] = "false"
    os.environ.update(options)  # the app reads AWS_* from the environment
    sys.argv = ["app.py"]
    from deltalake import DeltaTable
    from streamlit.testing.v1 import AppTest

    def step(name: str, action: Callable[[], object], note: Callable[[object], str]) -> object:
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        line = {"step": name, "wall": wall, "cpu": cpu, "note": note(result)}
        print(json.dumps(line), flush=True)
        return result

    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401

    import ui.pages.timeline  # noqa: F401
    from ui.history_load import HistoryLoad
    from ui.pages.timeline_pages import POLL_S
    from ui.pages.timeline_retention import PENDING

    warm = AppTest.from_function(_blank)
    warm.run()  # Streamlit's one-time scan for components

    def first_screen() -> AppTest:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=900)
        # A server scans once, at start; an AppTest scans on its first run unless given one.
        at._bidi_component_manager = warm._bidi_component_manager
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

    def whole_drawn(at: AppTest) -> AppTest:
        """Wait as the page's progress fragment does (it looks every ``POLL_S``), then rerun
        the page (as it does once the history is read), until no progress bar is left."""
        while True:
            loads = [o for o in gc.get_objects() if isinstance(o, HistoryLoad)]
            while not all(load.done for load in loads):
                time.sleep(POLL_S)
            at.run()
            if at.exception or at.error:
                raise SystemExit(f"the app failed: {at.exception} {[e.value for e in at.error]}")
            if not at.get("progress"):
                return at

    def band_drawn(at: AppTest) -> AppTest:
        """Rerun (as the band's fragment does, every second) until the band is drawn."""
        while any(PENDING in c.value for c in at.caption):
            time.sleep(0.1)
            at.run()
        return at

    shown = step(f"first Timeline screen ({where})", first_screen, drawn)
    # A first open's fill the index the later open reads.
    step(f"whole history drawn ({where})", lambda: whole_drawn(shown), drawn)  # type: ignore[arg-type]
    step(f"retention band drawn ({where})", lambda: band_drawn(shown), banded)  # type: ignore[arg-type]
    step(
        f"deltalake history({NEWEST}) ({where}, baseline)",
        lambda: DeltaTable(uri, storage_options=options or None).history(NEWEST),
        lambda h: f"{len(h):,} entries",  # type: ignore[arg-type]
    )


def banded(at: object) -> str:
    """How many runs of versions the chart's retention band has."""
    from streamlit.testing.v1 import AppTest

    assert isinstance(at, AppTest)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    return f"{len(figure['layout'].get('shapes', ())):,} runs of versions in the retention band"


def _blank() -> None:
    import streamlit as st

    st.write("warm")


def _runs(
    where: str, uri: str, options: dict[str, str], repeat: int, index: str | None = None
) -> dict[str, list[dict]]:
    """``repeat`` fresh processes (locally); on S3 pairs of them, a first open and a later
    one, sharing a new, empty log index folder, or later opens only, reading ``index``."""
    results: dict[str, list[dict]] = {}
    opens = (f"{where} first open", f"{where} later open")
    opens = (f"{where} later open",) if index else opens
    for i in range(repeat):
        env = {**os.environ, "DELTA_INSPECTOR_LOG_INDEX_FOLDER": index or tempfile.mkdtemp()}
        for label in opens:
            _child_run(label, uri, options, env, results)
        print(f"{where} run {i + 1}/{repeat} done", file=sys.stderr)
    return results


def _child_run(
    label: str, uri: str, options: dict[str, str], env: dict[str, str], into: dict[str, list[dict]]
) -> None:
    out = subprocess.run(
        [sys.executable, __file__, "--child", label, uri, json.dumps(options)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            into.setdefault(record["step"], []).append(record)


def _upload(local: str, name: str, options: dict[str, str]) -> str:
    """The table's ``_delta_log`` uploaded to moto's server: its URI."""
    from bench_object_store import upload

    began = time.perf_counter()
    upload(Path(local) / "_delta_log", f"{name}/_delta_log", options)
    print(f"uploaded in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return f"s3://bench/{name}"


def main(argv: list[str] | None = None) -> int:
    """Generate (or reuse) the table, run the repetitions and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-bench"))
    parser.add_argument("--only", choices=("local", "s3"))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument(
        "--s3-options",
        help="a JSON file of the options of an S3 server (moto) that holds the table's "
        "_delta_log at s3://bench/c<commits> already: it is not started or uploaded again",
    )
    parser.add_argument(
        "--index",
        help="with --s3-options: a log index folder a first open of that table has filled; "
        "only later opens are timed (each a fresh process reading it), and their rows replace "
        "those of the saved run (its first open's are kept)",
    )
    args = parser.parse_args(argv)
    if args.index and not args.s3_options:
        parser.error("--index needs --s3-options (the server whose table it holds)")
    if args.child:
        _child(args.child[0], args.child[1], json.loads(args.child[2]))
        return 0
    from bench_scale import ensure_table

    os.makedirs(args.dir, exist_ok=True)
    name = f"c{args.commits}"
    # A server that holds the table already (--s3-options) needs no local copy.
    remote_only = args.only == "s3" and args.s3_options
    local = "" if remote_only else ensure_table(args.dir, name)
    results: dict[str, list[dict]] = {}
    from bench.results import machine

    started = machine()
    if args.only in (None, "local"):
        results |= _runs("local", local, {}, args.repeat)
    if args.only in (None, "s3") and args.s3_options:
        with open(args.s3_options) as fh:
            options = json.load(fh)
        results |= _runs("s3", f"s3://bench/{name}", options, args.repeat, args.index)
    elif args.only in (None, "s3"):
        from bench_object_store import moto_server

        with moto_server() as options:
            results |= _runs("s3", _upload(local, name, options), options, args.repeat)
    rows = _print(results, args.repeat)
    if rows:
        from bench.results import save

        for row in rows:
            row["table"] = name
        # later opens only, or one place: the other rows stay
        merge = args.index is not None or args.only is not None
        print(save("bench_timeline", rows, started=started, merge=merge), file=sys.stderr)
    return 0


def _print(results: dict[str, list[dict]], repeat: int) -> list[dict]:
    """Print the medians; return the S3 rows for the targets (a budget in s as "theirs")."""
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
    rows = []
    for name, records in results.items():
        wall = statistics.median(r["wall"] for r in records)
        cpu = statistics.median(r["cpu"] for r in records)
        where = next(w for w in TARGET_S if f"({w}" in name)
        budget = {"first": TARGET_S[where], "whole": WHOLE_S}.get(name.split()[0])
        whole_s3_later = "later" in name and "s3" in name  # #35's budget for the whole history
        budget = None if name.startswith("whole") and not whole_s3_later else budget
        target = f"≤ {budget:g} s" if budget else ""
        met = ("yes" if wall <= budget else "**no**") if budget else ""
        ratio = f"{wall / baseline[where]:.1f}" if budget and where in baseline else ""
        note = records[-1]["note"]
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {target} | {met} | {ratio} | {note} |")
        if budget:  # first-first, whole-later, ...; locally first-later-local, ...
            case = f"{name.split()[0]}-{where.split()[1]}"
            case += "-local" if where.startswith("local") else ""
            rows.append(
                {"case": case, "ours_s": wall, "ours_cpu": cpu, "theirs_s": 1.0}
                | {"theirs_cpu": 1.0, "runs": len(records), "note": note}
            )
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
