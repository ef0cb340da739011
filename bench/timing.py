"""How a benchmark times work: in this process, one untimed warm-up round, then interleaved
repeats, so a change of the machine's load falls on every side alike (medians are taken by
the caller); in a fresh process, a child that prints its figures as JSON lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: A side of a comparison: an untimed setup that returns the timed step.
Setup = Callable[[], Callable[[], object]]


@dataclass(frozen=True, kw_only=True)
class Timings:
    """What :func:`interleaved` measured.

    Attributes:
        seconds: Each side's wall seconds, one per timed round.
        last: Each side's last result.
    """

    seconds: dict[str, list[float]]
    last: dict[str, Any]


def interleaved(sides: Mapping[str, Setup], repeat: int) -> Timings:
    """Run every side once untimed (round 0 warms the JVM's and the caches' paths up), then
    ``repeat`` rounds that time each side in turn; only the step a setup returns is timed."""
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    last: dict[str, Any] = {}
    for round_ in range(repeat + 1):
        for name, setup in sides.items():
            step = setup()
            start = time.perf_counter()
            last[name] = step()
            if round_:
                seconds[name].append(time.perf_counter() - start)
    return Timings(seconds=seconds, last=last)


def step(action: Callable[[], object]) -> Setup:
    """A side with nothing to set up: ``action`` is timed each round."""
    return lambda: action


def child_records(script: str, args: list[str]) -> list[dict[str, Any]]:
    """Run ``script --child ARGS`` in a fresh Python process from the repository root; the
    JSON objects it printed, one a line (a failed child stops the benchmark with its output).
    """
    out = subprocess.run(
        [sys.executable, script, "--child", *args],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"{args[0]} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
