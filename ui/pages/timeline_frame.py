"""The Timeline's data: one row per version, built once per history, and the window drawn.

The frame holds only what filters, sizes and positions need (numbers, times, the
operation); the text a mark's hover and the history table show (parameters, metrics,
problems) is built for the rows of the visible window only, so a table of 20,000
versions costs its frame once and then a window of at most :data:`WINDOW` rows per run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from inspector.delta.text import format_moment
from inspector.table.history import collector_paused
from inspector.table.history_entry import HistoryEntry, looks_copied, readable
from inspector.table.history_time import is_copy_problem
from ui.common import format_bytes

WINDOW = 2000  # versions drawn at once; the chart pages through the rest

# Kinds of operation, each with one colour; the hover shows the exact operation name.
KIND_COLOURS = {
    "Create / replace": "#2ca02c",
    "Write": "#1f77b4",
    "Streaming update": "#17becf",
    "Merge": "#9467bd",
    "Update": "#ff7f0e",
    "Delete": "#d62728",
    "Optimize": "#bcbd22",
    "Restore": "#111111",
    "Column changes": "#8c564b",
    "Properties / protocol": "#e377c2",
    "Vacuum": "#9e9e9e",
    "Other": "#c7c7c7",
}
_KIND_BY_OPERATION = {
    "WRITE": "Write",
    "COPY INTO": "Write",
    "STREAMING UPDATE": "Streaming update",
    "MERGE": "Merge",
    "UPDATE": "Update",
    "DELETE": "Delete",
    "TRUNCATE": "Delete",
    "OPTIMIZE": "Optimize",
    "REORG": "Optimize",
    "CLONE": "Create / replace",
    "RESTORE": "Restore",
    "VACUUM START": "Vacuum",
    "VACUUM END": "Vacuum",
    "ADD COLUMNS": "Column changes",
    "CHANGE COLUMN": "Column changes",
    "RENAME COLUMN": "Column changes",
    "DROP COLUMNS": "Column changes",
    "REPLACE COLUMNS": "Column changes",
    "UPDATE SCHEMA": "Column changes",
    "SET TBLPROPERTIES": "Properties / protocol",
    "UNSET TBLPROPERTIES": "Properties / protocol",
    "UPGRADE PROTOCOL": "Properties / protocol",
    "DROP FEATURE": "Properties / protocol",
    "ADD CONSTRAINT": "Properties / protocol",
    "DROP CONSTRAINT": "Properties / protocol",
    "CLUSTER BY": "Properties / protocol",
    "SET TABLE LOCATION": "Properties / protocol",
}


def operation_kind(operation: str) -> str:
    """The colour group of an operation name (``CREATE OR REPLACE TABLE AS SELECT`` -> Create / replace)."""
    name = operation.upper().strip()
    if name in _KIND_BY_OPERATION:
        return _KIND_BY_OPERATION[name]
    if name.startswith(("CREATE", "REPLACE", "CONVERT")):
        return "Create / replace"
    if "COLUMN" in name:
        return "Column changes"
    if name.startswith(("OPTIMIZE", "REORG", "COMPUTE STATS")):
        return "Optimize"
    return "Other"


@st.cache_resource(max_entries=8, show_spinner=False)
def history_frame(
    key: tuple[Any, ...], _history: tuple[HistoryEntry, ...]
) -> tuple[pd.DataFrame, bool]:
    """One row per version (position ``at`` in the history), and whether the table looks copied.

    Built once per key, a column at a time, with the cyclic collector paused (each collection
    would walk every entry of a 100,000-version history again; the columns hold no cycle).
    On a copy, the per-version "probably copied" problem is not counted (the page says it
    once).
    """
    with collector_paused():
        copied = looks_copied(_history)
        kinds = {op: operation_kind(op) for op in {e.operation for e in _history}}
        frame = pd.DataFrame(_columns(_history, copied))
        for column in ("timestamp", "commit_info_time", "in_commit_time", "file_time"):
            frame[column] = pd.to_datetime(frame[column], unit="ms", utc=True)
        frame["commit_time"] = frame["commit_info_time"].fillna(frame["timestamp"])
        frame["kind"] = frame["operation"].map(kinds)
    return frame, copied


def _columns(history: Sequence[HistoryEntry], copied: bool) -> dict[str, Any]:
    """Every version's values, a column at a time."""
    stamps = [e.timestamps for e in history]
    files = [e.files for e in history]
    rows = [e.rows for e in history]
    return {
        "at": np.arange(len(history), dtype=np.int64),
        "version": [e.version for e in history],
        "timestamp": [t.history for t in stamps],
        "operation": [e.operation for e in history],
        "user": [e.user for e in history],
        "engine": [e.engine_info for e in history],
        "read_version": [e.read_version for e in history],
        "blind_append": [e.is_blind_append for e in history],
        "added_files": [f.num_added_files for f in files],
        "removed_files": [f.num_removed_files for f in files],
        "dv_updates": [f.deletion_vector_updates for f in files],
        "added_bytes": [f.added_bytes for f in files],
        "removed_bytes": [f.removed_bytes for f in files],
        "added_rows": [r.added for r in rows],
        "removed_rows": [r.removed for r in rows],
        "problem_count": [len(_problems(e, copied)) for e in history],
        "timestamp_source": [t.source for t in stamps],
        "commit_info_time": [t.commit_info for t in stamps],
        "in_commit_time": [t.in_commit for t in stamps],
        "file_time": [t.file_modification for t in stamps],
        "changes": [", ".join(e.changes) for e in history],
    }


