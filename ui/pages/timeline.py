"""The Timeline page: every version on a time axis, and the history table beneath it.

One mark per version, coloured by kind of operation and sized by the bytes (or
rows) it added and removed; versions with problems wear a ring. Clicking a mark or
a row selects that version. Built to stay responsive with 20,000 versions: the
frame is built once per history generation (``ui.pages.timeline_frame``), the chart and the
table draw a window of at most 2,000 versions (with buttons to page through the rest),
and large windows are drawn with WebGL.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector.delta.text import TIME_FORMAT, version_ranges
from inspector.present.values import EMPTY
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_time import TIME_RULE
from ui.common import select_version
from ui.context import PageContext
from ui.history_load import HistoryLoad
from ui.page_state import linked, mirror
from ui.pages.timeline_filters import time_range, values_filter
from ui.pages.timeline_frame import (
    KIND_COLOURS,
    WINDOW,
    history_frame,
    window_bounds,
    window_key,
    window_text,
)
from ui.pages.timeline_marks import AXIS_STATE, add_marks, change_marks, overlay_rings
from ui.pages.timeline_pages import read_for_window, show_progress
from ui.pages.timeline_retention import add_retention_band
from ui.staged import render_staged
from ui.state import keep, kept

_WEBGL_FROM = 1500  # below this, SVG marks are crisper and need no WebGL in the browser
_CHART_KEY, _TABLE_KEY = "timeline_chart", "history_table"
_WINDOW_STATE = "_timeline_window"  # Kept: windows back, for (selected version, shown count)


def render(ctx: PageContext) -> None:
    """The Timeline page."""
    load = ctx.load
    ident = (ctx.version, None)  # no filter yet: the window of the versions as read
    read_for_window(load, ctx.version, _wanted_window(ident))
    history = load.entries
    render_staged(ctx)  # a catalog-managed table's unpublished commits, marked
    if not history:
        st.info(
            "This table's log has no commit files (only a checkpoint), so there is no history "
            "to draw. The Version and Overview pages show its state.",
            icon=":material/info:",
        )
        return
    key = _frame_key(ctx.cache_key, history)
    frame, copied = history_frame(key, history)
    if copied:
        st.info(
            "**This looks like a copy:** every commit file was written at about the same time, "
            f"but the commitInfo times differ. {TIME_RULE} Set the axis to *commitInfo* to see "
            "when the writers committed, or to *version* to see the versions apart.",
            icon=":material/content_copy:",
        )
    shown, size_by = _filters(frame, copied, whole=load.done)
    read = "" if load.done else " (the newest read so far)"
    st.caption(
        f"{len(shown):,} of {len(frame):,} versions shown{read} · mark size: {size_by} added + "
        "removed · a ring marks a version with problems · pale bands: retention · click a mark "
        "to select it"
    )
    progress = st.container()  # filled last: the background reading starts after the drawing
    if shown.empty:
        st.info("No version matches these filters.", icon=":material/filter_alt_off:")
        return
    filtered = len(shown) != len(frame)
    lo, hi = _window(shown, ctx.version, (ctx.version, len(shown)) if filtered else ident, load)
    part = shown.iloc[lo:hi]
    window = window_text(window_key(key, part), part, history, copied)
    # Sized against the window drawn, not the whole history: one huge commit among 20,000
    # made every other mark a faint dot.
    _chart(window, ctx.version, _marker_sizes(part, size_by), ctx)
    _problems_note(frame)
    _history_table(window, ctx.version)
    with progress:
        # The whole history's frame is built in the background, while the page drawn again
        # for it waits on the store's listings (an object store's refresh).
        base = ctx.cache_key
        show_progress(load, lambda whole: history_frame(_frame_key(base, whole), whole))


def _frame_key(base: tuple[Any, ...], history: tuple[HistoryEntry, ...]) -> tuple[Any, ...]:
    """The key of a history's frame: the table's and its length (the page's and the
    background's, so that the page finds the frame the background built)."""
    return (*base, len(history))


def _wanted_window(ident: tuple[int, int | None]) -> int | None:
    """The window asked for: a link's (or a reload's), else the one kept for ``ident``."""
    linked_back = _int_or_none(linked().get("window"))
    return linked_back if linked_back is not None else kept(_WINDOW_STATE, ident, int)


def _window(
    shown: pd.DataFrame, selected: int, ident: tuple[int, int | None], load: HistoryLoad
) -> tuple[int, int]:
    """The rows drawn: all when they fit, else a window with buttons to page through."""
    versions = shown["version"].to_numpy()
    if len(versions) <= WINDOW and load.done:
        mirror({"window": None})
        return 0, len(versions)
    linked_back = _int_or_none(linked().get("window"))
    if linked_back is not None:  # a link (or a reload) names the window
        keep(_WINDOW_STATE, ident, linked_back)
    lo, hi, back = window_bounds(versions, selected, kept(_WINDOW_STATE, ident, int))
    keep(_WINDOW_STATE, ident, back)
    mirror({"window": str(back)})
    older, note, newer = st.columns([1.2, 4, 1.2], vertical_alignment="center")
    older.button(
        "Older versions",
        icon=":material/chevron_left:",
        key="timeline_older",
        disabled=lo == 0 and load.done,
        on_click=_move_window,
        args=(ident, back + 1),
    )
    listed = load.progress()[1]
    total = f"{len(versions):,}" if load.done else f"{listed or len(versions):,}"
    total += "" if load.done or listed else " read so far"
    note.caption(
        f"Drawn: versions {versions[lo]} to {versions[hi - 1]} ({hi - lo:,} of "
        f"{total}, {WINDOW:,} at a time)."
    )
    newer.button(
        "Newer versions",
        icon=":material/chevron_right:",
        key="timeline_newer",
        disabled=back == 0,
        on_click=_move_window,
        args=(ident, back - 1),
    )
    return lo, hi


def _move_window(ident: tuple[int, int | None], back: int) -> None:
    keep(_WINDOW_STATE, ident, back)


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _filters(frame: pd.DataFrame, copied: bool, *, whole: bool) -> tuple[pd.DataFrame, str]:
    """The versions the filters leave, and what marks are sized by. Filtering waits for the
    whole history (a filter of the newest versions would look like one of all)."""
    ops_col, axis_col, size_col = st.columns([3.2, 1.9, 1.4])
    user_col, engine_col = st.columns(2)
    time_col = st.container()  # its own row: the end label has room and no control above it
    users = values_filter(user_col, frame, "user", whole=whole, none=_NO_USERS)
    engines = values_filter(engine_col, frame, "engine", whole=whole, none="No engineInfo")
    counts = frame["operation"].value_counts()
    operations = ops_col.multiselect(
        "Operations",
        list(counts.index),
        format_func=lambda op: f"{op} ({counts[op]:,})",
        placeholder="All operations" if whole else "Filters: once every version is read",
        key="timeline_ops",
        disabled=not whole,
    )
    axis = axis_col.segmented_control(
        "Axis",
        ["history", "commitInfo", "version"],
        default="history",
        required=True,
        key="timeline_axis",
        help="*history*: the timestamp Delta uses for history and time travel. *commitInfo*: the "
        "writer's clock, which survives copying a table (falls back to history when absent). "
        "*version*: versions side by side, one lane per kind of operation, however close in "
        "time (e.g. after a restore, or a test table).",
    )
    st.session_state[AXIS_STATE] = axis
    size_by = size_col.segmented_control(
        "Size by", ["bytes", "rows"], default="bytes", required=True, key="timeline_size"
    )
    frame = frame.assign(when=frame["commit_time"] if axis == "commitInfo" else frame["timestamp"])
    if not whole:
        return frame, size_by or "bytes"
    shown = frame[frame["operation"].isin(operations)] if operations else frame
    for column, chosen in (("user", users), ("engine", engines)):
        shown = shown[shown[column].isin(chosen)] if chosen else shown
    start, end = time_range(time_col, frame["when"])
    if start is not None:
        stamps = shown["when"].dt.tz_localize(None)
        shown = shown[(stamps >= start) & (stamps <= end)]
    return shown, size_by or "bytes"


_NO_USERS = "No version records a userName (open-source Delta Lake writes none)"


def _marker_sizes(frame: pd.DataFrame, size_by: str) -> np.ndarray:
    if size_by == "rows":
        amount = frame["added_rows"].fillna(0) + frame["removed_rows"].fillna(0)
    else:
        amount = frame["added_bytes"] + frame["removed_bytes"]
    scaled = np.sqrt(amount.to_numpy(dtype=float))
    top = scaled.max()
    small, large = (7, 16) if min(len(frame), WINDOW) >= WINDOW else (9, 34)
    sizes: np.ndarray[Any, Any] = small + (large - small) * (scaled / top if top > 0 else scaled)
    return sizes


def _chart(frame: pd.DataFrame, selected: int, sizes: np.ndarray, ctx: PageContext) -> None:
    trace = go.Scattergl if len(frame) >= _WEBGL_FROM else go.Scatter
    hover = frame["hover"].to_numpy()
    fig = go.Figure()
    for kind, colour in KIND_COLOURS.items():
        mask = (frame["kind"] == kind).to_numpy()
        marker = {
            "color": colour,
            "size": sizes[mask],
            "opacity": 0.85,
            "line": {"width": 0.5, "color": "white"},
        }
        add_marks(fig, trace, frame, mask, name=kind, marker=marker, hovertext=hover)
    overlay_rings(fig, frame, sizes, selected, trace)
    change_marks(fig, frame, sizes, trace)
    versions = frame["version"]
    by_version = st.session_state.get(AXIS_STATE) == "version"
    if ctx.load.done:  # the band judges every version (VACUUMs, removals before the window)
        add_retention_band(
            fig,
            ctx.log,
            ctx.history,
            ctx.cache_key,
            (int(versions.iloc[0]), int(versions.iloc[-1])),
            versions_on_x=by_version,
            wait=len(ctx.load.entries) <= WINDOW,  # a longer one is drawn before its band
        )
    version_axis = {"title": "version", "range": _padded(frame["version"])}
    fig.update_layout(
        height=380,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "title": None},
        xaxis=version_axis if by_version else {"title": None},
        yaxis={"title": None, "type": "category"} if by_version else version_axis,
        clickmode="event+select",
        dragmode="zoom",
    )
    key = f"{_CHART_KEY}_{selected}"  # a new key per selection clears the chart's own selection
    st.plotly_chart(
        fig,
        key=key,
        on_select=lambda: _on_chart_select(key),
        selection_mode="points",
        config={"displaylogo": False},
    )


