"""The Restore page's result: the new version, its metrics, the verification, and an Undo.

The Undo is a guarded restore back to the pre-restore version: it is planned here and
confirmed on the Restore page like any restore.
"""

from __future__ import annotations

import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.restore import RestoreResult, plan_undo
from inspector.restore.audit import left_out_missing, undo_offer
from inspector.restore.planrecord import RestoreMetrics
from ui.common import (
    MetricRow,
    escape_markdown,
    format_bytes,
    format_count,
    metric_row,
    render_error,
)
from ui.context import PageContext
from ui.pages.restore_state import PLAN, REASON, RESULT, TARGET, plan_request
from ui.state import forget, keep, kept


def render_result(ctx: PageContext) -> None:
    result = kept(RESULT, ctx.log.table_root, RestoreResult)
    if result is None:
        return
    partial = " as a **PARTIAL** table" if result.skipped_files else ""
    st.success(
        f"Committed version **{result.committed_version}**: the table now has version "
        f"{result.plan.target_version}'s data{partial}.",
        icon=":material/task_alt:",
    )
    cols = metric_row()
    cols.metric("New version", result.committed_version)
    file_metrics(cols, result.metrics)
    _render_verification(result)
    offer = undo_offer(
        restore_version=result.committed_version,
        back_to=result.pre_restore_version,
        latest_version=ctx.log.latest_version,
        partial=bool(result.skipped_files),
        still_missing=left_out_missing(ctx.log, result.skipped_files),
    )
    if offer.refusal is not None:  # never offered when its guards would refuse it
        st.caption(escape_markdown(offer.refusal))
    elif st.button(
        f"Undo: restore back to version {result.pre_restore_version}",
        icon=":material/undo:",
        key="restore_undo",
        help=offer.text() + " Plans a guarded restore back; you confirm it like any restore.",
    ):
        _plan_undo(ctx, result)


def file_metrics(cols: MetricRow, m: RestoreMetrics) -> None:
    """A restore's files, planned or committed: re-added, removed and after, with sizes."""
    for label, count, size in (
        ("Files re-added", m.num_restored_files, m.restored_files_size),
        ("Files removed", m.num_removed_files, m.removed_files_size),
        ("Files after", m.num_of_files_after_restore, m.table_size_after_restore),
    ):
        cols.metric(label, format_count(count), caption=format_bytes(size))


def _render_verification(result: RestoreResult) -> None:
    verification = result.verification
    if verification is None:
        return
    icons = {
        "passed": ":material/check:",
        "failed": ":material/close:",
        "skipped": ":material/remove:",
    }
    lines = [
        f"{icons.get(c.status, '')} **{c.name}** ({c.status}): {escape_markdown(c.message)}"
        for c in verification.checks
    ]
    box = st.success if verification.ok else st.error
    box(
        "**Verification "
        + ("passed" if verification.ok else "FAILED")
        + "**\n\n"
        + "\n\n".join(lines)
    )


def _plan_undo(ctx: PageContext, result: RestoreResult) -> None:
    try:
        with st.spinner("Planning the undo…", show_time=True):
            plan = plan_undo(result, settings=ctx.settings)
    except InspectorError as exc:
        render_error(exc)
        return
    forget(RESULT)
    keep(PLAN, plan_request(ctx.log), plan)
    st.session_state[TARGET] = str(result.pre_restore_version)
    st.session_state[REASON] = (
        f"Undo of the restore to version {result.plan.target_version} "
        f"(version {result.committed_version})"
    )
    st.rerun()
