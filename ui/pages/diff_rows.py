"""The Diff page's Rows tab: rows compared on Spark, only when asked, one page of samples."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.diff.filediff import FileDiff
from inspector.diff.rowkeys import ChangedRow, RowDiff, default_key, suggest_key
from inspector.present.values import EMPTY, table_rows, text_value
from inspector.rows.rowdiff import diff_rows
from ui.common import format_bytes, format_count, metric_row, on_spark, render_error, work_button
from ui.context import PageContext
from ui.page_state import linked, mirror

_REQUESTED = "_diff_rows_requested"  # row diffs the user asked for: {(table, gen, from, to, key)}
_RESULTS = "_diff_rows_results"  # computed pages: {(table, gen, from, to, key, offset): RowDiff}


def rows_tab_body(ctx: PageContext, diff: FileDiff, ident: tuple[Any, ...]) -> RowDiff | None:
    """The Rows tab; returns the row diff shown, if any (for the exports)."""
    columns = list(
        dict.fromkeys(
            diff.to_side.metadata.schema.field_names()
            + diff.from_side.metadata.schema.field_names()
        )
    )
    suggestion = suggest_key(ctx.log.snapshot(diff.to_version))
    chosen = default_key(ctx.log.snapshot(diff.to_version))  # as `diff --rows` chooses
    suggested = [c for c in suggestion.columns if c in columns]
    columns = suggested + [c for c in columns if c not in suggested]  # suggestions listed first
    link = linked()
    if "key" in link:  # a link keeps the key it was compared on ("-": whole rows)
        st.session_state["diff_key"] = [c for c in link["key"].split(",") if c in columns]
    key = tuple(
        st.multiselect(
            "Key columns (optional)",
            columns,
            default=[c for c in chosen.columns if c in columns] if chosen else [],
            key="diff_key",
            help="With a key, rows are matched by it: an update shows as a changed row "
            "(before → after) rather than a removed and an added one. Suggested: "
            + suggestion.reason,
        )
    )
    changed = len(diff.only_in_from) + len(diff.only_in_to)
    requested = st.session_state.setdefault(_REQUESTED, set())
    if link.get("rows") == "1":  # a link keeps the row result: recomputed, with its progress
        requested.add(ident + (key,))
    compared = ident + (key,) in requested
    mirror({"key": (",".join(key) or "-") if compared else None, "rows": "1" if compared else None})
    if work_button(
        "Compare rows",
        icon=":material/compare_arrows:",
        key="diff_rows_button",
        help=f"Starts Spark and reads only the {changed} changed files.",
    ):
        requested.add(ident + (key,))
        mirror({"key": ",".join(key) or "-", "rows": "1"})
    if ident + (key,) not in requested:
        st.caption(
            f"Comparing rows starts Spark and reads only the {changed:,} changed files "
            f"({format_bytes(sum(f.size for f in diff.only_in_from + diff.only_in_to))})."
        )
        return None
    page = st.number_input("Sample page", min_value=1, value=1, step=1, key="diff_rows_page")
    try:
        rows = _row_diff(ctx, diff, ident, key, (int(page) - 1) * ctx.settings.sample_rows)
    except InspectorError as exc:
        render_error(exc)
        return None
    _show_rows(rows)
    note = carried_over_note(diff, rows)
    if note:
        st.info(note, icon=":material/sync_alt:")
    return rows


def carried_over_note(diff: FileDiff, rows: RowDiff) -> str | None:
    """Why the file stats and the row diff disagree: rewritten files carry unchanged rows.

    ``3 files rewritten: 95 unchanged rows carried over`` when the files removed held
    more rows (by their stats) than the rows that really left or changed.
    """
    held = diff.totals.records_removed
    rewritten, marked = diff.rewritten, diff.deletion_vector_updates
    if held is None or not (rewritten or marked):
        return None
    carried = held - rows.removed - (rows.changed or 0)
    if carried <= 0:
        return None
    files = [f"{rewritten:,} file(s) rewritten"] if rewritten else []
    if marked:
        files.append(f"{marked:,} file(s) given a new deletion vector (not rewritten)")
    where = []
    if rewritten:
        where.append("written again, unchanged, into the files added")
    if marked:
        where.append(
            "still in the same files, only the deleted rows marked in their deletion vectors"
        )
    return (
        f"{' and '.join(files)}: {carried:,} unchanged rows carried over. The files "
        f"removed held {held:,} rows by their stats, but only {rows.removed:,} "
        + ("keys were removed" if rows.key else "rows were removed")
        + (f" and {rows.changed:,} changed" if rows.changed else "")
        + f"; the rest are {' or '.join(where)}."
    )


def _row_diff(
    ctx: PageContext, diff: FileDiff, ident: tuple[Any, ...], key: tuple[Any, ...], offset: int
) -> RowDiff:
    results = st.session_state.setdefault(_RESULTS, {})
    cached = results.get(ident + (key, offset))
    if cached is None:
        with st.spinner(
            on_spark("Comparing the rows of the changed files on Spark…"), show_time=True
        ):
            cached = diff_rows(
                ctx.log,
                diff.from_version,
                diff.to_version,
                key=key,
                offset=offset,
                file_diff=diff,
                settings=ctx.settings,
            )
        results[ident + (key, offset)] = cached
    rows: RowDiff = cached
    return rows


def _show_rows(rows: RowDiff) -> None:
    cols = metric_row()
    noun = "Keys" if rows.key else "Rows"
    cols.metric(f"{noun} added", format_count(rows.added))
    cols.metric(f"{noun} removed", format_count(rows.removed))
    if rows.changed is not None:
        cols.metric("Keys changed", format_count(rows.changed))
    st.caption(
        f"Read {rows.files_read:,} changed files ({format_bytes(rows.bytes_read)}). Samples: up to "
        f"{rows.samples.limit} rows per list from row {rows.samples.offset + 1}; counts are exact."
    )
    for title, sample, key in (
        ("Added", rows.samples.added, "diff_rows_added"),
        ("Removed", rows.samples.removed, "diff_rows_removed"),
    ):
        if sample:
            st.markdown(f"**{title}**")
            st.dataframe(
                pd.DataFrame(
                    table_rows(sample, rows.columns), columns=list(rows.columns), dtype=object
                ),
                hide_index=True,
                placeholder=EMPTY,
                key=key,
            )
    if rows.samples.changed:
        st.markdown("**Changed**")
        st.dataframe(
            changed_frame(rows.samples.changed, rows.key).style.map(_highlight),
            hide_index=True,
            key="diff_rows_changed",
        )
        st.caption(
            "One row per changed key: the changed fields show *before → after* (highlighted); "
            "an empty cell did not change."
        )
    if not (rows.added or rows.removed or rows.changed):
        st.success(
            "No row changed: the files that changed hold the same rows (e.g. an OPTIMIZE).",
            icon=":material/check:",
        )


_ARROW = " → "


def changed_frame(changed: tuple[ChangedRow, ...], key: tuple[str, ...]) -> pd.DataFrame:
    """One row per changed key: the key's values, then ``before → after`` in each changed field."""
    fields = list(dict.fromkeys(v.key for c in changed for v in c.changes))
    rows = []
    for c in changed:
        row = {k: text_value(c.key.get(k), empty=EMPTY) for k in key}
        after = {
            v.key: text_value(v.before, empty=EMPTY) + _ARROW + text_value(v.after, empty=EMPTY)
            for v in c.changes
        }
        rows.append(row | {f: after.get(f, "") for f in fields})
    # Key columns never change (rows are matched on them); text keeps each column one type.
    return pd.DataFrame(rows, columns=list(key) + fields, dtype=object)


def _highlight(cell: object) -> str:
    return "background-color: #fff3bf" if isinstance(cell, str) and _ARROW in cell else ""
