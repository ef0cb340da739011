"""The Preview page's answers: which files a filter reads (explain) and who wrote a row (blame).

A row selected in the preview's table opens its blame: the filter is the row's key
(:func:`inspector.diff.rowkeys.suggest_key`, else every column), editable before it runs.
Both answers run on Spark when asked, are kept for the inputs they were computed for,
and link each version to the Version and Diff pages. The address bar is a link to the
answer shown: ``&explain=1`` (the preview's ``filter`` explained) and ``&blame=SQL`` (the
rows traced); a link opened recomputes it, as the Diff page's ``rows=1`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.present.values import table_rows, text_value
from inspector.rows.blame_records import Blame, Method, WriteKind
from inspector.rows.explain import Explanation
from ui.common import (
    escape_markdown,
    format_bytes,
    format_count,
    metric_row,
    page_picker,
    render_error,
)
from ui.context import PageContext
from ui.page_state import linked, mirror
from ui.state import keep, kept

_EXPLAIN, _BLAME = "_explain_result", "_blame_result"
#: The blame a link asked for, ``(table root, version, filter)``: kept past the link's run.
_BLAME_LINK = "_blame_link"
#: The preview's table: a single row selected there opens its blame.
ROWS_KEY = "preview_rows"
_PAGE = 50
T = TypeVar("T")


def row_table(frame: pd.DataFrame) -> int | None:
    """The preview's rows as a table one row of which can be selected; its index, if any."""
    event: Any = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=ROWS_KEY,
    )
    rows = list(event.selection.rows) if event is not None else []
    return int(rows[0]) if rows else None


def explain_panel(ctx: PageContext, version: int, where: str) -> None:
    """Which files a read of ``version`` filtered by ``where`` reads, phase by phase."""
    asked = linked().get("explain") == "1"
    with st.expander("Which files does this filter read? (explain)", expanded=asked):
        if not where:
            st.caption("Type a filter above to see which files a read of it must open.")
            mirror({"explain": None})
            return
        result = _answer(
            _EXPLAIN,
            (ctx.log.table_root, ctx.log.generation, version, where),
            Explanation,
            lambda: _explain(ctx, version, where),
            clicked=st.button("Explain the read", key="explain_run", icon=":material/filter_alt:"),
            asked=asked,
            spinner="Planning the read with Delta…",
            link=("explain", "1"),
        )
        if result is not None:
            _show_explanation(result)


def _explain(ctx: PageContext, version: int, where: str) -> Explanation:
    from inspector.rows.explain import explain_read

    return explain_read(ctx.log, version, where, settings=ctx.settings)


def _show_explanation(e: Explanation) -> None:
    cols = metric_row()
    for label, tally in (
        ("Files in the version", e.total),
        ("After partition pruning", e.after_partitions),
        ("After statistics", e.after_stats),
        ("Read by Delta", e.read),
    ):
        cols.metric(label, format_count(tally.files), help=format_bytes(tally.bytes))
    for u in e.unjudged:
        st.caption(f"Skips no file: `{escape_markdown(u.sql)}` ({escape_markdown(u.reason)}).")
    for c in e.columns_without_stats:
        st.caption(f"No statistics for `{c.column}` in {format_count(c.files_without)} files.")
    for path in e.log_keeps_fewer:
        st.warning(f"The log would skip {escape_markdown(path)}, which Delta reads.")
    total = e.files.num_rows
    first = page_picker("explain_page", total, _PAGE)
    shown = e.page(first, _PAGE)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "path": f.path,
                    "size": f.size,
                    "partition": ", ".join(f"{k}={v}" for k, v in f.partition_values.items()),
                    "records": f.num_records,
                    "deleted rows": f.deleted_rows,
                }
                for f in shown
            ],
            columns=["path", "size", "partition", "records", "deleted rows"],
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(f"Files {first + 1}–{first + len(shown)} of {total:,}.")


def blame_panel(ctx: PageContext, version: int, row: Mapping[str, Any] | None) -> None:
    """Every version that wrote the selected row (or the rows a typed or linked filter
    matches); without either, an invitation to select a row."""
    from_link = _linked_blame(ctx, version)
    if row is None and from_link is None:
        st.caption("Select a row in the table to see every version that wrote it (blame).")
        mirror({"blame": None})
        return
    st.markdown("**Who wrote this row (blame)**")
    key = f"blame_where_{version}_" + (
        "link" if row is None else str(hash(tuple(map(repr, row.values()))))
    )
    where = st.text_input(
        "Rows to trace (SQL filter, parsed by Spark)",
        value=_row_filter(ctx, version, row) if row is not None else (from_link or ""),
        key=key,
    ).strip()
    clicked = st.button("Trace the row", key="blame_run", icon=":material/history:")
    result = _answer(
        _BLAME,
        (ctx.log.table_root, ctx.log.generation, version, where),
        Blame,
        lambda: _blame(ctx, version, where),
        clicked=clicked and bool(where),
        asked=bool(where) and where == from_link,
        spinner="Reading the versions that may have written it…",
        link=("blame", where),
    )
    if result is not None:
        _show_blame(ctx, result)


