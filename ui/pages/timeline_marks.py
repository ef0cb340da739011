"""The Timeline's marks beside the operation dots: rings (problems, the selection), marks for
what a commit changed besides rows, and where marks go on either axis."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

AXIS_STATE = "_timeline_axis_shown"
# The Timeline's marks for what a commit changed besides rows (history.Change), drawn around
# the version's mark: (symbol, colour).
CHANGE_MARKS = {
    "schema": ("diamond-open", "#8c564b"),
    "properties": ("square-open", "#e377c2"),
    "protocol": ("star-open", "#7f0000"),
    "partition overwrite": ("hexagon-open", "#1f4e79"),
    "overwrite": ("hexagon2-open", "#d62728"),
}


def xy(part: pd.DataFrame) -> dict[str, pd.Series]:
    """Where marks go: time across and versions up, or (version axis) versions across."""
    if st.session_state.get(AXIS_STATE) == "version":
        return {"x": part["version"], "y": part["kind"]}
    return {"x": part["when"], "y": part["version"]}


def add_marks(
    fig: go.Figure,
    trace: type[go.Scatter | go.Scattergl],
    frame: pd.DataFrame,
    mask: np.ndarray,
    *,
    name: str,
    marker: dict[str, Any],
    hovertext: np.ndarray | None = None,
) -> None:
    """One trace: a mark for each version of ``frame`` under ``mask`` (none: no trace).

    With ``hovertext`` the marks are the versions' own (they hover); without, they are drawn
    around them (rings and change marks: no hover, and they may reach past the plot area).
    """
    if not mask.any():
        return
    part = frame[mask]
    if hovertext is not None:
        hover: dict[str, Any] = {"hovertext": hovertext[mask], "hoverinfo": "text"}
    else:
        hover = {"hoverinfo": "skip", **_unclipped(trace)}
    fig.add_trace(
        trace(
            **xy(part),
            customdata=part["version"],
            mode="markers",
            name=name,
            marker=marker,
            **hover,
        )
    )


def overlay_rings(
    fig: go.Figure,
    frame: pd.DataFrame,
    sizes: np.ndarray,
    selected: int,
    trace: type[go.Scatter | go.Scattergl],
) -> None:
    """A ring around each version with problems, and a larger one around the selected version."""
    rings = (  # (which versions, legend, margin around the mark, colour, line width)
        ((frame["problem_count"] > 0).to_numpy(), "has problems", 9, "#f59e0b", 2.5),
        ((frame["version"] == selected).to_numpy(), f"selected (v{selected})", 16, "#000000", 3),
    )
    for mask, name, margin, colour, width in rings:
        marker = _ring("circle-open", sizes[mask] + margin, colour, width)
        add_marks(fig, trace, frame, mask, name=name, marker=marker)


def change_marks(
    fig: go.Figure, frame: pd.DataFrame, sizes: np.ndarray, trace: type[go.Scatter | go.Scattergl]
) -> None:
    """A mark around each version that changed the schema, properties or protocol, or
    overwrote (partitions or the table), one legend entry per kind of change."""
    changes = frame["changes"]
    for change, (symbol, colour) in CHANGE_MARKS.items():
        mask = changes.str.contains(change, regex=False).to_numpy()
        if change == "overwrite":
            mask = mask & ~changes.str.contains("partition overwrite", regex=False).to_numpy()
        name = f"{change} change" if change in {"schema", "properties", "protocol"} else change
        marker = _ring(symbol, sizes[mask] + 22, colour, 2)
        add_marks(fig, trace, frame, mask, name=name, marker=marker)


def _ring(symbol: str, size: np.ndarray, colour: str, width: float) -> dict[str, Any]:
    """An open symbol in one colour, outline included."""
    return {
        "symbol": symbol,
        "size": size,
        "color": colour,
        "line": {"width": width, "color": colour},
    }


def _unclipped(trace: type) -> dict[str, bool]:
    """Rings may reach past the plot area (the newest version sits at its top edge)."""
    return {"cliponaxis": False} if trace is go.Scatter else {}
