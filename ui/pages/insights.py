"""The Insights page: the selected version's layout, from the log alone.

Renders :func:`inspector.table.insights.layout_insights`: a file-size histogram,
bytes and small files per partition, files over versions, and the tables beneath
(with CSV export).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector.table.insights import LayoutInsights, layout_insights
from ui.common import csv_table, escape_markdown, format_bytes, format_count
from ui.context import PageContext
from ui.state import keep, kept

INSIGHTS_KEY = "_layout_insights"
MAX_BARS = 50


def render(ctx: PageContext) -> None:
    """The Insights page."""
    st.subheader(f"Layout insights at version {ctx.version}", anchor=False)
    insights = _insights(ctx)
    for problem in insights.problems:
        st.warning(escape_markdown(problem), icon=":material/warning:")
    record = insights.to_json()
    _render_summary(record)
    _render_histogram(record)
    _render_partitions(record)
    _render_timeline(record)
    _render_stats(record)


def _insights(ctx: PageContext) -> LayoutInsights:
    request = (ctx.cache_key, ctx.version)
    insights = kept(INSIGHTS_KEY, request, LayoutInsights)
    if insights is None:
        with st.spinner("Reading the snapshot…"):
            insights = layout_insights(ctx.log.snapshot(ctx.version), ctx.history)
        keep(INSIGHTS_KEY, request, insights)
    return insights


def _render_summary(r: dict[str, Any]) -> None:
    cols = st.columns(5)
    cols[0].metric("Files", format_count(r["files"]), help=format_bytes(r["bytes"]))
    cols[1].metric(
        "Small files",
        format_count(r["smallFiles"]),
        help=f"Smaller than the target file size ({format_bytes(r['targetFileSize'])}).",
    )
    opt = r["optimize"]
    cols[2].metric(
        "OPTIMIZE would compact",
        format_count(opt["compactFiles"]),
        help=f"{format_bytes(opt['compactBytes'])} into ≈{opt['filesAfter']} file(s).",
    )
    cols[3].metric("Rows deleted by DVs", format_count(r["dvDeletedRows"]))
    skew = r["skew"]
    cols[4].metric(
        "Partition skew",
        "-" if skew is None else f"{skew:.1f}×",
        help=f"Largest partition's bytes over the median's ({r['largestPartition'] or '-'}).",
    )


def _render_histogram(r: dict[str, Any]) -> None:
    buckets = r["sizeHistogram"]
    fig = go.Figure(go.Bar(x=[b["label"] for b in buckets], y=[b["files"] for b in buckets]))
    fig.update_layout(title="File sizes", xaxis_title="size", yaxis_title="files", height=300)
    st.plotly_chart(fig, width="stretch")


def _render_partitions(r: dict[str, Any]) -> None:
    frame = pd.DataFrame(r["partitions"]).drop(columns=["values"], errors="ignore")
    if frame.empty:
        st.info("The table has no live files at this version.")
        return
    top = frame.head(MAX_BARS)
    fig = go.Figure(
        [
            go.Bar(name="bytes", x=top["partition"], y=top["bytes"]),
            go.Bar(name="small-file bytes", x=top["partition"], y=top["smallBytes"]),
        ]
    )
    fig.update_layout(title="Bytes per partition (largest first)", barmode="overlay", height=320)
    st.plotly_chart(fig, width="stretch")
    csv_table(
        frame,
        "Download partitions (CSV)",
        file_name=f"partitions-v{r['version']}.csv",
        key="insights_csv",
    )


def _render_timeline(r: dict[str, Any]) -> None:
    points = r["filesOverVersions"]
    if len(points) < 2:
        return
    fig = go.Figure(
        go.Scatter(x=[p["version"] for p in points], y=[p["files"] for p in points], mode="lines")
    )
    fig.update_layout(title="Live files over versions", xaxis_title="version", height=280)
    st.plotly_chart(fig, width="stretch")


def _render_stats(r: dict[str, Any]) -> None:
    stats = r["stats"]
    st.markdown(
        f"**Statistics**: {format_count(stats['filesWithStats'])} of "
        f"{format_count(stats['files'])} files ({stats['share']:.0%}); "
        f"{escape_markdown(stats['policy'])}."
    )
    observed = ", ".join(stats["observedColumns"]) or "none"
    st.caption(f"Columns with statistics (first file with stats): {escape_markdown(observed)}")
    if stats["physicalNames"]:
        with st.expander("Physical column names (column mapping)"):
            st.dataframe(
                [{"column": k, "physical name": v} for k, v in stats["physicalNames"].items()],
                hide_index=True,
            )