def _padded(versions: pd.Series) -> list[float]:
    low, high = float(versions.min()), float(versions.max())
    pad = max(1.2, (high - low) * 0.08)  # room for the largest mark and its ring at either end
    return [low - pad, high + pad]


def _on_chart_select(key: str) -> None:
    points = st.session_state[key].selection.points
    if points:
        version = points[0].get("customdata")
        version = version[0] if isinstance(version, list) else version
        if version is not None:
            select_version(int(version))


def _problems_note(frame: pd.DataFrame) -> None:
    flagged = frame[frame["problem_count"] > 0]
    if flagged.empty:
        return
    listed = version_ranges([int(v) for v in flagged["version"]])
    st.warning(
        f"{len(flagged):,} version(s) have problems: {listed}. Select one to read "
        "what is wrong; the *problems* column below has the details.",
        icon=":material/warning:",
    )


_TABLE_COLUMNS = {
    "version": st.column_config.NumberColumn("version", format="%d", width="small"),
    "timestamp": st.column_config.DatetimeColumn("timestamp", format=TIME_FORMAT),
    "operation": st.column_config.TextColumn("operation", width="medium"),
    "rows": st.column_config.TextColumn(
        "rows +ins / −del / upd",
        help="Rows inserted / deleted / updated, as Delta's operationMetrics define them "
        "(the Version page's figures)",
    ),
    "parameters": st.column_config.TextColumn("operationParameters", width="medium"),
    "metrics": st.column_config.TextColumn("operationMetrics", width="medium"),
    "user": st.column_config.TextColumn("user", width="medium"),
    "engine": st.column_config.TextColumn("engineInfo", width="medium"),
    "read_version": st.column_config.NumberColumn("readVersion", format="%d"),
    "blind_append": st.column_config.CheckboxColumn("isBlindAppend"),
    "added_files": st.column_config.NumberColumn("+files", format="%d"),
    "removed_files": st.column_config.NumberColumn("−files", format="%d"),
    "dv_updates": st.column_config.NumberColumn("deletion vectors updated", format="%d"),
    "added_bytes": st.column_config.NumberColumn("+bytes", format="%d"),
    "removed_bytes": st.column_config.NumberColumn("−bytes", format="%d"),
    "problems": st.column_config.TextColumn("problems", width="large"),
    "timestamp_source": st.column_config.TextColumn("timestamp source"),
    "commit_info_time": st.column_config.DatetimeColumn("commitInfo time", format=TIME_FORMAT),
    "in_commit_time": st.column_config.DatetimeColumn("inCommitTimestamp", format=TIME_FORMAT),
    "file_time": st.column_config.DatetimeColumn("file modified", format=TIME_FORMAT),
}


