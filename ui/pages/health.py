"""The Health page: which versions are complete, the last consistent one, and recovery.

The check runs on request (it stats every referenced file) and shows progress;
its report is kept in the session until the table changes. In operator mode a
button opens the guarded Restore page pre-filled with the last consistent version
and a generated reason; read-only, the page shows the CLI command instead.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from inspector.delta.text import counted, version_ranges
from inspector.health import (
    HealthReport,
    check_table,
    recovery_advice,
    recovery_reason,
    restore_command,
)
from inspector.health.retention import retention_status, retention_view
from inspector.health.runs import damaged_files, version_runs
from inspector.present.text.health import capped_note
from inspector.present.values import EMPTY
from ui.checksums import render_report_checksums
from ui.common import (
    escape_markdown,
    format_bytes,
    format_count,
    format_ms,
    metric_row,
    rows_table,
    work_button,
)
from ui.context import PageContext
from ui.pages.health_replica import render_replica_section
from ui.pages.restore_state import PREFILL, RestorePrefill
from ui.routing import go_to
from ui.staged import render_staged
from ui.state import keep, kept

REPORT_KEY = "_health_report"
_STATUS_LABELS = {"complete": "complete", "incomplete": "INCOMPLETE", "unreadable": "UNREADABLE"}


def render(ctx: PageContext) -> None:
    """The Health page: the check, then the comparison with a replica."""
    _render_check(ctx)
    render_replica_section(ctx)


def _render_check(ctx: PageContext) -> None:
    st.subheader("Health check", anchor=False)
    st.caption(
        "Does every version have all its files? Checks the log's continuity and that every "
        "data file and deletion-vector file exists with the size the log records."
    )
    render_staged(ctx)  # a catalog-managed table's unpublished commits, marked
    left, middle, right = st.columns([2, 2, 1])
    every = left.checkbox(
        "Every retained version",
        key="health_all",
        help="Check all versions, not only the latest (each file is examined once).",
    )
    deep = middle.checkbox(
        "Deep (read Parquet footers)",
        key="health_deep",
        help="Also read each data file's footer and compare its row count with the stats.",
    )
    checked = (ctx.log.table_root, ctx.log.generation)  # the report says which options it used
    if work_button(
        "Run check",
        type="primary",
        icon=":material/health_and_safety:",
        key="health_run",
        where=right,
    ):
        keep(REPORT_KEY, checked, _run_check(ctx, every, deep))
    report = kept(REPORT_KEY, checked, HealthReport)
    if report is None:
        st.info("Press **Run check** to examine the table's files.", icon=":material/info:")
        return
    _render_verdict(report)
    _render_recovery(ctx, report)
    versions_tab, retention_tab, orphans_tab = st.tabs(["Versions", "Retention", "Orphan files"])
    with versions_tab:
        _render_versions(report)
    with retention_tab:
        _render_retention(ctx, report)
    with orphans_tab:
        _render_orphans(report)


def _run_check(ctx: PageContext, every: bool, deep: bool) -> HealthReport:
    bar = st.progress(0.0, text="Reading the log…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total if total else 1.0, text=f"Examined {done:,} of {total:,} files")

    report = check_table(
        ctx.log, all_versions=every, deep=deep, settings=ctx.settings, progress=progress
    )
    bar.empty()
    return report


def _render_verdict(report: HealthReport) -> None:
    latest = report.latest
    if report.is_consistent:
        st.success(
            f"The latest version **{latest.version}** is consistent: every file is present "
            "with its recorded size.",
            icon=":material/check_circle:",
        )
    else:
        st.error(
            f"The latest version **{latest.version}** is **{latest.status}**: "
            f"{latest.missing_count} missing, {latest.size_mismatch_count} with the wrong size"
            f"{f', {latest.unreadable_count} unreadable' if latest.unreadable_count else ''}.",
            icon=":material/error:",
        )
    damaged = report.damaged_versions
    cols = metric_row()
    cols.metric("Latest version", report.latest_version)
    cols.metric(
        "Last consistent version",
        "none" if report.last_consistent_version is None else report.last_consistent_version,
    )
    cols.metric(
        "Versions not complete",
        len(damaged),
        help=version_ranges([v.version for v in damaged]) or "none",
    )
    cols.metric(
        "Files examined",
        format_count(report.files_examined),
        help="Each distinct file is examined once, whatever the number of versions.",
    )
    cols.metric(
        "Orphan files", format_count(report.orphan_files), help=format_bytes(report.orphan_bytes)
    )
    scope = "every retained version" if report.all_versions else "the latest version"
    st.caption(f"Checked {scope}{' with Parquet footers' if report.deep else ''}.")
    for problem in report.problems:
        st.warning(escape_markdown(problem), icon=":material/warning:")
    render_report_checksums(report)


def _render_recovery(ctx: PageContext, report: HealthReport) -> None:
    if report.is_consistent:
        return
    st.markdown("##### Recovery")
    st.markdown(escape_markdown(recovery_advice(report)))
    command = restore_command(report)
    if command is None:
        return
    target = report.last_consistent_version
    if not ctx.settings.operator_mode or target is None:
        st.caption(
            "The app is read-only. Run this on a terminal (or start the app in operator mode):"
        )
        st.code(command, language="bash")
        return
    if st.button(
        f"Restore to the last consistent version (v{target})",
        icon=":material/restore:",
        key="health_restore",
        help="Opens the guarded Restore page, pre-filled; nothing is "
        "written until you confirm there.",
    ):
        st.session_state[PREFILL] = RestorePrefill(
            table_root=ctx.log.table_root, version=target, reason=recovery_reason(report)
        )
        go_to("restore")


def _render_versions(report: HealthReport) -> None:
    runs = version_runs(report)
    st.caption(
        f"{counted(len(report.versions), 'version')} in {counted(len(runs), 'run')} of the "
        "same state and "
        "problem; the latest version and the last consistent one first."
    )
    frame = pd.DataFrame(
        [
            {
                "versions": run.label.removeprefix("versions ").removeprefix("version "),
                "count": run.count,
                "status": _STATUS_LABELS.get(run.status, run.status),
                "what": run.summary,
                "matters as": run.role,
                "problems": " ".join(p.message for p in run.problems),
            }
            for run in runs
        ]
    )
    problems = st.column_config.TextColumn("problems", width="large")
    rows_table(frame, {"problems": problems}, key="health_runs")
    files = damaged_files(report)
    if not files:
        return
    st.markdown(
        f"**Damaged files ({len(files):,})**, each listed once with the versions that need it"
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "problem": str(f.problem).replace("_", " "),
                    "path": f.path,
                    "needed by": f.versions_text,
                    "detail": f.detail or EMPTY,
                }
                for f in files
            ]
        ),
        hide_index=True,
        key="health_files",
    )
    if note := capped_note(report):
        st.caption(f"{note[0].upper()}{note[1:]}.")


def _render_retention(ctx: PageContext, report: HealthReport) -> None:
    view = retention_view(ctx.log, ctx.history, report)
    policy = view.policy
    st.caption(
        f"Log retention {escape_markdown(policy.log.describe())} · deleted-file retention "
        f"{escape_markdown(policy.deleted_files.describe())} · {len(view.vacuums)} VACUUM "
        "run(s) in the log. "
        "Versions the check did not cover are judged from VACUUM commits and removal times."
    )
    for problem in policy.problems:
        st.warning(escape_markdown(problem), icon=":material/warning:")
    now = int(time.time() * 1000)
    frame = pd.DataFrame(
        [
            {
                "version": v.version,
                "status": retention_status(v, now),
                "committed": format_ms(v.timestamp),
                "by": v.expires_by or EMPTY,
                "why": v.reason,
            }
            for v in reversed(view.versions)
        ]
    )
    # Rows tall enough to wrap: the *why* text is never cut.
    st.dataframe(
        frame,
        hide_index=True,
        height=min(38 + 60 * len(frame), 480),
        row_height=60,
        placeholder=EMPTY,
        column_config={
            "version": st.column_config.NumberColumn("version", format="%d", width="small"),
            "status": st.column_config.TextColumn("status", width="medium"),
            "committed": st.column_config.TextColumn("committed", width="medium"),
            "by": st.column_config.TextColumn("bound by", width="medium"),
            "why": st.column_config.TextColumn("why", width="large"),
        },
        key="retention_table",
    )


def _render_orphans(report: HealthReport) -> None:
    st.caption(
        f"{report.orphan_files:,} file(s), {format_bytes(report.orphan_bytes)}, under the table "
        f"root {report.orphan_scope.meaning}: VACUUM candidates, or files of commits "
        "that never arrived. Nothing is deleted here."
    )
    if report.orphan_paths:
        st.dataframe(
            pd.DataFrame({"path": report.orphan_paths}), hide_index=True, placeholder=EMPTY
        )
