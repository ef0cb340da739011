"""The Timeline's filters of its history: users, engines and a time range."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
from streamlit.delta_generator import DeltaGenerator


def values_filter(
    column: DeltaGenerator, frame: pd.DataFrame, name: str, *, whole: bool, none: str
) -> list[str]:
    """The ``user`` or ``engine`` values chosen (any of them matches; none chosen: all)."""
    counts = frame[name].dropna().value_counts()
    label = "Users" if name == "user" else "Engines"
    chosen: list[str] = column.multiselect(
        label,
        list(counts.index),
        format_func=lambda value: f"{value} ({counts[value]:,})",
        placeholder=(none if counts.empty else f"All {label.lower()}")
        if whole
        else "Filters: once every version is read",
        key=f"timeline_{name}s",
        disabled=not whole or counts.empty,
    )
    return chosen


def time_range(column: DeltaGenerator, when: pd.Series) -> tuple[datetime | None, datetime | None]:
    """The time range chosen on a slider over the versions' times (None, None: all)."""
    first = when.min().tz_localize(None).to_pydatetime().replace(microsecond=0)
    last = when.max().tz_localize(None).to_pydatetime().replace(microsecond=0)
    last += timedelta(seconds=1)  # the slider works in whole seconds; keep the newest commit inside
    span = last - first
    if span <= timedelta(seconds=1):
        column.caption("All versions were committed within one second.")
        return None, None
    step = max(timedelta(seconds=1), timedelta(seconds=int(span.total_seconds() // 400)))
    fmt = "YYYY-MM-DD HH:mm:ss" if span < timedelta(days=2) else "YYYY-MM-DD HH:mm"
    # The key carries the bounds, so switching the time axis starts from the full range. The
    # margins keep the end labels (centred on the thumbs) inside the content column.
    _, column, _ = column.columns([0.07, 0.86, 0.07])
    chosen: tuple[datetime | None, datetime | None] = column.slider(
        "Time range (UTC)",
        min_value=first,
        max_value=last,
        value=(first, last),
        step=step,
        format=fmt,
        key=f"timeline_range_{int(first.timestamp())}_{int(last.timestamp())}",
    )
    return chosen
