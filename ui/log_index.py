"""The sidebar's Log index section: what the on-disk cache of commits holds, and clearing it.

The log index (:mod:`inspector.log.index`) keeps commit files read, so that a table seen
before costs only its listing and its new commits; it holds real column values (min/max
statistics), so an operator can see where it is and what it holds, and empty it.
"""

from __future__ import annotations

import streamlit as st

from inspector.log.index import open_index
from inspector.settings import Settings
from ui.common import escape_markdown, format_bytes


def render_log_index(settings: Settings) -> None:
    """A collapsed sidebar section: the folder, its size and tables, and a Clear button."""
    index = open_index(settings)
    with st.sidebar, st.expander(":material/database: Log index", expanded=False):
        if index is None:
            st.caption(
                "Off (`DELTA_INSPECTOR_LOG_INDEX=false`): every commit is read from the store."
            )
            return
        if not index.usable():
            st.warning(
                f"`{index.folder}` cannot be used (it belongs to another user or cannot be "
                "made): every commit is read from the store. Set DELTA_INSPECTOR_LOG_INDEX_FOLDER "
                "to a folder of your own.",
                icon=":material/warning:",
            )
            return
        tables = index.tables()
        st.caption(
            f"`{index.folder}` (owner-only) · {format_bytes(index.size())} of "
            f"{format_bytes(index.max_bytes)} · {len(tables)} table(s)"
        )
        for table in tables[:10]:
            where = escape_markdown(table.location)
            st.caption(f"{where} · {table.commits:,} commits · {format_bytes(table.size)}")
        if st.button("Clear", key="log_index_clear", disabled=not tables):
            index.clear()
            st.toast("The log index is empty; commits are read from the store again.")
            st.rerun()
