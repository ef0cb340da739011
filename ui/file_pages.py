"""A file table shown a page at a time: the total, a page picker and one page of rows.

A commit of 300,000 files sends 500 rows to the browser, not 300,000: the backend
(:mod:`inspector.diff.filepages`) builds the page's records from an Arrow slice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.text import TIME_FORMAT, partition_label
from inspector.diff.filepages import PAGE_SIZE, FilePage
from inspector.present.values import text_value
from ui.common import format_bytes, page_picker, rows_table

FILE_COLUMNS = {
    "path": st.column_config.TextColumn("path", width="large"),
    "size": st.column_config.NumberColumn("size (bytes)", format="%d"),
    "numRecords": st.column_config.NumberColumn("numRecords", format="%d"),
    "time": st.column_config.DatetimeColumn("modified / deleted", format=TIME_FORMAT),
}


def paged_table(
    key: str,
    total: int,
    fetch: Callable[[int], FilePage],
    to_frame: Callable[[FilePage], pd.DataFrame],
    *,
    column_config: Mapping[str, Any] | None = None,
) -> None:
    """A page picker (when there is more than one page) and that page's rows.

    Args:
        key: The table's widget key; the page picker's is ``<key>_page``.
        total: Files in the whole list.
        fetch: Builds a page (from 0) of the list.
        to_frame: The rows to show for a page.
        column_config: Streamlit column configuration for the table.
    """
    if total > PAGE_SIZE:
        left, right = st.columns([1, 3], vertical_alignment="bottom")
        shown = fetch(page_picker(f"{key}_page", total, PAGE_SIZE, where=left) // PAGE_SIZE)
        right.caption(
            f"Files {shown.first + 1:,} to {shown.first + len(shown.records):,} of {total:,}, "
            f"{PAGE_SIZE:,} per page."
        )
    else:
        shown = fetch(0)
    frame = to_frame(shown)
    rows_table(frame, column_config, key=key)


def files_frame(page: FilePage) -> pd.DataFrame:
    """A page of add/remove records as the Version page's table (empty columns dropped)."""
    rows = [
        {
            "path": r["path"],
            "partition": partition_text(r["partitionValues"]),
            "size": r["size"],
            "numRecords": r["numRecords"],
            "dataChange": r["dataChange"],
            "deletionVector": _dv_text(r["deletionVector"]),
            "time": r.get("modificationTime", r.get("deletionTimestamp")),
            "tags": _json_text(r["tags"]),
            **stat_columns(r),
        }
        for r in page.records
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


_STATS = (("minValues", "min"), ("maxValues", "max"), ("nullCount", "nulls"))


def stat_columns(record: Mapping[str, Any]) -> dict[str, Any]:
    """A file's statistics as columns, ``min id``, ``max id``, ``nulls id`` (nested fields
    dotted: ``min address.city``), never as JSON in a cell; values as every page writes them."""
    out: dict[str, Any] = {}
    for section, label in _STATS:
        for name, value in _flat(record.get(section) or {}):
            out[f"{label} {name}"] = value if label == "nulls" else text_value(value)
    return out


def _flat(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name, value in values.items():
        if isinstance(value, Mapping):
            out += _flat(value, f"{prefix}{name}.")
        else:
            out.append((f"{prefix}{name}", value))
    return out


def partition_text(values: Mapping[str, Any] | None) -> str | None:
    """``region=EU/day=1`` for a file's partition values, None when unpartitioned."""
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
        f"{plural(dv['cardinality'], 'row')} deleted ({where}, {format_bytes(dv['sizeInBytes'])})"
    )


def plural(count: int, noun: str) -> str:
    """``1 row``, ``2 rows``, ``1,000 rows``."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")
