"""The Version page: what one commit did.

Its files added and removed, its metadata/protocol/schema changes as a diff
against the previous version, its commitInfo, its problems and its raw JSON.
Everything comes from the log; Spark is never started here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.actions import (
    AddCDCFile,
    DomainMetadata,
    Txn,
    UnknownAction,
)
from inspector.delta.errors import InspectorError, VersionNotFound
from inspector.delta.schema import ColumnNames, logical_names
from inspector.diff.filepages import (
    FileKind,
    commit_action_count,
    commit_file_page,
    commit_head,
)
from inspector.diff.metadiff import (
    MetadataDiff,
    MetadataRow,
    RowKind,
    commit_metadata_change,
    metadata_rows,
)
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.present.values import setting_text
from inspector.table.history_entry import HistoryEntry
from inspector.table.overview import state_source
from inspector.table.rowcounts import commit_rows
from inspector.table.rowrule import RowChange
from ui.checksums import render_version_checksum
from ui.common import (
    escape_markdown,
    format_bytes,
    format_count,
    format_ms,
    metric_row,
    rows_table,
)
from ui.context import PageContext
from ui.file_pages import FILE_COLUMNS, files_frame, paged_table, partition_text, plural
from ui.pages.version_info import commit_info

_LISTED_PATHS = 50  # paths listed as text per kind; the tables below page through every file
_RAW_ACTIONS = 300  # actions pretty-printed; the download has the whole file


def render(ctx: PageContext) -> None:
    """The Version page for ``ctx.version``."""
    try:
        commit = ctx.log.commit(ctx.version)
    except VersionNotFound:
        _checkpoint_only(ctx)
        return
    entry = ctx.entry(ctx.version)
    _heading(commit, entry)
    render_version_checksum(ctx, commit.version)
    _files(ctx, commit)
    _metadata_changes(ctx, commit)
    commit_info(commit)
    _other_actions(commit)
    _raw_json(ctx, commit)


def _heading(commit: Commit, entry: HistoryEntry | None) -> None:
    info = commit.commit_info
    st.subheader(f"Version {commit.version} · {info.operation}", anchor=False)
    if entry is not None:
        stamps = entry.timestamps
        source = (
            "in-commit timestamp"
            if stamps.source == "inCommitTimestamp"
            else "file modification time"
        )
        st.caption(
            f"**{format_ms(stamps.history)}** (history timestamp, from the {source}) · "
            f"commitInfo: {format_ms(stamps.commit_info)} · in-commit: "
            f"{format_ms(stamps.in_commit)} · file modified: "
            f"{format_ms(stamps.file_modification)}"
        )
        for problem in entry.problems:
            st.warning(escape_markdown(problem), icon=":material/warning:")
    elif commit.problems:
        for problem in commit.problems:
            st.warning(escape_markdown(problem), icon=":material/warning:")


def _checkpoint_only(ctx: PageContext) -> None:
    st.subheader(f"Version {ctx.version} · checkpoint only", anchor=False)
    entry = ctx.entry(ctx.version)
    for problem in entry.problems if entry else ():
        st.warning(escape_markdown(problem), icon=":material/warning:")
    if not entry or not entry.problems:
        st.info(
            f"Version {ctx.version} has no commit file: it was removed by log cleanup (or never "
            "copied), and only its checkpoint remains. What this commit changed is no longer "
            "recorded; the table's state at this version is known from the checkpoint.",
            icon=":material/info:",
        )
    snap = ctx.log.snapshot(ctx.version)
    row = metric_row()
    row.metric("Files", format_count(snap.num_files))
    row.metric("Size", format_bytes(snap.size_in_bytes))
    row.metric("Records", format_count(snap.num_records))
    st.caption(f"State read from {escape_markdown(state_source(ctx.log, ctx.version))}.")


# ---- files -------------------------------------------------------------------------------------


def _names(ctx: PageContext, commit: Commit) -> ColumnNames:
    """Logical column names for the file tables (the log's stats use physical ones)."""
    try:
        return logical_names(ctx.log.snapshot(commit.version).schema)
    except InspectorError:  # the version's state is unreadable: the log's own names
        return {}


def _files(ctx: PageContext, commit: Commit) -> None:
    summary = commit.file_summary  # from the columns: no record per file
    adds, removes = summary.add_actions, summary.remove_actions
    cdc_files = commit.cdc_files
    st.markdown("##### Files")
    row = metric_row()
    row.metric("Files added", format_count(summary.num_added_files), help=_FILES_HELP)
    row.metric("Files removed", format_count(summary.num_removed_files), help=_FILES_HELP)
    row.metric(
        "Deletion vectors updated",
        format_count(summary.deletion_vector_updates),
        help="Files removed and added back under the same path with a new deletion vector: "
        "Delta counts them in numDeletionVectorsAdded/Updated, not as files added or removed.",
    )
    row.metric(
        "Bytes added / removed",
        f"{format_bytes(summary.added_bytes)} / {format_bytes(summary.removed_bytes)}",
    )
    rows = _row_change(ctx, commit)
    row.metric("Rows +inserted / −deleted / updated", rows.label(), help=_ROWS_HELP)
    st.caption(f"Rows {escape_markdown(rows.note)}.")
    if not adds and not removes and not cdc_files:
        st.caption("This commit added and removed no files.")
        return
    st.code(_path_listing(commit), language="diff", wrap_lines=True)
    st.caption(
        f"The commit's {plural(adds, 'add action')} and {plural(removes, 'remove action')}, "
        "as written in the log:"
    )
    tabs = st.tabs(
        [f"add actions ({adds:,})", f"remove actions ({removes:,})"]
        + ([f"Change data ({len(cdc_files):,})"] if cdc_files else [])
    )
    for tab, kind, total in ((tabs[0], FileKind.ADD, adds), (tabs[1], FileKind.REMOVE, removes)):
        with tab:
            if not total:
                st.caption(f"No {kind} actions.")
                continue
            paged_table(
                f"version_files_{kind}",
                total,
                partial(commit_file_page, commit, kind, names=_names(ctx, commit)),
                files_frame,
                column_config=FILE_COLUMNS,
            )
    if cdc_files:
        with tabs[2]:
            _cdc_table(cdc_files)


def _cdc_table(cdc_files: Sequence[AddCDCFile]) -> None:
    frame = pd.DataFrame(
        [
            {
                "path": c.path,
                "partition": partition_text(c.partition_values),
                "size": c.size,
                "dataChange": c.data_change,
            }
            for c in cdc_files
        ]
    )
    rows_table(frame, FILE_COLUMNS)


_ROWS_HELP = (
    "Rows this commit inserted, deleted and updated, as Delta's operationMetrics define them "
    "(an updated row is in neither of the first two), from those metrics or else the files' "
    "stats and deletion vectors; ? where the log cannot know. The Timeline, the Diff page and "
    "`history` show the same figures."
)
_FILES_HELP = (
    "As Delta's operationMetrics count them (numAddedFiles, numRemovedFiles): a file given a "
    "deletion vector is neither added nor removed. The add and remove actions are listed below."
)


@st.cache_resource(max_entries=64, show_spinner=False)
def _cached_rows(key: tuple[Any, ...], _log: DeltaLog, version: int) -> RowChange:
    return commit_rows(_log, version)


def _row_change(ctx: PageContext, commit: Commit) -> RowChange:
    key = (ctx.log.table_root, ctx.log.generation, commit.version)
    return _cached_rows(key, ctx.log, commit.version)


def _path_listing(commit: Commit) -> str:
    """``+ path`` / ``- path`` lines, as text that can be read, searched and copied."""
    lines = []
    for sign, kind in (("+", FileKind.ADD), ("-", FileKind.REMOVE)):
        page = commit_file_page(commit, kind, 0, _LISTED_PATHS)
        for record in page.records:
            dv = record["deletionVector"]
            lines.append(
                f"{sign} {record['path']}"
                + (
                    f"   (deletion vector: {plural(dv['cardinality'], 'row')} deleted)"
                    if dv
                    else ""
                )
            )
        if page.total > _LISTED_PATHS:
            lines.append(f"{sign} … and {page.total - _LISTED_PATHS:,} more (see the table below)")
    return "\n".join(lines)


# ---- metadata, protocol, schema -----------------------------------------------------------------


def _metadata_changes(ctx: PageContext, commit: Commit) -> None:
    change = commit_metadata_change(ctx.log, commit)
    if change is None:
        return
    st.markdown("##### Metadata, protocol and schema changes")
    if change.before_unknown:
        st.info(
            f"{change.before_unknown}, so everything this commit sets is shown as new.",
            icon=":material/info:",
        )
    if change.diff is None:
        st.warning(
            "The table's metadata or protocol at this version cannot be determined, so the "
            "change cannot be shown; the raw JSON below has the actions.",
            icon=":material/warning:",
        )
        return
    if change.creates:
        st.caption(
            "This commit creates the table (there is no earlier version to compare with): "
            "everything below is new."
        )
    if change.diff.is_empty:
        st.caption("This commit rewrote the metaData/protocol without changing anything in them.")
        return
    _render_diff(change.diff, creating=change.creates)


def _render_diff(diff: MetadataDiff, *, creating: bool) -> None:
    rows = metadata_rows(diff)

    def of(kind: RowKind) -> list[MetadataRow]:
        return [r for r in rows if r.kind is kind]

    sections = [
        (title, frame)
        for title, frame in (
            ("Columns added", _columns_frame(of(RowKind.COLUMN_ADDED))),
            ("Columns removed", _columns_frame(of(RowKind.COLUMN_REMOVED))),
            (
                "Columns changed",
                pd.DataFrame(
                    [
                        {"column": r.name, "change": "; ".join(r.changes)}
                        for r in of(RowKind.COLUMN_CHANGED)
                    ]
                ),
            ),
            ("Table", _changes_frame(of(RowKind.TABLE), creating)),
            ("Properties", _changes_frame(of(RowKind.PROPERTY), creating)),
            ("Protocol", _changes_frame(of(RowKind.PROTOCOL), creating)),
        )
        if not frame.empty
    ]
    cols = st.columns(2)
    for i, (title, frame) in enumerate(sections):
        with cols[i % 2]:
            st.markdown(f"**{title}**")
            st.table(frame, hide_index=True)


def _changes_frame(changes: Sequence[MetadataRow], creating: bool) -> pd.DataFrame:
    if creating:  # nothing came before: a "before" column would only say "(not set)"
        return pd.DataFrame([{"key": c.name, "value": _value_text(c.after)} for c in changes])
    return pd.DataFrame(
        [
            {"key": c.name, "before": _value_text(c.before), "after": _value_text(c.after)}
            for c in changes
        ]
    )


def _columns_frame(rows: Sequence[MetadataRow]) -> pd.DataFrame:
    columns = [r.column for r in rows if r.column is not None]
    if not columns:
        return pd.DataFrame()
    frame_rows = [
        {"column": c.name, "type": c.type, "nullable": "yes" if c.nullable else "NOT NULL"}
        for c in columns
    ]
    for row, c in zip(frame_rows, columns, strict=False):
        if c.physical_path != c.path:
            row["physical name"] = ".".join(c.physical_path)
    return pd.DataFrame(frame_rows).fillna("")


def _value_text(value: Any) -> str:
    return setting_text(value)


# ---- commitInfo and other actions -----------------------------------------------------------------


def _other_actions(commit: Commit) -> None:
    rows = []
    for action in commit.parsed:  # every action but add/remove (kept as columns when many)
        if isinstance(action, Txn):
            rows.append(
                {"action": "txn", "detail": f"appId {action.app_id} → version {action.version}"}
            )
        elif isinstance(action, DomainMetadata):
            state = "removed" if action.removed else action.configuration[:200]
            rows.append({"action": "domainMetadata", "detail": f"{action.domain}: {state}"})
        elif isinstance(action, UnknownAction):
            rows.append({"action": action.name, "detail": "not interpreted by Delta Inspector"})
    if rows:
        st.markdown("##### Other actions")
        st.table(pd.DataFrame(rows), hide_index=True)


def _raw_json(ctx: PageContext, commit: Commit) -> None:
    count = commit_action_count(commit)
    title = f"Raw commit JSON · {commit.file.name} · {count:,} actions, {format_bytes(commit.file.size)}"
    with st.expander(title, icon=":material/data_object:"):
        lines = commit_head(ctx.log, commit.version, _RAW_ACTIONS)
        if count > len(lines):
            st.caption(f"The first {len(lines):,} of {count:,} actions; download the file for all.")
        st.code("\n".join(_pretty(line) for line in lines), language="json")
        version = commit.version
        st.download_button(
            "Download the commit file",
            lambda: ctx.log.commit_text(version),  # read when clicked, not on every run
            file_name=commit.file.name,
            mime="application/json",
            icon=":material/download:",
        )


def _pretty(line: str) -> str:
    try:
        return json.dumps(json.loads(line), indent=2, ensure_ascii=False)
    except ValueError:
        return line  # a truncated line is shown as written; the problems above say why
