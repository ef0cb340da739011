"""The Timeline chart's retention band: which versions are restorable, at risk or gone.

Each run of versions in one state is a pale horizontal band behind the marks (the
chart's vertical axis is the version), with a legend entry per state shown.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.health.retention import RetentionState, VersionRetention, retention_view
from inspector.log.deltalog import DeltaLog
from inspector.table.history import HistoryEntry

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


@st.cache_resource(max_entries=8, show_spinner=False)
def retention_runs(
    key: tuple[Any, ...], _log: DeltaLog, _history: tuple[HistoryEntry, ...], now_ms: int
) -> tuple[tuple[str, int, int], ...]:
    """Runs of consecutive versions in one band: ``(band, first, last)`` (cached per key)."""
    try:
        view = retention_view(_log, _history, now_ms=now_ms)
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
) -> None:
    """Draw the band behind the marks and a legend entry per band shown.

    Args:
        fig: The chart.
        log: The table's log.
        history: Its history.
        key: The history's cache key (``PageContext.cache_key``).
        drawn: The first and last version the chart draws; runs outside are left out.
        versions_on_x: The chart's version axis is x (bands are then vertical).
    """
    hour_ms = 3_600_000
    now = int(time.time() * 1000) // hour_ms * hour_ms  # an hourly clock keeps the cache warm
    runs = retention_runs(key, log, tuple(history), now)
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
