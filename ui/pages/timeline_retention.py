"""The Timeline chart's retention band: which versions are restorable, at risk or gone.

Each run of versions in one state is a pale horizontal band behind the marks (the
chart's vertical axis is the version), with a legend entry per state shown.

Working the band out is a pass over every commit's removes (:mod:`inspector.health.retention`):
seconds for 100,000 commits, which a first screen must not wait for (a later open of an
unchanged log judges the removals kept in the log index: about 1 s). It is worked out in a
background thread (:class:`BandLoad`, one per history and hour); a history of one window
waits for it, a longer one is drawn without it and again once it is there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.health.retention import RetentionState, VersionRetention, retention_view
from inspector.log.deltalog import DeltaLog
from inspector.table.history_entry import HistoryEntry

BAND_COLOURS = {
    "restorable": "#2ca02c",
    "at risk": "#f59e0b",
    "data vacuumed": "#d62728",
    "log expired": "#7f7f7f",
}


def band_of(version: VersionRetention, now_ms: int) -> str | None:
    """The band a version belongs to (None for incomplete or unreadable versions)."""
    if version.state == RetentionState.RESTORABLE:
        at_risk = version.expires_at is not None and version.expires_at <= now_ms
        return "at risk" if at_risk else "restorable"
    return {
        RetentionState.DATA_VACUUMED: "data vacuumed",
        RetentionState.LOG_EXPIRED: "log expired",
    }.get(version.state)


Runs = tuple[tuple[str, int, int], ...]
_POLL_S = 1.0  # how often a page drawn without the band looks again
PENDING = "Working out the retention band"  # said while it is (bench_timeline waits for it)


class BandLoad:
    """The band's runs of one history, worked out in a background thread (started here).

    Args:
        log: The table's log.
        history: Its whole history, oldest first.
        now_ms: The clock the band is judged at.
    """

    def __init__(self, log: DeltaLog, history: tuple[HistoryEntry, ...], now_ms: int) -> None:
        self._runs: Runs | None = None
        self._failure: Exception | None = None
        self._done = threading.Event()
        work = threading.Thread(
            target=self._work, args=(log, history, now_ms), name="retention-band", daemon=True
        )
        work.start()

    def _work(self, log: DeltaLog, history: tuple[HistoryEntry, ...], now_ms: int) -> None:
        try:
            self._runs = retention_runs(log, history, now_ms)
        except Exception as exc:  # raised to the page that draws the band
            self._failure = exc
        finally:
            self._done.set()

    def wait(self) -> None:
        """Wait until the band is worked out."""
        self._done.wait()

    def runs(self) -> Runs | None:
        """The runs, or None while they are worked out (never waits).

        Raises:
            Exception: What working them out raised (not an ``InspectorError``: a damaged
                log simply has no band).
        """
        if self._failure is not None:
            raise self._failure
        return self._runs


@st.cache_resource(max_entries=8, show_spinner=False)
def band_load(
    key: tuple[Any, ...], _log: DeltaLog, _history: tuple[HistoryEntry, ...], now_ms: int
) -> BandLoad:
    """The band of a history (``key``: the history's cache key) at ``now_ms``, once."""
    return BandLoad(_log, _history, now_ms)


def retention_runs(log: DeltaLog, history: tuple[HistoryEntry, ...], now_ms: int) -> Runs:
    """Runs of consecutive versions in one band: ``(band, first, last)``."""
    try:
        view = retention_view(log, history, now_ms=now_ms)
    except InspectorError:  # a damaged log: the chart simply has no band
        return ()
    runs: list[tuple[str, int, int]] = []
    for v in view.versions:
        band = band_of(v, now_ms)
        if band is None:
            continue
        if runs and runs[-1][0] == band and runs[-1][2] == v.version - 1:
            runs[-1] = (band, runs[-1][1], v.version)
        else:
            runs.append((band, v.version, v.version))
    return tuple(runs)


def add_retention_band(
    fig: go.Figure,
    log: DeltaLog,
    history: Sequence[HistoryEntry],
    key: tuple[Any, ...],
    drawn: tuple[int, int] | None = None,
    *,
    versions_on_x: bool = False,
    wait: bool = True,
) -> None:
    """Draw the band behind the marks and a legend entry per band shown; when it is still
    being worked out and ``wait`` is False, say so and draw the page again once it is.

    Args:
        fig: The chart.
        log: The table's log.
        history: Its history.
        key: The history's cache key (``PageContext.cache_key``).
        drawn: The first and last version the chart draws; runs outside are left out.
        versions_on_x: The chart's version axis is x (bands are then vertical).
        wait: Wait for the band (else draw without it while it is worked out).
    """
    hour_ms = 3_600_000
    now = int(time.time() * 1000) // hour_ms * hour_ms  # an hourly clock keeps the cache warm
    load = band_load(key, log, tuple(history), now)
    if wait:
        load.wait()
    runs = load.runs()
    if runs is None:
        st.fragment(run_every=_POLL_S)(_pending)(load)
        return
    if drawn is not None:
        runs = tuple(r for r in runs if r[2] >= drawn[0] and r[1] <= drawn[1])
    # One layout update: add_hrect per run copies the figure each time (minutes for 200 runs).
    across, along = ("y", "x") if versions_on_x else ("x", "y")
    shapes = [
        {
            "type": "rect",
            f"{across}ref": f"{across} domain",
            f"{across}0": 0,
            f"{across}1": 1,
            f"{along}ref": along,
            f"{along}0": first - 0.5,
            f"{along}1": last + 0.5,
            "fillcolor": BAND_COLOURS[band],
            "opacity": 0.10,
            "layer": "below",
            "line": {"width": 0},
        }
        for band, first, last in runs
    ]
    fig.update_layout(shapes=list(fig.layout.shapes) + shapes)
    for band in dict.fromkeys(run[0] for run in runs):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=f"retention: {band}",
                hoverinfo="skip",
                marker={
                    "symbol": "square",
                    "size": 12,
                    "color": BAND_COLOURS[band],
                    "opacity": 0.4,
                },
            )
        )


def _pending(load: BandLoad) -> None:
    if load.runs() is not None:
        st.rerun()  # the whole page, once: the chart is drawn again with the band
    st.caption(
        f":material/hourglass_empty: {PENDING} (which versions are restorable): a pass over "
        "every commit's removes."
    )
