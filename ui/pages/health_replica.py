"""The Health page's "Compare with a replica" section: a disaster-recovery drill.

It renders :func:`inspector.health.replica.compare_replica` for the open table (the
primary) and a replica location typed here: what is still to copy, the replica's
last consistent version and the data-loss window of a failover now.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.delta.text import version_ranges
from inspector.health import restore_command
from inspector.health.replica import ReplicaFile, ReplicaReport, compare_replica
from inspector.present.values import EMPTY
from inspector.table import open_table
from ui.common import escape_markdown, format_bytes, format_count, render_error, work_button
from ui.context import PageContext
from ui.state import forget, keep, kept

REPORT_KEY = "_replica_report"


def render_replica_section(ctx: PageContext) -> None:
    """The section: a replica location, a Compare button, and the comparison."""
    st.markdown("##### Compare with a replica")
    st.caption(
        "Asynchronous replication copies files in no guaranteed order. Compare a replica "
        "of this table with it: what is still to copy, the newest version a reader of the "
        "replica gets whole, and what a failover now would lose. Read-only."
    )
    left, right = st.columns([4, 1])
    location = left.text_input(
        "Replica location", key="replica_location", placeholder="/path/to/replica"
    )
    if work_button("Compare", icon=":material/compare_arrows:", key="replica_run", where=right):
        try:
            with st.spinner("Listing both tables and checking the replica…"):
                replica = open_table(location, ctx.settings, role="replica")
                report = compare_replica(ctx.table, replica, settings=ctx.settings)
        except InspectorError as exc:
            forget(REPORT_KEY)
            render_error(exc)
            return
        keep(REPORT_KEY, (ctx.log.table_root, ctx.log.generation), report)
    shown = kept(REPORT_KEY, (ctx.log.table_root, ctx.log.generation), ReplicaReport)
    if shown is not None:
        _render_report(shown)


def _render_report(report: ReplicaReport) -> None:
    consistent = report.replica_last_consistent_version
    if report.replica_consistent:
        st.success(
            f"The replica's latest version **{report.replica_latest_version}** is consistent.",
            icon=":material/check_circle:",
        )
    else:
        st.error(
            f"The replica's latest version **{report.replica_latest_version}** is not "
            f"consistent; its last consistent version is **{_or_none(consistent)}**.",
            icon=":material/error:",
        )
    _render_metrics(report)
    _render_window(report)
    files = [*report.missing_files, *report.size_mismatches]
    if files:
        st.dataframe(_frame(files), hide_index=True, placeholder=EMPTY)
    command = restore_command(report.replica_health)
    if command:
        st.caption(
            "If the missing files are lost, restore the replica to its last consistent "
            "version (or open the replica in the app: its Health page offers the guarded "
            "restore):"
        )
        st.code(command, language="bash")
    for problem in report.replica_health.problems:
        st.warning(escape_markdown(problem), icon=":material/warning:")


def _render_metrics(report: ReplicaReport) -> None:
    cols = st.columns(5)
    cols[0].metric("Primary latest", report.primary_latest_version)
    cols[1].metric("Replica latest", report.replica_latest_version)
    cols[2].metric("Replica last consistent", _or_none(report.replica_last_consistent_version))
    cols[3].metric("Still to copy", format_bytes(report.bytes_to_copy))
    cols[4].metric(
        "Only on the replica",
        format_count(len(report.extra_paths)),
        help="Files the primary does not have.",
    )


def _render_window(report: ReplicaReport) -> None:
    window = report.window
    seconds = "unknown time" if window.seconds is None else f"{window.seconds:,.0f} seconds"
    st.markdown(
        f"**Data-loss window** of a failover now: {window.versions} version(s) over {seconds}; "
        f"{format_count(window.rows_inserted)} row(s) inserted, "
        f"{format_count(window.rows_deleted)} deleted and {format_count(window.rows_updated)} "
        "updated on the primary since (each row once, as Delta's metrics count it)."
    )
    missing = [f.version for f in report.missing_commits]
    st.caption(f"Commits still to copy: {version_ranges(missing) or 'none'}.")


def _frame(files: list[ReplicaFile]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "version": f.version,
                "path": f.path,
                "problem": "missing" if f.replica_size is None else "another size",
                "primary size": f.size,
                "replica size": f.replica_size,
            }
            for f in files
        ]
    )


def _or_none(version: int | None) -> str:
    return "none" if version is None else str(version)