def _answer(
    key: str,
    request: Hashable,
    kind: type[T],
    compute: Callable[[], T],
    *,
    clicked: bool,
    asked: bool,
    spinner: str,
    link: tuple[str, str],
) -> T | None:
    """The answer kept under ``key`` for ``request``: computed first when its button was
    clicked, or when a link asks for it and none is kept. The address bar links to it
    (``link``: a parameter and its value) while one is shown.

    Returns:
        The answer, or None when there is none: then a failure of this run is shown (and
        the address bar left as it was).
    """
    if clicked or (asked and kept(key, request, kind) is None):
        try:
            with st.spinner(spinner):
                keep(key, request, compute())
        except InspectorError as exc:
            render_error(exc)
            return None
    result = kept(key, request, kind)
    name, value = link
    mirror({name: value if result is not None else None})
    return result


def linked_blame_panel(ctx: PageContext, version: int) -> None:
    """The blame a link asked for (``&blame=SQL``), shown before any row is previewed."""
    if _linked_blame(ctx, version) is not None:
        blame_panel(ctx, version, None)


def _linked_blame(ctx: PageContext, version: int) -> str | None:
    """The filter of the blame a link asked for at this version, if any."""
    asked = linked().get("blame", "").strip()
    if asked:
        st.session_state[_BLAME_LINK] = (ctx.log.table_root, version, asked)
    root, at, where = st.session_state.get(_BLAME_LINK) or (None, None, None)
    return str(where) if (root, at) == (ctx.log.table_root, version) else None


def _row_filter(ctx: PageContext, version: int, row: Mapping[str, Any]) -> str:
    from inspector.diff.rowkeys import suggest_key
    from inspector.rows.predicate import row_filter

    suggestion = suggest_key(ctx.log.snapshot(version))
    columns = suggestion.columns if suggestion.identifies_rows else tuple(row)
    return row_filter(dict(row), tuple(columns))


def _blame(ctx: PageContext, version: int, where: str) -> Blame:
    from inspector.rows.blame import blame_rows

    return blame_rows(ctx.log, version, where, settings=ctx.settings)


def _show_blame(ctx: PageContext, blame: Blame) -> None:
    how = (
        "linked by row id (row tracking)"
        if blame.method is Method.ROW_TRACKING
        else "matched by the filter alone (no row tracking)"
    )
    st.caption(
        f"{len(blame.rows)} rows, {how}; Delta read {len(blame.versions_read)} of "
        f"{blame.versions_considered} versions (statistics pruned the rest)."
    )
    for cut in blame.cuts:
        st.warning(f"History cut at version {cut.version}: {escape_markdown(cut.reason)}.")
    for number, row in enumerate(blame.rows, 1):
        label = f"row id {row.row_id}" if row.row_id is not None else f"row {number}"
        st.markdown(f"**{label}**" + ("" if row.current is not None else " (deleted)"))
        st.dataframe(
            _writes_frame(ctx, row.writes),
            hide_index=True,
            width="stretch",
            column_config={
                "version": st.column_config.LinkColumn("version", display_text=r"version=(\d+)$"),
                "diff": st.column_config.LinkColumn("diff", display_text="Diff"),
            },
        )


def _writes_frame(ctx: PageContext, writes: Any) -> pd.DataFrame:
    table = quote(ctx.log.table_root, safe="")
    records = []
    for w in writes:
        changed = [
            f"{k}: {text_value((w.before or {}).get(k))} → {text_value((w.after or {}).get(k))}"
            for k in dict.fromkeys([*(w.before or {}), *(w.after or {})])
            if w.change is WriteKind.UPDATED and (w.before or {}).get(k) != (w.after or {}).get(k)
        ]
        after = table_rows([w.after], list(w.after))[0] if w.after else None
        records.append(
            {
                "version": f"/version?table={table}&version={w.version}",
                "time": w.timestamp,
                "operation": w.operation,
                "by": w.user_name or w.engine_info,
                "change": str(w.change),
                "changed": "; ".join(changed) or None,
                "after": ", ".join(f"{k}={v}" for k, v in after.items()) if after else None,
                "diff": f"/diff?table={table}&from={w.version - 1}&to={w.version}"
                if w.version > 0
                else None,
            }
        )
    return pd.DataFrame(records)
