"""The Diff page: what changed between two versions, for a postmortem.

Schema, properties, files and partitions come from the log alone and render
without Spark; rows are compared only when asked (a button), reading only the
files that changed. The whole diff exports as a Markdown postmortem and as JSON.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector.delta.errors import CorruptLog, InspectorError
from inspector.delta.schema import logical_names
from inspector.delta.text import partition_label
from inspector.diff.filediff import FileDiff, diff_files
from inspector.diff.filepages import FilePage, sequence_page
from inspector.diff.rowkeys import RowDiff
from inspector.log.deltalog import DeltaLog
from inspector.present.report import markdown_report, metadata_sections, to_json
from inspector.present.values import EMPTY
from inspector.table.rowcounts import RowsBetween, rows_between, why_they_differ
from inspector.table.rowrule import RowChange
from ui.common import (
    escape_markdown,
    format_bytes,
    format_count,
    format_ms,
    metric_row,
    render_error,
)
from ui.context import PageContext
from ui.file_pages import paged_table
from ui.page_state import VersionPair, adopt, initial_index, linked, mirror
from ui.pages.diff_rows import rows_tab_body
from ui.routing import go_to


@st.cache_resource(max_entries=16, show_spinner="Reading the commits in between…")
def _file_diff(
    table_root: str, generation: int, from_version: int, to_version: int, _log: DeltaLog
) -> FileDiff:
    return diff_files(_log, from_version, to_version)


@st.cache_resource(max_entries=16, show_spinner=False)
def _log_rows(
    table_root: str, generation: int, from_version: int, to_version: int, _log: DeltaLog
) -> RowsBetween:
    return rows_between(_log, from_version, to_version)


def render(ctx: PageContext) -> None:
    """The Diff page."""
    versions = list(ctx.versions) or [c.version for c in ctx.log.commits]
    from_version, to_version = _pickers(ctx, versions)
    try:
        diff = _file_diff(ctx.log.table_root, ctx.log.generation, from_version, to_version, ctx.log)
    except InspectorError as exc:
        render_error(exc)
        if isinstance(exc, CorruptLog) and st.button(
            "Open the Health page", icon=":material/health_and_safety:", key="diff_to_health"
        ):
            go_to("health")
        return
    ident = (ctx.log.table_root, ctx.log.generation, from_version, to_version)
    log_rows = _log_rows(*ident, ctx.log)
    summary, schema, files, partitions, rows_tab = st.tabs(
        ["Summary", "Schema", "Files", "Partitions", "Rows"]
    )
    with rows_tab:
        rows = rows_tab_body(ctx, diff, ident)
    with summary:
        _summary(diff, log_rows, rows)
        _exports(ctx, diff, rows, log_rows)
    with schema:
        _schema(diff)
    with files:
        _files(diff)
    with partitions:
        _partitions(diff)


def _pickers(ctx: PageContext, versions: list[int]) -> tuple[int, int]:
    at = versions.index(ctx.version) if ctx.version in versions else len(versions) - 1
    # Keyed by the selected version, so choosing another version resets the defaults.
    keys = {"from": f"diff_from_{ctx.version}", "to": f"diff_to_{ctx.version}"}
    link = linked()
    pair = VersionPair.from_link(link, versions)
    if pair is not None:  # a link (or another page) names the pair
        adopt({"from": pair.from_version, "to": pair.to_version}, keys)
    problem = VersionPair.link_problem(link, versions)
    left, right, _ = st.columns([1, 1, 3])
    from_version = left.selectbox(
        "From version",
        versions,
        index=initial_index(keys["from"], max(at - 1, 0)),
        key=keys["from"],
    )
    to_version = right.selectbox(
        "To version", versions, index=initial_index(keys["to"], at), key=keys["to"]
    )
    shown = VersionPair(from_version=int(from_version), to_version=int(to_version))
    if problem is not None:
        st.warning(
            f"{problem} Showing version {shown.from_version} → {shown.to_version} instead.",
            icon=":material/link_off:",
        )
    mirror(shown.params())
    return shown.from_version, shown.to_version


def _summary(diff: FileDiff, log_rows: RowsBetween, compared: RowDiff | None = None) -> None:
    t, a, b = diff.totals, diff.from_side, diff.to_side
    if a.version > b.version:
        st.caption(
            "Backwards: from the newer version to the older one. "
            "Added means only in the to version."
        )
    cols = metric_row()
    # More or fewer files is neither good nor bad: neutral deltas.
    cols.metric(
        "Files", format_count(b.num_files), _delta(b.num_files - a.num_files), delta_color="off"
    )
    cols.metric(
        "Size",
        format_bytes(b.size_in_bytes),
        _delta(b.size_in_bytes - a.size_in_bytes, bytes_=True),
        delta_color="off",
    )
    before, after = a.num_records, b.num_records
    records_delta = None if before is None or after is None else after - before
    cols.metric(
        "Records (stats)", format_count(b.num_records), _delta(records_delta), delta_color="off"
    )
    cols.metric("Commits in between", len(diff.by_commit))
    rows = log_rows.total
    st.markdown(
        f"**Rows +inserted / −deleted / updated: {rows.label()}** "
        f"({escape_markdown(rows.note)}; the same figures as the Version page)."
    )
    if compared is not None:
        noun = "Keys" if compared.key else "Rows"
        changed = f", {compared.changed:,} changed" if compared.changed is not None else ""
        st.markdown(
            f"**{noun} compared on the Rows tab: +{compared.added:,} / "
            f"−{compared.removed:,}{changed}** (exact, from the changed files' rows)."
        )
        why = why_they_differ(
            rows, added=compared.added, removed=compared.removed, changed=compared.changed
        )
        if why:
            st.caption(why)
    by_version = dict(log_rows.by_commit)
    st.markdown(
        f"**{t.files_added}** files added ({format_bytes(t.bytes_added)}, "
        f"{format_count(t.records_added)} records), **{t.files_removed}** removed "
        f"({format_bytes(t.bytes_removed)}, {format_count(t.records_removed)} records), "
        f"**{t.deletion_vector_updates:,}** given a new deletion vector (neither added nor "
        "removed, as Delta counts them)."
    )
    if diff.by_commit:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "version": c.version,
                        "timestamp": format_ms(c.timestamp),
                        "writer's commitInfo time": format_ms(c.commit_info_timestamp),
                        "operation": c.operation,
                        "+files": c.totals.files_added,
                        "-files": c.totals.files_removed,
                        "deletion vectors updated": c.totals.deletion_vector_updates,
                        "+bytes": c.totals.bytes_added,
                        "-bytes": c.totals.bytes_removed,
                        "rows +inserted / −deleted / updated": by_version[c.version].label(),
                        "rows from": _rows_source(by_version[c.version]),
                        "records in files added": c.totals.records_added,
                        "records in files removed": c.totals.records_removed,
                        "metadata": c.changes_metadata,
                        "protocol": c.changes_protocol,
                    }
                    for c in diff.by_commit
                ]
            ),
            hide_index=True,
            placeholder=EMPTY,
            column_config={
                "version": st.column_config.NumberColumn("version", format="%d", width="small"),
                "timestamp": st.column_config.TextColumn("timestamp", width="medium"),
                "operation": st.column_config.TextColumn("operation", width="medium"),
            },
            key="diff_commits",
        )


def _rows_source(change: RowChange) -> str:
    return str(change.source) + ("" if change.exact else " (estimate)")


def _delta(value: int | None, *, bytes_: bool = False) -> str | None:
    if not value:
        return None
    text = format_bytes(abs(value)) if bytes_ else f"{abs(value):,}"
    return ("+" if value > 0 else "-") + text


def _exports(ctx: PageContext, diff: FileDiff, rows: RowDiff | None, log_rows: RowsBetween) -> None:
    name = f"diff-v{diff.from_version}-v{diff.to_version}"
    row = st.container(horizontal=True)
    table = ctx.log.table_root
    exports = (  # (label, writer, file extension, MIME type, icon)
        ("Postmortem (Markdown)", markdown_report, "md", "text/markdown", ":material/description:"),
        ("Diff (JSON)", to_json, "json", "application/json", ":material/data_object:"),
    )
    for label, write, extension, mime, icon in exports:
        # Built when clicked: a diff of thousands of files takes a second to write out.
        row.download_button(
            label,
            partial(write, diff, rows, table=table, log_rows=log_rows),
            file_name=f"{name}.{extension}",
            mime=mime,
            icon=icon,
        )
    if rows is None:
        st.caption("The exports include rows once they are compared on the Rows tab.")


def _schema(diff: FileDiff) -> None:
    if diff.metadata.is_empty:
        st.info(
            "Schema, properties and protocol are the same in both versions.",
            icon=":material/check:",
        )
        return
    for title, header, rows in metadata_sections(diff):
        st.markdown(f"**{title}**")
        key = "diff_columns" if title == "Columns" else f"diff_{title}"
        frame = pd.DataFrame(rows, columns=header)
        st.dataframe(frame, hide_index=True, placeholder=EMPTY, key=key)


def _files(diff: FileDiff) -> None:
    for title, files, key, side in (
        ("Added (only in the to version)", diff.only_in_to, "diff_added_files", diff.to_side),
        (
            "Removed (only in the from version)",
            diff.only_in_from,
            "diff_removed_files",
            diff.from_side,
        ),
    ):
        st.markdown(f"**{title}: {len(files):,}**")
        if files:  # a page at a time: a diff may hold hundreds of thousands of files
            names = logical_names(side.metadata.schema)
            pages = partial(sequence_page, files, names=names)
            paged_table(key, len(files), pages, _diff_files_frame)


def _diff_files_frame(page: FilePage) -> pd.DataFrame:
    rows = []
    for r in page.records:
        dv = r["deletionVector"]
        records = r["numRecords"]
        rows.append(
            {
                "path": r["path"],
                "size": r["size"],
                "records": None if records is None else records - (dv["cardinality"] if dv else 0),
                "partition": partition_label(r["partitionValues"], unpartitioned=""),
                "deleted rows (DV)": dv["cardinality"] if dv else None,
                "modified": format_ms(r.get("modificationTime")),
            }
        )
    return pd.DataFrame(rows)


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
    st.dataframe(frame, hide_index=True, placeholder=EMPTY, key="diff_partitions")


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
