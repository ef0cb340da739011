"""The Diff page: what changed between two versions, for a postmortem.

Schema, properties, files and partitions come from the log alone and render
without Spark; rows are compared only when asked (a button), reading only the
files that changed. The whole diff exports as a Markdown postmortem and as JSON.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.delta.text import partition_label
from inspector.log.deltalog import DeltaLog
from inspector.present.report import markdown_report, to_json
from inspector.rows.rowdiff import diff_rows
from inspector.views.filediff import FileDiff, diff_files
from inspector.views.rowrecords import RowDiff
from ui.common import format_bytes, format_count, format_ms, render_error
from ui.context import PageContext

_REQUESTED = "_diff_rows_requested"  # row diffs the user asked for: {(table, gen, from, to, key)}
_RESULTS = "_diff_rows_results"  # computed pages: {(table, gen, from, to, key, offset): RowDiff}


@st.cache_resource(max_entries=16, show_spinner="Reading the commits in between…")
def _file_diff(
    table_root: str, generation: int, from_version: int, to_version: int, _log: DeltaLog
) -> FileDiff:
    return diff_files(_log, from_version, to_version)


def render(ctx: PageContext) -> None:
    """The Diff page."""
    versions = list(ctx.versions) or [c.version for c in ctx.log.commits]
    from_version, to_version = _pickers(ctx, versions)
    try:
        diff = _file_diff(ctx.log.table_root, ctx.log.generation, from_version, to_version, ctx.log)
    except InspectorError as exc:
        render_error(exc)
        return
    ident = (ctx.log.table_root, ctx.log.generation, from_version, to_version)
    summary, schema, files, partitions, rows_tab = st.tabs(
        ["Summary", "Schema", "Files", "Partitions", "Rows"]
    )
    with rows_tab:
        rows = _rows(ctx, diff, ident)
    with summary:
        _summary(diff)
        _exports(ctx, diff, rows)
    with schema:
        _schema(diff)
    with files:
        _files(diff)
    with partitions:
        _partitions(diff)


def _pickers(ctx: PageContext, versions: list[int]) -> tuple[int, int]:
    at = versions.index(ctx.version) if ctx.version in versions else len(versions) - 1
    left, right, _ = st.columns([1, 1, 3])
    # Keyed by the selected version, so choosing another version resets the defaults.
    from_version = left.selectbox(
        "From version", versions, index=max(at - 1, 0), key=f"diff_from_{ctx.version}"
    )
    to_version = right.selectbox("To version", versions, index=at, key=f"diff_to_{ctx.version}")
    return int(from_version), int(to_version)


def _summary(diff: FileDiff) -> None:
    t, a, b = diff.totals, diff.from_side, diff.to_side
    if a.version > b.version:
        st.caption(
            "Backwards: from the newer version to the older one. "
            "Added means only in the to version."
        )
    cols = st.columns(4)
    # More or fewer files is neither good nor bad: neutral deltas.
    cols[0].metric(
        "Files", format_count(b.num_files), _delta(b.num_files - a.num_files), delta_color="off"
    )
    cols[1].metric(
        "Size",
        format_bytes(b.size_in_bytes),
        _delta(b.size_in_bytes - a.size_in_bytes, bytes_=True),
        delta_color="off",
    )
    before, after = a.num_records, b.num_records
    records_delta = None if before is None or after is None else after - before
    cols[2].metric(
        "Records (stats)", format_count(b.num_records), _delta(records_delta), delta_color="off"
    )
    cols[3].metric("Commits in between", len(diff.by_commit))
    st.markdown(
        f"**{t.files_added}** files added ({format_bytes(t.bytes_added)}, "
        f"{format_count(t.records_added)} records), **{t.files_removed}** removed "
        f"({format_bytes(t.bytes_removed)}, {format_count(t.records_removed)} records)."
    )
    if diff.by_commit:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "version": c.version,
                        "timestamp": format_ms(c.timestamp),
                        "operation": c.operation,
                        "+files": c.totals.files_added,
                        "-files": c.totals.files_removed,
                        "+bytes": c.totals.bytes_added,
                        "-bytes": c.totals.bytes_removed,
                        "+records": c.totals.records_added,
                        "-records": c.totals.records_removed,
                        "metadata": c.changes_metadata,
                        "protocol": c.changes_protocol,
                    }
                    for c in diff.by_commit
                ]
            ),
            hide_index=True,
            key="diff_commits",
        )


def _delta(value: int | None, *, bytes_: bool = False) -> str | None:
    if not value:
        return None
    text = format_bytes(abs(value)) if bytes_ else f"{abs(value):,}"
    return ("+" if value > 0 else "-") + text


def _exports(ctx: PageContext, diff: FileDiff, rows: RowDiff | None) -> None:
    name = f"diff-v{diff.from_version}-v{diff.to_version}"
    row = st.container(horizontal=True)
    row.download_button(
        "Postmortem (Markdown)",
        markdown_report(diff, rows, table=ctx.log.table_root),
        file_name=f"{name}.md",
        mime="text/markdown",
        icon=":material/description:",
    )
    row.download_button(
        "Diff (JSON)",
        to_json(diff, rows, table=ctx.log.table_root),
        file_name=f"{name}.json",
        mime="application/json",
        icon=":material/data_object:",
    )
    if rows is None:
        st.caption("The exports include rows once they are compared on the Rows tab.")


def _schema(diff: FileDiff) -> None:
    meta = diff.metadata
    if meta.is_empty:
        st.info(
            "Schema, properties and protocol are the same in both versions.",
            icon=":material/check:",
        )
        return
    columns = (
        [{"change": "added", "column": c.name, "details": c.type} for c in meta.columns_added]
        + [{"change": "removed", "column": c.name, "details": c.type} for c in meta.columns_removed]
        + [
            {"change": "changed", "column": c.name, "details": "; ".join(c.changes)}
            for c in meta.columns_changed
        ]
    )
    if columns:
        st.markdown("**Columns**")
        st.dataframe(pd.DataFrame(columns), hide_index=True, key="diff_columns")
    for title, changes in (
        ("Properties", meta.properties),
        ("Protocol", meta.protocol),
        ("Table", meta.table),
    ):
        if changes:
            st.markdown(f"**{title}**")
            st.dataframe(
                pd.DataFrame(
                    [
                        {"key": v.key, "before": _text(v.before), "after": _text(v.after)}
                        for v in changes
                    ]
                ),
                hide_index=True,
                key=f"diff_{title}",
            )


def _text(value: Any) -> str:
    return "–" if value is None else str(value)


def _files(diff: FileDiff) -> None:
    for title, files, key in (
        ("Added (only in the to version)", diff.only_in_to, "diff_added_files"),
        ("Removed (only in the from version)", diff.only_in_from, "diff_removed_files"),
    ):
        st.markdown(f"**{title}: {len(files):,}**")
        if files:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "path": f.path,
                            "size": f.size,
                            "records": f.num_live_records,
                            "partition": partition_label(
                                f.partition_values or {}, unpartitioned=""
                            ),
                            "deleted rows (DV)": f.deletion_vector.cardinality
                            if f.deletion_vector
                            else None,
                            "modified": format_ms(f.modification_time),
                        }
                        for f in files
                    ]
                ),
                hide_index=True,
                key=key,
            )


def _partitions(diff: FileDiff) -> None:
    if not diff.by_partition:
        st.info("No partition changed.", icon=":material/check:")
        return
    frame = pd.DataFrame(
        [
            {
                "partition": p.label,
                "+files": p.totals.files_added,
                "-files": p.totals.files_removed,
                "+bytes": p.totals.bytes_added,
                "-bytes": p.totals.bytes_removed,
                "+records": p.totals.records_added,
                "-records": p.totals.records_removed,
            }
            for p in diff.by_partition
        ]
    )
    left, right = st.columns(2)
    left.plotly_chart(
        _bars(frame, "+bytes", "-bytes", "Bytes added and removed"), key="diff_bytes_chart"
    )
    right.plotly_chart(
        _bars(frame, "+records", "-records", "Rows added and removed (stats)"),
        key="diff_rows_chart",
    )
    st.dataframe(frame, hide_index=True, key="diff_partitions")


def _bars(frame: pd.DataFrame, added: str, removed: str, title: str) -> go.Figure:
    fig = go.Figure(
        [
            go.Bar(name="added", x=frame["partition"], y=frame[added], marker_color="#2ca02c"),
            go.Bar(
                name="removed",
                x=frame["partition"],
                y=-frame[removed].fillna(0),
                marker_color="#d62728",
            ),
        ]
    )
    fig.update_layout(
        title=title, barmode="relative", height=320, margin={"l": 10, "r": 10, "t": 40, "b": 10}
    )
    return fig


def _rows(ctx: PageContext, diff: FileDiff, ident: tuple) -> RowDiff | None:
    """The Rows tab; returns the row diff shown, if any (for the exports)."""
    columns = list(
        dict.fromkeys(
            diff.to_side.metadata.schema.field_names()
            + diff.from_side.metadata.schema.field_names()
        )
    )
    key = tuple(
        st.multiselect(
            "Key columns (optional)",
            columns,
            key="diff_key",
            help="With a key, rows are matched by it: keys added, removed and changed.",
        )
    )
    changed = len(diff.only_in_from) + len(diff.only_in_to)
    requested = st.session_state.setdefault(_REQUESTED, set())
    if st.button(
        "Compare rows",
        icon=":material/compare_arrows:",
        key="diff_rows_button",
        help=f"Starts Spark and reads only the {changed} changed files.",
    ):
        requested.add(ident + (key,))
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
    return rows


def _row_diff(ctx: PageContext, diff: FileDiff, ident: tuple, key: tuple, offset: int) -> RowDiff:
    results = st.session_state.setdefault(_RESULTS, {})
    cached = results.get(ident + (key, offset))
    if cached is None:
        with st.spinner("Comparing the rows of the changed files on Spark…"):
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
    return cached


def _show_rows(rows: RowDiff) -> None:
    cols = st.columns(3)
    noun = "Keys" if rows.key else "Rows"
    cols[0].metric(f"{noun} added", format_count(rows.added))
    cols[1].metric(f"{noun} removed", format_count(rows.removed))
    if rows.changed is not None:
        cols[2].metric("Keys changed", format_count(rows.changed))
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
                pd.DataFrame([{c: _cell(r.get(c)) for c in rows.columns} for r in sample]),
                hide_index=True,
                key=key,
            )
    if rows.samples.changed:
        st.markdown("**Changed**")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "key": ", ".join(f"{k}={v}" for k, v in c.key.items()),
                        "column": v.key,
                        # One column holds values of every changed column: text keeps it one type.
                        "before": _text(v.before),
                        "after": _text(v.after),
                    }
                    for c in rows.samples.changed
                    for v in c.changes
                ]
            ),
            hide_index=True,
            key="diff_rows_changed",
        )
    if not (rows.added or rows.removed or rows.changed):
        st.success(
            "No row changed: the files that changed hold the same rows (e.g. an OPTIMIZE).",
            icon=":material/check:",
        )


def _cell(value: Any) -> Any:
    """Show nested values as text: Arrow cannot hold mixed types in one column."""
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)
