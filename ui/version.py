"""The Version page: what one commit did.

Its files added and removed, its metadata/protocol/schema changes as a diff
against the previous version, its commitInfo, its problems and its raw JSON.
Everything comes from the log; Spark is never started here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.actions import (
    AddFile,
    DomainMetadata,
    Metadata,
    Protocol,
    RemoveFile,
    Txn,
    UnknownAction,
)
from inspector.delta.errors import InspectorError, VersionNotFound
from inspector.delta.schema import Column
from inspector.delta.text import partition_label
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.present.values import EMPTY, setting_text, text_value
from inspector.views.history import HistoryEntry
from inspector.views.metadiff import MetadataDiff, ValueChange, diff_metadata
from inspector.views.overview import state_source
from inspector.views.rowcounts import RowChange, commit_rows
from inspector.views.versions import file_action_record
from ui.common import escape_markdown, format_bytes, format_count, format_ms, metric_row
from ui.context import PageContext

_LISTED_PATHS = 50  # paths listed as text per kind; the tables below list every file
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
    _files(ctx, commit)
    _metadata_changes(ctx, commit)
    _commit_info(commit)
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
            f"**{format_ms(stamps.history, with_ms=True)}** (history timestamp, from the {source}) · "
            f"commitInfo: {format_ms(stamps.commit_info, with_ms=True)} · in-commit: "
            f"{format_ms(stamps.in_commit, with_ms=True)} · file modified: "
            f"{format_ms(stamps.file_modification, with_ms=True)}"
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


@st.cache_resource(max_entries=32, show_spinner=False)
def _file_frames(key: tuple, _commit: Commit) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    # Commit files are immutable: a frame built once per (table, version, file) stays right.
    added = _files_frame([file_action_record(a) for a in _commit.adds])
    removed = _files_frame([file_action_record(r) for r in _commit.removes])
    cdc = pd.DataFrame(
        [
            {
                "path": c.path,
                "partition": _partition_text(c.partition_values),
                "size": c.size,
                "dataChange": c.data_change,
            }
            for c in _commit.cdc_files
        ]
    )
    return added, removed, cdc


def _files_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    rows = [
        {
            "path": r["path"],
            "partition": _partition_text(r["partitionValues"]),
            "size": r["size"],
            "numRecords": r["numRecords"],
            "minValues": _json_text(r.get("minValues")),
            "maxValues": _json_text(r.get("maxValues")),
            "nullCount": _json_text(r.get("nullCount")),
            "dataChange": r["dataChange"],
            "deletionVector": _dv_text(r["deletionVector"]),
            "time": r.get("modificationTime", r.get("deletionTimestamp")),
            "tags": _json_text(r["tags"]),
        }
        for r in records
    ]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["time"] = pd.to_datetime(frame["time"], unit="ms", utc=True)
    # Columns no file has (no stats, no deletion vectors, ...) are noise.
    keep = [
        c for c in frame.columns if c in ("path", "size", "dataChange") or frame[c].notna().any()
    ]
    return frame[keep]


def _partition_text(values: Mapping[str, Any] | None) -> str | None:
    if not values:
        return None
    return partition_label(values)


def _json_text(value: Any) -> str | None:
    return json.dumps(value, separators=(", ", ": "), default=str) if value else None


def _dv_text(dv: Mapping[str, Any] | None) -> str | None:
    if not dv:
        return None
    where = {"i": "inline", "u": "file", "p": "absolute path"}.get(
        dv["storageType"], dv["storageType"]
    )
    return (
        f"{_plural(dv['cardinality'], 'row')} deleted ({where}, {format_bytes(dv['sizeInBytes'])})"
    )


_FILE_COLUMNS = {
    "path": st.column_config.TextColumn("path", width="large"),
    "size": st.column_config.NumberColumn("size (bytes)", format="%d"),
    "numRecords": st.column_config.NumberColumn("numRecords", format="%d"),
    "time": st.column_config.DatetimeColumn(
        "modified / deleted (UTC)", format="YYYY-MM-DD HH:mm:ss"
    ),
}


def _files(ctx: PageContext, commit: Commit) -> None:
    key = (ctx.log.table_root, commit.version, commit.file.size, commit.file.modification_time)
    added, removed, cdc = _file_frames(key, commit)
    adds, removes = commit.adds, commit.removes
    st.markdown("##### Files")
    row = metric_row()
    row.metric("Files added", format_count(len(adds)), help="add actions in this commit")
    row.metric(
        "Files removed",
        format_count(len(removes)),
        help="remove actions in this commit",
    )
    row.metric(
        "Bytes added / removed",
        f"{format_bytes(sum(a.size for a in adds))} / {format_bytes(sum(r.size or 0 for r in removes))}",
    )
    rows = _row_change(ctx, commit)
    row.metric("Rows added / removed", rows.label(), help=_ROWS_HELP)
    st.caption(f"Rows {escape_markdown(rows.note)}.")
    if not adds and not removes and not commit.cdc_files:
        st.caption("This commit added and removed no files.")
        return
    st.code(_path_listing(adds, removes), language="diff", wrap_lines=True)
    tabs = st.tabs(
        [f"Added ({len(adds):,})", f"Removed ({len(removes):,})"]
        + ([f"Change data ({len(commit.cdc_files):,})"] if commit.cdc_files else [])
    )
    for tab, frame, what in zip(
        tabs, (added, removed, cdc), ("added", "removed", "change-data"), strict=False
    ):
        with tab:
            if frame.empty:
                st.caption(f"No {what} files.")
            else:
                st.dataframe(
                    frame,
                    hide_index=True,
                    column_config=_FILE_COLUMNS,
                    placeholder=EMPTY,
                    height=min(38 + 35 * len(frame), 420),
                )


_ROWS_HELP = (
    "Rows this commit added and removed (an updated row counts once on each side), from the "
    "writer's operationMetrics or else the files' stats and deletion vectors. ~ marks an "
    "estimate. The Diff page shows the same figures for this version and the one before."
)


@st.cache_resource(max_entries=64, show_spinner=False)
def _cached_rows(key: tuple, _log: DeltaLog, version: int) -> RowChange:
    return commit_rows(_log, version)


def _row_change(ctx: PageContext, commit: Commit) -> RowChange:
    key = (ctx.log.table_root, ctx.log.generation, commit.version)
    return _cached_rows(key, ctx.log, commit.version)


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _path_listing(adds: Sequence[AddFile], removes: Sequence[RemoveFile]) -> str:
    """``+ path`` / ``- path`` lines, as text that can be read, searched and copied."""
    lines = []
    for sign, actions in (("+", adds), ("-", removes)):
        for action in actions[:_LISTED_PATHS]:
            dv = action.deletion_vector
            lines.append(
                f"{sign} {action.path}"
                + (f"   (deletion vector: {_plural(dv.cardinality, 'row')} deleted)" if dv else "")
            )
        if len(actions) > _LISTED_PATHS:
            lines.append(
                f"{sign} … and {len(actions) - _LISTED_PATHS:,} more (see the table below)"
            )
    return "\n".join(lines)


# ---- metadata, protocol, schema -----------------------------------------------------------------


def _metadata_changes(ctx: PageContext, commit: Commit) -> None:
    if commit.metadata is None and commit.protocol is None:
        return
    st.markdown("##### Metadata, protocol and schema changes")
    before, note = _state_before(ctx, commit.version)
    after = _state_after(ctx, commit, before)
    if note:
        st.info(note, icon=":material/info:")
    if after is None:
        st.warning(
            "The table's metadata or protocol at this version cannot be determined, so the "
            "change cannot be shown; the raw JSON below has the actions.",
            icon=":material/warning:",
        )
        return
    diff = diff_metadata(before, after)
    if before is None:
        st.caption(
            "This commit creates the table (there is no earlier version to compare with): "
            "everything below is new."
        )
    if diff.is_empty:
        st.caption("This commit rewrote the metaData/protocol without changing anything in them.")
        return
    _render_diff(diff, creating=before is None)


def _state_before(
    ctx: PageContext, version: int
) -> tuple[tuple[Metadata, Protocol] | None, str | None]:
    if version == 0:
        return None, None
    try:
        prev = ctx.log.snapshot(version - 1)
    except InspectorError as exc:
        return None, (
            f"Version {version - 1} cannot be reconstructed ({exc.message}), so "
            "everything this commit sets is shown as new."
        )
    return (prev.metadata, prev.protocol), None


def _state_after(
    ctx: PageContext, commit: Commit, before: tuple[Metadata, Protocol] | None
) -> tuple[Metadata, Protocol] | None:
    meta = commit.metadata or (before[0] if before else None)
    proto = commit.protocol or (before[1] if before else None)
    if meta is None or proto is None:
        try:
            snap = ctx.log.snapshot(commit.version)
        except InspectorError:
            return None
        meta, proto = meta or snap.metadata, proto or snap.protocol
    return meta, proto


def _render_diff(diff: MetadataDiff, *, creating: bool) -> None:
    sections = [
        (title, frame)
        for title, frame in (
            ("Columns added", _columns_frame(diff.columns_added)),
            ("Columns removed", _columns_frame(diff.columns_removed)),
            (
                "Columns changed",
                pd.DataFrame(
                    [
                        {"column": c.name, "change": "; ".join(c.changes)}
                        for c in diff.columns_changed
                    ]
                ),
            ),
            ("Table", _changes_frame(diff.table, creating)),
            ("Properties", _changes_frame(diff.properties, creating)),
            ("Protocol", _changes_frame(diff.protocol, creating)),
        )
        if not frame.empty
    ]
    cols = st.columns(2)
    for i, (title, frame) in enumerate(sections):
        with cols[i % 2]:
            st.markdown(f"**{title}**")
            st.table(frame, hide_index=True)


def _changes_frame(changes: Sequence[ValueChange], creating: bool) -> pd.DataFrame:
    if creating:  # nothing came before: a "before" column would only say "(not set)"
        return pd.DataFrame([{"key": c.key, "value": _value_text(c.after)} for c in changes])
    return pd.DataFrame(
        [
            {"key": c.key, "before": _value_text(c.before), "after": _value_text(c.after)}
            for c in changes
        ]
    )


def _columns_frame(columns: Sequence[Column]) -> pd.DataFrame:
    if not columns:
        return pd.DataFrame()
    rows = [
        {"column": c.name, "type": c.type, "nullable": "yes" if c.nullable else "NOT NULL"}
        for c in columns
    ]
    for row, c in zip(rows, columns, strict=False):
        if c.physical_path != c.path:
            row["physical name"] = ".".join(c.physical_path)
    return pd.DataFrame(rows).fillna("")


def _value_text(value: Any) -> str:
    return setting_text(value)


# ---- commitInfo and other actions -----------------------------------------------------------------


def _commit_info(commit: Commit) -> None:
    info = commit.commit_info
    st.markdown("##### commitInfo")
    if not info.raw:
        st.caption("This commit has no commitInfo action (the writer did not record one).")
        return
    provenance = {
        k: v for k, v in info.raw.items() if k not in ("operationParameters", "operationMetrics")
    }
    cols = st.columns(3)
    for col, title, values in (
        (cols[0], "Provenance", provenance),
        (cols[1], "operationParameters", info.operation_parameters),
        (cols[2], "operationMetrics", info.operation_metrics),
    ):
        with col:
            st.markdown(f"**{title}**")
            if values:
                st.table(
                    pd.DataFrame(
                        [{"field": k, "value": _field_text(k, v)} for k, v in values.items()]
                    ),
                    hide_index=True,
                )
            else:
                st.caption("none recorded")


def _field_text(key: str, value: Any) -> str:
    if key in ("timestamp", "inCommitTimestamp") and isinstance(value, int):
        return f"{value} ({format_ms(value, with_ms=True)})"
    return text_value(value)


def _other_actions(commit: Commit) -> None:
    rows = []
    for action in commit.actions:
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
    text = ctx.log.commit_text(commit.version)
    lines = [line for line in text.splitlines() if line.strip()]
    title = f"Raw commit JSON · {commit.file.name} · {len(lines):,} actions, {format_bytes(commit.file.size)}"
    with st.expander(title, icon=":material/data_object:"):
        if len(lines) > _RAW_ACTIONS:
            st.caption(
                f"The first {_RAW_ACTIONS} of {len(lines):,} actions; download the file for all."
            )
        st.code("\n".join(_pretty(line) for line in lines[:_RAW_ACTIONS]), language="json")
        st.download_button(
            "Download the commit file",
            text,
            file_name=commit.file.name,
            mime="application/json",
            icon=":material/download:",
        )


def _pretty(line: str) -> str:
    try:
        return json.dumps(json.loads(line), indent=2, ensure_ascii=False)
    except ValueError:
        return line  # a truncated line is shown as written; the problems above say why
