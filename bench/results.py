"""Benchmark results on disk: what a run measured, with the machine's load, as JSON.

Each benchmark that feeds a target saves its rows with :func:`save` into
``bench/results/<bench>.json`` (one file per benchmark, the newest run wins); the summary
table of ``docs/performance.md`` is generated from these files by ``bench/targets.py``
(cog), so the table cannot drift from what was measured.
"""

from __future__ import annotations

import json
import os
import platform
import time
from typing import Any

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine() -> dict[str, Any]:
    """The machine facts a figure needs beside it: cores, load, when."""
    return {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load": [round(x, 1) for x in os.getloadavg()],
        "python": platform.python_version(),
    }


def save(
    bench: str, rows: list[dict[str, Any]], *, started: dict[str, Any], merge: bool = False
) -> str:
    """Write one run's rows, with the load when it started and when it ended.

    Args:
        bench: The benchmark's name (``bench_scale``).
        rows: One dict per measured case, as the benchmark prints it.
        started: :func:`machine` taken before the first measurement.
        merge: Keep the saved rows of other (table, case) pairs: a run of some cases
            replaces only those. Every row then carries its own run's ``started`` and
            ``ended`` (the targets table shows each row's).

    Returns:
        The path written.
    """
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{bench}.json")
    ended = machine()
    previous = load(bench) if merge else None
    if previous is not None:
        mine = {(r["table"], r["case"]) for r in rows}
        kept = [
            {"started": previous["started"], "ended": previous["ended"], **r}
            for r in previous["rows"]
            if (r["table"], r["case"]) not in mine
        ]
        rows = kept + [{"started": started, "ended": ended, **r} for r in rows]
    body = {"bench": bench, "started": started, "ended": ended, "rows": rows}
    with open(path + ".partial", "w") as out:
        json.dump(body, out, indent=1, sort_keys=True)
        out.write("\n")
    os.replace(path + ".partial", path)
    return path


def load(bench: str) -> dict[str, Any] | None:
    """The newest saved run of ``bench``, or None when it was never run here."""
    try:
        with open(os.path.join(RESULTS, f"{bench}.json")) as src:
            body: dict[str, Any] = json.load(src)
            return body
    except FileNotFoundError:
        return None
