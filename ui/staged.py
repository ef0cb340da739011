"""A catalog-managed table's staged commits, marked, on the Timeline and the Health page.

The backend decides which staged commits there are and what is known of each
(:mod:`inspector.table.staged`); this only shows them, once per history generation.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.table.history_entry import HistoryEntry
from inspector.table.staged import staged_commits, staged_entries
from ui.context import PageContext
from ui.state import keep, kept

_KEY = "_staged_commits"


def staged(ctx: PageContext) -> tuple[HistoryEntry, ...]:
    """The table's staged commits as history entries, newest first (read once per generation)."""
    request = (*ctx.cache_key, ctx.table_name)
    found = kept(_KEY, request, tuple)
    if found is None:
        entries = staged_entries(ctx.table, staged_commits(ctx.table, ctx.settings), ctx.settings)
        found = keep(_KEY, request, tuple(entries[::-1]))
    return found


def render_staged(ctx: PageContext) -> None:
    """A marked list of the staged commits newer than the published log (nothing without)."""
    entries = staged(ctx)
    if not entries:
        return
    st.warning(
        f"**{len(entries)} staged commit(s)** newer than the published log: this table is "
        "catalog-managed, and only its catalog decides which become versions. They are "
        "not part of the versions below until they are published.",
        icon=":material/pending_actions:",
    )
    frame = pd.DataFrame(
        {
            "version": [e.version for e in entries],
            "staged": [e.staged for e in entries],
            "operation": [e.operation for e in entries],
            "timestamp": [e.timestamp for e in entries],
        }
    )
    st.dataframe(frame, hide_index=True)