def _problems(e: HistoryEntry, copied: bool) -> list[str]:
    """A version's problems; on a copied table, without the copy's file-time notes."""
    return [p for p in e.problems if not is_copy_problem(p)] if copied else list(e.problems)


@st.cache_resource(max_entries=16, show_spinner=False)
def window_text(
    key: tuple[Any, ...], _window: pd.DataFrame, _history: Sequence[HistoryEntry], copied: bool
) -> pd.DataFrame:
    """The window with the text columns the table and the hover show (built for its rows only).

    Cached per key: the history's key plus what identifies the window's rows and its
    time axis (see :func:`window_key`); paging back to a window or stepping to another
    version in it costs nothing.
    """
    window, history = _window, _history
    entries = [history[i] for i in window["at"]]
    problems = [_problems(e, copied) for e in entries]
    out = window.assign(
        rows=[e.rows.label() for e in entries],
        parameters=[readable(e.operation_parameters) for e in entries],
        metrics=[readable(e.operation_metrics) for e in entries],
        problems=[" | ".join(p) for p in problems],
    )
    return out.assign(hover=_hover(out))


def window_key(history_key: tuple[Any, ...], window: pd.DataFrame) -> tuple[Any, ...]:
    """What identifies a window's rows and their time axis, for :func:`window_text`."""
    versions = window["version"].to_numpy()
    when = window["when"].astype("int64").to_numpy()  # tz-aware: to_numpy() gives objects
    digest = hashlib.blake2b(versions.tobytes() + when.tobytes(), digest_size=16).hexdigest()
    return (*history_key, len(versions), digest)


def _hover(frame: pd.DataFrame) -> list[str]:
    out = []
    for r in frame.itertuples(index=False):
        text = f"<b>v{r.version} · {r.operation}</b><br>{format_moment(r.timestamp)}"
        if abs((r.commit_time - r.timestamp).total_seconds()) >= 1:
            text += f"<br>commitInfo: {format_moment(r.commit_time)}"
        text += (
            f"<br>+{r.added_files:,} files ({format_bytes(r.added_bytes)}), "
            f"−{r.removed_files:,} files ({format_bytes(r.removed_bytes)})"
        )
        if r.dv_updates:
            text += f", {r.dv_updates:,} deletion vectors updated"
        text += f"<br>rows {r.rows}"  # +inserted / −deleted / updated, as everywhere
        if r.changes:
            text += f"<br>changes: {r.changes}"
        if r.user:
            text += f"<br>by {r.user}"
        if r.problem_count:
            text += f"<br><b>⚠ {r.problem_count} problem(s)</b>"
        out.append(text)
    return out


def window_bounds(versions: np.ndarray, selected: int, back: int | None) -> tuple[int, int, int]:
    """Which rows of the shown versions the chart draws: ``(lo, hi, back)``.

    Windows of :data:`WINDOW` rows are counted back from the newest (``back`` = 0); by
    default (``back`` None) the window that holds the selected version, else the newest.

    Args:
        versions: The shown versions, ascending.
        selected: The selected version.
        back: How many windows back from the newest, or None for the selection's.

    Returns:
        Row bounds ``[lo, hi)`` and the window's ``back``.
    """
    n = len(versions)
    pages = max(1, -(-n // WINDOW))
    if back is None:
        at = int(np.searchsorted(versions, selected))
        back = (n - 1 - at) // WINDOW if at < n and versions[at] == selected else 0
    back = min(max(back, 0), pages - 1)
    hi = n - back * WINDOW
    return max(0, hi - WINDOW), hi, back
