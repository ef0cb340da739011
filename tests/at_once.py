"""Run the same read in several threads released together (tests of concurrent writers)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def at_once(read: Callable[[], T], readers: int = 4) -> list[T]:
    """What ``read`` returned in each of ``readers`` threads, all started behind one barrier."""
    barrier = threading.Barrier(readers)
    found: list[T] = []

    def run() -> None:
        barrier.wait()
        found.append(read())

    threads = [threading.Thread(target=run) for _ in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return found
