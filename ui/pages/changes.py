"""The Changes page: the change data feed of a version range, read by Spark.

Counts per change type and per version, then the rows page by page (each page is
read by the backend in a stable order), an optional filter and a CSV download of
the page shown. A range with versions written without the feed shows the error and
offers the Diff page, which compares the rows of any two versions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.delta.text import format_moment
from inspector.rows.changefeed import (
    ChangeDataFeedDisabled,
    ChangeFeed,
    build_changes,
    change_page,
)
from inspector.table.timetravel import parse_timestamp
from ui.common import (
    PENDING_VERSION,
    csv_table,
    format_count,
    metric_row,
    on_spark,
    page_picker,
    render_error,
    work_button,
)
from ui.context import PageContext
from ui.page_state import VersionPair, adopt, initial_index, linked, mirror
from ui.routing import ask_for_page
from ui.state import keep, kept

_RESULT = "_changes_result"  # Kept: the first page's ChangeFeed (or error) of the last read
_PAGES = "_changes_pages"  # {(request, offset): ChangeFeed} pages read for that request
PAGE_KEY = "cdf_page"
_WHERE = "cdf_where"


def render(ctx: PageContext) -> None:
    """The Changes page: pick a range (default: the sidebar's version), see its changes."""
    st.subheader("Changes", anchor=False)
    versions = list(ctx.versions) or [ctx.version]
    start, end, where, from_link = _range_and_filter(ctx, versions)
    request = (ctx.log.table_root, ctx.log.generation, start, end, where.strip())
    pressed = work_button("Show changes", key="cdf_run", type="primary")
    # A link names the range to see: its rows show without another click.
    if pressed or (from_link and kept(_RESULT, request, object) is None):
        result: ChangeFeed | InspectorError
        try:
            result = _first_page(ctx, start, end, where)
        except InspectorError as exc:  # kept, so the error and its way out stay on the page
            result = exc
        keep(_RESULT, request, result)
        st.session_state[_PAGES] = {(request, 0): result}
        st.session_state[PAGE_KEY] = 1
    shown = kept(_RESULT, request, object)
    if isinstance(shown, InspectorError):
        _show_error(shown, _diff_of_range(versions, start, end))
    elif isinstance(shown, ChangeFeed):
        _show(ctx, request, shown)


def _range_and_filter(ctx: PageContext, versions: list[int]) -> tuple[int, int, str, bool]:
    """The range and filter: adopted from a link, drawn, and written back to the URL (and
    whether a link named the range)."""
    # Keyed by the sidebar's version, so picking one there resets the range.
    keys = {"from": f"cdf_from_{ctx.version}", "to": f"cdf_to_{ctx.version}", "filter": _WHERE}
    link = linked()
    pair = VersionPair.from_link(link, versions)
    if pair is not None:
        adopt({"from": pair.from_version, "to": pair.to_version}, keys)
    adopt({"filter": link.get("filter")}, keys)
    left, right = st.columns(2)
    at = versions.index(ctx.version)
    start = left.selectbox(
        "From version", versions, index=initial_index(keys["from"], at), key=keys["from"]
    )
    end = right.selectbox(
        "To version", versions, index=initial_index(keys["to"], at), key=keys["to"]
    )
    where = st.text_input(
        "Filter (optional SQL WHERE expression; _change_type and _commit_version included)",
        key=_WHERE,
        placeholder="_change_type = 'delete'",
    )
    problem = VersionPair.link_problem(link, versions)
    if problem is not None:
        st.warning(
            f"{problem} Showing versions {start} to {end} instead.", icon=":material/link_off:"
        )
    mirror({**VersionPair(from_version=start, to_version=end).params(), "filter": where or None})
    return start, end, where, pair is not None


def _first_page(ctx: PageContext, start: int, end: int, where: str) -> ChangeFeed:
    with st.spinner(on_spark("Reading the change data feed on Spark…"), show_time=True):
        return build_changes(
            ctx.log,
            start,
            end,
            settings=ctx.settings,
            where=where.strip() or None,
            limit=ctx.settings.preview_rows,
        )


def _show_error(exc: InspectorError, pair: VersionPair) -> None:
    """The error; without the feed, the way to the row diff."""
    render_error(exc)
    if isinstance(exc, ChangeDataFeedDisabled):
        st.info(
            "Without the change data feed, the Diff page compares the rows of any two "
            "versions (its Rows tab)."
        )
        st.button(
            "Compare the rows on the Diff page",
            key="cdf_to_diff",
            on_click=_open_diff,
            args=(pair,),
        )


def _diff_of_range(versions: list[int], start: int, end: int) -> VersionPair:
    """The Diff that shows a range's changes: the version before ``start`` against ``end``."""
    before = [v for v in versions if v < start]
    return VersionPair(from_version=before[-1] if before else start, to_version=end)


def _open_diff(pair: VersionPair) -> None:
    """Open the Diff page on ``pair``, with the sidebar at its newer version."""
    st.session_state[PENDING_VERSION] = pair.to_version
    ask_for_page("diff", {"version": str(pair.to_version), **pair.params()})


def _show(ctx: PageContext, request: tuple[Any, ...], feed: ChangeFeed) -> None:
    cols = metric_row()
    cols.metric("Rows", format_count(feed.num_rows))
    for kind, count in feed.counts.items():
        cols.metric(kind, format_count(count))
    per_version = pd.DataFrame(  # a kind a version has none of is 0, never "None"
        [
            {"version": v, **{kind: counts.get(kind, 0) for kind in feed.counts}}
            for v, counts in sorted(feed.per_version.items())
        ]
    )
    st.dataframe(per_version, hide_index=True, width="stretch")
    size = max(feed.limit, 1)
    offset = page_picker(PAGE_KEY, feed.num_rows, size)
    shown = _page(ctx, request, feed, offset)
    if shown is None:
        return
    rows = pd.DataFrame(list(shown.rows), columns=list(shown.columns))
    if "_commit_timestamp" in rows:  # the one display form of a time, as on every page
        rows["_commit_timestamp"] = [_when(v) for v in rows["_commit_timestamp"]]
    first = offset + 1 if len(rows) else 0
    st.caption(
        f"Rows {first:,}–{offset + len(rows):,} of {format_count(feed.num_rows)}, "
        "by version, then deletes, update pre-images, post-images and inserts."
    )
    csv_table(
        rows,
        "Download this page (CSV)",
        file_name=f"changes_{feed.from_version}_{feed.to_version}_page{offset // size + 1}.csv",
        key="cdf_csv",
    )


def _when(value: object) -> object:
    if isinstance(value, datetime):
        return format_moment(value)
    if isinstance(value, str) and value:
        try:
            return format_moment(parse_timestamp(value))
        except InspectorError:
            return value
    return value


def _page(
    ctx: PageContext, request: tuple[Any, ...], feed: ChangeFeed, offset: int
) -> ChangeFeed | None:
    """The page at ``offset``, read once by the backend and kept for this request."""
    pages = st.session_state.setdefault(_PAGES, {})
    if (request, offset) not in pages:
        try:
            with st.spinner(on_spark("Reading this page on Spark…"), show_time=True):
                pages[(request, offset)] = change_page(ctx.log, feed, offset, settings=ctx.settings)
        except InspectorError as exc:
            render_error(exc)
            return None
    found: ChangeFeed | None = pages[(request, offset)]
    return found
