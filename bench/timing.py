"""How a benchmark times work in this process: one untimed warm-up round, then interleaved
repeats, so a change of the machine's load falls on every side alike; medians are taken by
the caller.
"""

from __future__ import annotations

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
