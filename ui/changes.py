"""The Changes page: the change data feed of a version range, read by Spark.

Counts per change type and per version, one page of rows, an optional filter and
a CSV download. A range with versions written without the feed shows the error and
points to the Diff page.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.rows.changes import ChangeDataFeedDisabled, ChangeFeed, build_changes
from ui.common import format_count, metric_row, render_error
from ui.context import PageContext

_RESULT = "_changes_result"  # (request, ChangeFeed) of the last read


def render(ctx: PageContext) -> None:
    """The Changes page: pick a range (default: the sidebar's version), see its changes."""
    st.subheader("Changes", anchor=False)
    versions = list(ctx.versions) or [ctx.version]
    left, right = st.columns(2)
    start = left.selectbox(
        "From version", versions, index=versions.index(ctx.version), key=f"cdf_from_{ctx.version}"
    )
    end = right.selectbox(
        "To version", versions, index=versions.index(ctx.version), key=f"cdf_to_{ctx.version}"
    )
    where = st.text_input(
        "Filter (optional SQL WHERE expression; _change_type and _commit_version included)",
        key="cdf_where",
        placeholder="_change_type = 'delete'",
    )
    request = (ctx.log.table_root, ctx.log.generation, start, end, where.strip())
    if st.button("Show changes", key="cdf_run", type="primary"):
        try:
            with st.spinner("Reading the change data feed on Spark…"):
                feed = build_changes(
                    ctx.log,
                    start,
                    end,
                    settings=ctx.settings,
                    where=where.strip() or None,
                    limit=ctx.settings.preview_rows,
                )
        except InspectorError as exc:
            render_error(exc)
            if isinstance(exc, ChangeDataFeedDisabled):
                st.info("The Diff page compares the rows of any two versions.")
            return
        st.session_state[_RESULT] = (request, feed)
    result = st.session_state.get(_RESULT)
    if result is not None and result[0] == request:
        _show(result[1])


def _show(feed: ChangeFeed) -> None:
    cols = metric_row()
    cols.metric("Rows", format_count(feed.num_rows))
    for kind, count in feed.counts.items():
        cols.metric(kind, format_count(count))
    per_version = pd.DataFrame(
        [{"version": v, **counts} for v, counts in sorted(feed.per_version.items())]
    )
    st.dataframe(per_version, hide_index=True, width="stretch")
    rows = pd.DataFrame(list(feed.rows), columns=list(feed.columns))
    st.caption(f"First {len(rows)} of {format_count(feed.num_rows)} rows.")
    st.dataframe(rows, hide_index=True, width="stretch")
    st.download_button(
        "Download CSV",
        rows.to_csv(index=False),
        file_name=f"changes_{feed.from_version}_{feed.to_version}.csv",
        mime="text/csv",
        key="cdf_csv",
    )