_ROWS_ABOVE = 3  # rows of newer versions shown above the selected one in the history table
#: Scrolls the history table (Streamlit's data grid) so the selected row is in view: the
#: server cannot scroll a table, so the browser does, once the grid is drawn.
_SCROLL_JS = """<script>(() => {{
  let tries = 0;
  const scroll = () => {{
    const grid = document.querySelector(".st-key-{key} .dvn-scroller");
    if (!grid || grid.scrollHeight <= grid.clientHeight) {{
      if (tries++ < 100) setTimeout(scroll, 100);
      return;
    }}
    grid.scrollTop = {top};
  }};
  scroll();
}})();</script>"""


def _history_table(frame: pd.DataFrame, selected: int) -> None:
    st.markdown("##### History")
    table = frame.sort_values("version", ascending=False)[list(_TABLE_COLUMNS)]
    versions = tuple(int(v) for v in table["version"])
    key = f"{_TABLE_KEY}_{selected}_{len(versions)}_{versions[0]}_{versions[-1]}"
    # The selected version's row starts ticked; a new key per selection keeps that true.
    ticked = [versions.index(selected)] if selected in versions else []
    wrap = bool((table["problems"] != "").any())
    row_height = 72 if wrap else 35
    st.dataframe(
        table,
        key=key,
        hide_index=True,
        column_config=_TABLE_COLUMNS,
        on_select=lambda: _on_row_select(key, versions),
        selection_mode="single-row",
        selection_default={"selection": {"rows": ticked}},
        placeholder=EMPTY,
        height=min(36 + 35 * len(table), 460) if not wrap else min(36 + 72 * len(table), 620),
        # Rows taller than 4rem let Streamlit wrap text: the problems column then needs
        # no horizontal scroll. Only when some version has problems (else rows stay compact).
        row_height=72 if wrap else None,
    )
    if ticked and ticked[0] > _ROWS_ABOVE:  # the selected row in view, newer ones above it
        top = (ticked[0] - _ROWS_ABOVE) * row_height
        st.html(_SCROLL_JS.format(key=key, top=top), unsafe_allow_javascript=True)
    st.caption(
        "Timestamps: *timestamp* is what Delta uses for history and time travel (the "
        "in-commit timestamp when enabled, else the commit file's modification time); the "
        "commitInfo and file times beside it disagree on copied or replicated tables, "
        "which is reported under *problems*."
    )


def _on_row_select(key: str, versions: tuple[int, ...]) -> None:
    rows = st.session_state[key].selection.rows
    if rows:
        select_version(versions[rows[0]])
