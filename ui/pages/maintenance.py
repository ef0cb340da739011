"""The Maintenance page: plan a VACUUM and see which versions it would break, before running it.

Nothing here deletes: the page renders :func:`inspector.health.vacuum.plan_vacuum`
for the retention and mode picked, as a timeline band (readable / lost / already
unreadable / log expired) and the paged list of files the VACUUM would delete.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector.delta.text import version_ranges
from inspector.health.vacuum import (
    VacuumMode,
    VacuumPlan,
    VersionFate,
    default_retain_hours,
    plan_vacuum,
)
from inspector.present.values import EMPTY
from ui.common import escape_markdown, format_bytes, format_count, format_ms, page_picker
from ui.context import PageContext
from ui.state import keep, kept

PLAN_KEY = "_vacuum_plan"
PAGE_SIZE = 100
EXPIRED = "log expired"
_COLOURS = {
    VersionFate.READABLE.value: "#2e7d32",
    VersionFate.LOST.value: "#c62828",
    VersionFate.UNREADABLE.value: "#9e9e9e",
    EXPIRED: "#d7ccc8",
}


def render(ctx: PageContext) -> None:
    """The Maintenance page."""
    st.subheader("VACUUM planner", anchor=False)
    st.caption(
        "What would a VACUUM delete, and which versions would stop being readable (time "
        "travel, RESTORE to them, undoing a past RESTORE)? Nothing is deleted here."
    )
    left, right = st.columns([1, 2])
    hours = left.number_input(
        "Retain (hours)",
        min_value=0.0,
        value=float(default_retain_hours(ctx.log)),
        step=24.0,
        key="vacuum_hours",
        help="Files removed (or, in full mode, written) longer ago than this are deleted. "
        "Default: the table's delta.deletedFileRetentionDuration, else 7 days.",
    )
    mode = right.radio(
        "Mode",
        [m.value for m in VacuumMode],
        horizontal=True,
        key="vacuum_mode",
        help="lite: files of tombstones older than the retention. full: also files in the "
        "table folder that no version references.",
    )
    plan = _plan(ctx, float(hours), VacuumMode(mode))
    for warning in plan.warnings:
        st.warning(escape_markdown(warning), icon=":material/warning:")
    _render_summary(plan)
    _render_band(plan)
    _render_files(plan)


def _plan(ctx: PageContext, hours: float, mode: VacuumMode) -> VacuumPlan:
    request = (ctx.log.table_root, ctx.log.generation, hours, mode)
    plan = kept(PLAN_KEY, request, VacuumPlan)
    if plan is None:
        with st.spinner("Listing the table folder…"):
            plan = plan_vacuum(ctx.log, retain_hours=hours, mode=mode, name=ctx.table_name)
        keep(PLAN_KEY, request, plan)
    return plan


def _render_summary(plan: VacuumPlan) -> None:
    lost = plan.versions_lost
    cols = st.columns(5)
    cols[0].metric("Files to delete", format_count(len(plan.files)))
    cols[1].metric("Bytes to delete", format_bytes(plan.bytes_to_delete))
    cols[2].metric("Versions lost", len(lost), help=version_ranges(lost) or "none")
    cols[3].metric("Oldest readable now", _or_none(plan.oldest_readable_before))
    cols[4].metric("Oldest readable after", _or_none(plan.oldest_readable_after))
    if lost:
        st.error(
            f"This VACUUM would make version(s) **{version_ranges(lost)}** unreadable: time "
            "travel and RESTORE to them would fail.",
            icon=":material/history_toggle_off:",
        )
    else:
        st.success("No readable version would be lost.", icon=":material/check_circle:")
    for restore in plan.restore_undos_lost:
        st.warning(
            f"The RESTORE at version {restore} could no longer be undone (version "
            f"{restore - 1} is lost).",
            icon=":material/undo:",
        )
    st.caption(
        f"Deletes what was removed (or, in full mode, written) before {format_ms(plan.cutoff)}."
        + (
            f" {plan.tombstones_already_deleted} expired tombstone(s) name files already gone."
            if plan.tombstones_already_deleted
            else ""
        )
    )


def _runs(plan: VacuumPlan) -> list[tuple[str, int, int]]:
    """Consecutive versions with the same fate: (fate, first, last)."""
    runs: list[tuple[str, int, int]] = []
    if plan.earliest_log_version > 0:
        runs.append((EXPIRED, 0, plan.earliest_log_version - 1))
    for version, fate in plan.fates:
        if runs and runs[-1][0] == fate.value and runs[-1][2] == version - 1:
            runs[-1] = (fate.value, runs[-1][1], version)
        else:
            runs.append((fate.value, version, version))
    return runs


def _render_band(plan: VacuumPlan) -> None:
    fig = go.Figure()
    shown: set[str] = set()
    for fate, first, last in _runs(plan):
        label = f"v{first}" if first == last else f"v{first}–v{last}"
        fig.add_trace(
            go.Bar(
                x=[last - first + 1],
                base=[first - 0.5],
                y=["versions"],
                orientation="h",
                name=fate,
                legendgroup=fate,
                showlegend=fate not in shown,
                marker_color=_COLOURS[fate],
                hovertemplate=f"{label}: {fate}<extra></extra>",
            )
        )
        shown.add(fate)
    fig.update_layout(
        barmode="overlay",
        height=140,
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        xaxis_title="version",
        yaxis_visible=False,
        legend={"orientation": "h", "y": -0.6},
    )
    st.plotly_chart(fig, key="vacuum_band")


def _render_files(plan: VacuumPlan) -> None:
    total = len(plan.files)
    if not total:
        st.caption("No file would be deleted.")
        return
    first = page_picker("vacuum_page", total, PAGE_SIZE) if total > PAGE_SIZE else 0
    chunk = plan.files[first : first + PAGE_SIZE]
    frame = pd.DataFrame(
        [
            {
                "path": f.path,
                "size": format_bytes(f.size),
                "modified": format_ms(f.modification_time),
                "why": f.reason.value,
            }
            for f in chunk
        ]
    )
    st.dataframe(frame, hide_index=True, placeholder=EMPTY)
    st.caption(
        f"Files {first + 1:,}–{first + len(chunk):,} of "
        f"{total:,}. `python -m inspector vacuum-plan --json` lists them all."
    )


def _or_none(version: int | None) -> str:
    return "none" if version is None else str(version)
