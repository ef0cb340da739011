"""The Audit page (operator mode only): every restore attempt on the open table.

Lists what the audit log recorded (planned, refused with the reason, failed, committed,
verified, undone): who, when, the reason and the versions, with a filter on the status
and a CSV download. The page only renders :func:`inspector.restore.trail.audit_trail`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.delta.text import format_moment
from inspector.present.values import EMPTY
from inspector.restore.trail import AttemptStatus, audit_trail
from inspector.table.timetravel import parse_timestamp
from ui.common import csv_download, escape_markdown
from ui.context import PageContext

STATUS_FILTER = "audit_status_filter"


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its time in the one display form (the audit log keeps ISO 8601)."""
    try:
        return {**row, "when": format_moment(parse_timestamp(row["when"]))}
    except InspectorError:  # an entry written by hand: shown as it is
        return row


def render(ctx: PageContext) -> None:
    """The Audit page."""
    st.subheader("Audit", anchor=False)
    trail = audit_trail(ctx.settings.audit_log, ctx.log.table_root)
    st.caption(
        f"Every restore attempt on this table, oldest first, from `{trail.audit_log}` "
        "(setting `audit_log`)."
    )
    if not trail.records:
        st.info("No restore was ever planned or attempted on this table.", icon=":material/info:")
        return
    present = [s.value for s in AttemptStatus if any(r.status == s for r in trail.records)]
    chosen = st.multiselect("Status", present, default=present, key=STATUS_FILTER)
    rows = [_shown(r.row()) for r in trail.records if r.status.value in chosen]
    frame = pd.DataFrame(rows, columns=list(trail.records[0].row()))
    st.dataframe(frame, hide_index=True, width="stretch", placeholder=EMPTY)
    st.caption(
        f"{len(rows)} of {len(trail.records)} attempts shown. "
        + escape_markdown("'undone by' is the version of the restore that went back.")
    )
    csv_download("Download (CSV)", frame, file_name="restore-audit.csv", key="audit_csv")
