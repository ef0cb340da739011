"""The Overview page: the table at its latest version, like ``DESCRIBE DETAIL``."""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from inspector.present.text.log import verdict_text
from inspector.present.values import EMPTY
from inspector.table.compatibility import Compatibility, describe_compatibility
from inspector.table.overview import TableDetail, describe_detail
from ui.common import (
    escape_markdown,
    format_bytes,
    format_count,
    format_ms,
    metric_row,
    rows_table,
)
from ui.context import PageContext


@st.cache_resource(max_entries=16, show_spinner=False)
def _detail(key: tuple[Any, ...], _ctx: PageContext) -> TableDetail:
    return describe_detail(_ctx.log, _ctx.history)


@st.cache_resource(max_entries=16, show_spinner=False)
def _compatibility(key: tuple[Any, ...], _ctx: PageContext) -> Compatibility:
    return describe_compatibility(_ctx.log, _ctx.history)


def render(ctx: PageContext) -> None:
    """The Overview page (always the latest version, whatever version is selected)."""
    detail = _detail(ctx.cache_key, ctx)
    st.subheader(f"Overview at the latest version (v{detail.version})", anchor=False)
    cols = metric_row()
    cols.metric(
        "Files",
        format_count(detail.num_files),
        help="Live data files (add actions) at the latest version.",
    )
    cols.metric("Size", format_bytes(detail.size_in_bytes), help=f"{detail.size_in_bytes:,} bytes")
    cols.metric(
        "Records",
        format_count(detail.num_records),
        help="From the files' stats, minus rows deleted by deletion vectors; – when a file has no stats.",
    )
    cols.metric("Columns", format_count(sum(1 for c in detail.columns if len(c.path) == 1)))
    cols.metric(
        "Protocol",
        f"{detail.min_reader_version} / {detail.min_writer_version}",
        help="minReaderVersion / minWriterVersion",
    )
    left, right = st.columns([3, 2])
    with left:
        st.markdown("##### Detail")
        st.table(_detail_frame(detail), hide_index=True)
    with right:
        st.markdown("##### Properties")
        if detail.properties:
            st.table(
                pd.DataFrame(sorted(detail.properties.items()), columns=["property", "value"]),
                hide_index=True,
            )
        else:
            st.caption("No table properties are set.")
    st.markdown("##### Schema")
    rows_table(_schema_frame(detail), most=520)
    _render_compatibility(_compatibility(ctx.cache_key, ctx))


def _render_compatibility(compat: Compatibility) -> None:
    st.markdown("##### Engine compatibility")
    st.table(_compatibility_frame(compat), hide_index=True)
    st.caption(
        "From the protocol's versions and features and each engine's cited support data "
        "(the Engine compatibility page of the documentation); unknown means not checked, "
        "not unsupported."
    )
    for change in compat.changes:
        st.markdown(f"- {change.text[0].upper()}{change.text[1:]}")
    caveats = [
        (e.label, access, c)
        for e in compat.engines
        for access, v in (("reads", e.read), ("writes", e.write))
        for c in v.caveats
    ]
    if caveats:
        with st.expander(f"Caveats ({len(caveats)})", expanded=True):
            for label, access, caveat in caveats:
                st.markdown(f"- **{label}** {access} with a caveat: {escape_markdown(caveat)}")


def _compatibility_frame(compat: Compatibility) -> pd.DataFrame:
    cell = partial(verdict_text, caveats_below=True)
    rows = [(e.label, cell(e.read), cell(e.write), e.source) for e in compat.engines]
    return pd.DataFrame(rows, columns=["engine", "read", "write", "source"])


def _detail_frame(d: TableDetail) -> pd.DataFrame:
    checkpoints = d.checkpoint_versions
    rows = [
        ("format", d.format),
        ("id", d.id),
        ("name", d.name or EMPTY),
        ("description", d.description or EMPTY),
        ("location", d.location),
        ("createdAt (writer's clock)", format_ms(d.created_at)),
        ("lastModified (history timestamp)", format_ms(d.last_modified)),
        ("partitionColumns", ", ".join(d.partition_columns) or "(not partitioned)"),
        ("clusteringColumns", ", ".join(d.clustering_columns) or EMPTY),
        ("numFiles", f"{d.num_files:,}"),
        ("sizeInBytes", f"{d.size_in_bytes:,} ({format_bytes(d.size_in_bytes)})"),
        ("minReaderVersion", str(d.min_reader_version)),
        ("minWriterVersion", str(d.min_writer_version)),
        ("tableFeatures", ", ".join(d.table_features) or "– (legacy protocol versions)"),
        ("columnMapping", d.column_mapping_mode),
        (
            "log",
            f"versions {d.earliest_version} to {d.version} readable; {d.num_commits:,} commit files",
        ),
        ("checkpoints", _checkpoints_text(checkpoints or ())),
        ("state read from", d.replayed_from),
    ]
    return pd.DataFrame(rows, columns=["field", "value"])


def _checkpoints_text(versions: tuple[int, ...]) -> str:
    if not versions:
        return "none"
    shown = ", ".join(map(str, versions[-8:]))
    return f"{len(versions):,}, at version{'s' if len(versions) > 1 else ''} {'…, ' if len(versions) > 8 else ''}{shown}"


def _schema_frame(d: TableDetail) -> pd.DataFrame:
    mapped = d.column_mapping_mode != "none"
    rows = []
    for c in d.columns:
        row = {
            "column": c.name,
            "type": c.type,
            "nullable": c.nullable,
            "partition": len(c.path) == 1 and c.path[0] in d.partition_columns,
        }
        if mapped:
            row["physical name"] = ".".join(c.physical_path)
            row["id"] = c.column_id
        rows.append(row)
    return pd.DataFrame(rows)
