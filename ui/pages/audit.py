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
from inspector.restore.audit import AttemptStatus, UndoOffer, audit_trail, undo_offers
from inspector.table.timetravel import parse_timestamp
from ui.common import csv_download, escape_markdown
from ui.context import PageContext
from ui.pages.restore_state import PREFILL, RestorePrefill
from ui.routing import go_to

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
    _undo(ctx, undo_offers(trail, ctx.log.latest_version))


def _undo(ctx: PageContext, offers: list[UndoOffer]) -> None:
    """The undo of each committed restore not undone yet: planned on the Restore page."""
    if not offers:
        return
    st.markdown("##### Undo a restore")
    for offer in offers[:_UNDO_SHOWN]:
        st.markdown(escape_markdown(offer.text()))
        if offer.refusal is not None:
            st.caption(escape_markdown(offer.refusal))
        elif st.button(
            f"Plan the undo: restore version {offer.back_to}",
            icon=":material/undo:",
            key=f"audit_undo_{offer.restore_version}",
            help="Opens the Restore page with the target and the reason filled in; you plan "
            "and confirm it like any restore.",
        ):
            st.session_state[PREFILL] = RestorePrefill(
                table_root=ctx.log.table_root,
                version=offer.back_to,
                reason=f"Undo the restore committed as version {offer.restore_version}",
            )
            go_to("restore")


_UNDO_SHOWN = 3  # the newest committed restores; older ones are in the table above
