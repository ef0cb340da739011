"""The Timeline's marks beside the operation dots: rings (problems, the selection), marks for
what a commit changed besides rows, and where marks go on either axis."""

from __future__ import annotations

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


def overlay_rings(
    fig: go.Figure,
    frame: pd.DataFrame,
    sizes: np.ndarray,
    selected: int,
    trace: type[go.Scatter | go.Scattergl],
) -> None:
    flagged = (frame["problem_count"] > 0).to_numpy()
    if flagged.any():
        part = frame[flagged]
        fig.add_trace(
            trace(
                **xy(part),
                customdata=part["version"],
                mode="markers",
                name="has problems",
                hoverinfo="skip",
                **_unclipped(trace),
                marker={
                    "symbol": "circle-open",
                    "size": sizes[flagged] + 9,
                    "color": "#f59e0b",
                    "line": {"width": 2.5, "color": "#f59e0b"},
                },
            )
        )
    here = (frame["version"] == selected).to_numpy()
    if here.any():
        part = frame[here]
        fig.add_trace(
            trace(
                **xy(part),
                customdata=part["version"],
                mode="markers",
                name=f"selected (v{selected})",
                hoverinfo="skip",
                **_unclipped(trace),
                marker={
                    "symbol": "circle-open",
                    "size": sizes[here] + 16,
                    "color": "#000000",
                    "line": {"width": 3, "color": "#000000"},
                },
            )
        )


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
        if mask.any():
            part = frame[mask]
            fig.add_trace(
                trace(
                    **xy(part),
                    customdata=part["version"],
                    mode="markers",
                    name=f"{change} change"
                    if change in {"schema", "properties", "protocol"}
                    else change,
                    hoverinfo="skip",
                    **_unclipped(trace),
                    marker={
                        "symbol": symbol,
                        "size": sizes[mask] + 22,
                        "color": colour,
                        "line": {"width": 2, "color": colour},
                    },
                )
            )


def _unclipped(trace: type) -> dict[str, bool]:
    """Rings may reach past the plot area (the newest version sits at its top edge)."""
    return {"cliponaxis": False} if trace is go.Scatter else {}
