"""The Preview page: a version's rows, by version or by timestamp, read by Spark.

The schema and file counts come from the log at once; Spark starts only when the
user asks for rows. The read runs on a worker thread in its own Spark job group:
the page polls it, showing each stage, and any interaction (the Cancel button, or
another widget) interrupts the poll, which cancels the job group.
"""

from __future__ import annotations

import time
from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.delta.text import format_moment
from inspector.present.values import table_rows
from inspector.rows.preview import Preview, PreviewJob
from inspector.table.timetravel import parse_timestamp, version_at_timestamp
from ui.common import (
    csv_download,
    escape_markdown,
    format_bytes,
    format_count,
    format_ms,
    metric_row,
    render_error,
    select_version,
    spark_caption,
    work_button,
)
from ui.context import PageContext
from ui.page_state import PreviewChoice, initial_index, linked, mirror
from ui.pages import preview_answers
from ui.state import keep, kept

_RESULT = "_preview_result"  # Kept: the Preview of the last finished preview
_BY, _TIMESTAMP, _WHERE = "preview_by", "preview_timestamp", "preview_where"
_JOB = "_preview_job"  # the running PreviewJob, so a rerun can cancel it


def render(ctx: PageContext) -> None:
    """The Preview page: pick a version or a timestamp, see its schema, then its rows."""
    st.subheader("Preview", anchor=False)
    _adopt_link(ctx)
    version = _choose_version(ctx)
    if version is None:
        _mirror(version)
        return
    snapshot = ctx.log.snapshot(version)
    cols = metric_row()
    cols.metric("Version", version)
    cols.metric("Files", format_count(snapshot.num_files))
    cols.metric("Size", format_bytes(snapshot.size_in_bytes))
    cols.metric("Records (from stats)", format_count(snapshot.num_records))
    with st.expander(f"Schema at version {version} ({len(snapshot.schema.fields)} columns)"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "column": f.name,
                        "type": f.type.simple_string(),
                        "nullable": f.nullable,
                        "partition": f.name in snapshot.partition_columns,
                    }
                    for f in snapshot.schema.fields
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    where = st.text_input(
        "Filter (optional SQL WHERE expression, evaluated by Spark)",
        key=_WHERE,
        placeholder="amount > 100 AND region = 'EU'",
    )
    _mirror(version)
    preview_answers.explain_panel(ctx, version, where.strip())
    request = (
        ctx.log.table_root,
        ctx.log.generation,
        version,
        where.strip(),
        ctx.settings.preview_rows,
    )
    run = work_button(
        "Show rows",
        key="preview_run",
        type="primary",
        icon=":material/table_view:",
        help=f"Starts Spark (if needed), counts every row and shows the first "
        f"{ctx.settings.preview_rows}.",
    )
    cancel_clicked = st.session_state.get("preview_cancel", False)
    _cancel_leftover(cancel_clicked)
    if run:
        _run(ctx, request, version, where)
    result = kept(_RESULT, request, Preview)
    if result is not None:
        _show(result, ctx)
    else:
        preview_answers.linked_blame_panel(ctx, version)
        if not run:
            spark_caption()


def _adopt_link(ctx: PageContext) -> None:
    """Show what a link (or a reload) names: a version or a timestamp, and a filter."""
    choice = PreviewChoice.from_link(linked())
    state = st.session_state
    if choice.timestamp:
        state[_BY], state[_TIMESTAMP] = "Timestamp", choice.timestamp
    elif choice.version is not None and choice.version in ctx.versions:
        state[_BY], state[f"preview_version_{ctx.version}"] = "Version", choice.version
    if choice.filter:
        state[_WHERE] = choice.filter


def _mirror(version: int | None) -> None:
    """The choice on screen, in the URL: a copied address reopens this preview."""
    state = st.session_state
    by_time = state.get(_BY) == "Timestamp"
    choice = PreviewChoice(
        version=None if by_time else version,
        timestamp=str(state.get(_TIMESTAMP) or "").strip() or None if by_time else None,
        filter=str(state.get(_WHERE) or "").strip(),
    )
    mirror(choice.params())


def _choose_version(ctx: PageContext) -> int | None:
    by = st.radio("Choose by", ["Version", "Timestamp"], horizontal=True, key=_BY)
    if by == "Version":
        versions = list(ctx.versions) or [ctx.version]
        # Keyed by the sidebar's version, so picking one there resets this picker.
        key = f"preview_version_{ctx.version}"
        return st.selectbox(
            "Version",
            versions,
            # A link's value is in the session state: then no default too (Streamlit warns).
            index=initial_index(key, versions.index(ctx.version)),
            key=key,
            help="Defaults to the version selected in the sidebar.",
        )
    typed = st.text_input(
        "Timestamp (UTC unless you give a zone)",
        key=_TIMESTAMP,
        placeholder="2024-10-08 05:42:52.123 UTC  ·  2024-10-08  ·  2024-10-08T07:42:52+02:00",
    )
    if not typed.strip():
        st.caption(
            "Type a time; the table's version at that moment is previewed (Delta's rule: "
            "the latest version committed at or before it)."
        )
        return None
    try:
        moment = parse_timestamp(typed)
        version = version_at_timestamp(ctx.log, moment, ctx.settings)
    except InspectorError as exc:
        render_error(exc)
        return None
    if version != ctx.version:  # the sidebar follows the version the timestamp resolved to
        select_version(version)
    entry = ctx.entry(version)
    committed = f", committed {format_ms(entry.timestamps.history)}" if entry else ""
    st.caption(f"{format_moment(moment)} → **version {version}**{committed}.")
    return version


def _cancel_leftover(cancel_clicked: bool) -> None:
    """A job still running from an interrupted run is cancelled (its result would be stale)."""
    job: PreviewJob | None = st.session_state.pop(_JOB, None)
    if job is not None and not job.done():
        job.cancel()
    if cancel_clicked and job is not None:
        st.info("Preview cancelled; Spark's jobs for it were stopped.", icon=":material/cancel:")


def _run(ctx: PageContext, request: tuple[Any, ...], version: int, where: str) -> None:
    job = PreviewJob(ctx.log, version, settings=ctx.settings, where=where or None)
    st.session_state[_JOB] = job
    cancel_slot = st.empty()
    cancel_slot.button("Cancel", key="preview_cancel", icon=":material/cancel:")
    failure: InspectorError | None = None
    started = time.monotonic()
    with st.status(job.stage, expanded=False) as box:
        try:
            while not job.wait(0.3):
                # The elapsed time moves, so a cold Spark start never looks stuck (no promise
                # of how long: that depends on the machine, docs/performance.md measures it);
                # also where Streamlit stops us if the user clicks.
                box.update(label=f"{job.stage} · {time.monotonic() - started:.0f} s")
        finally:
            if not job.done():
                job.cancel()
        cancel_slot.empty()
        preview: Preview | None = None
        try:
            preview = job.result()
        except InspectorError as exc:
            box.update(label="Preview failed", state="error")
            failure = exc
        finally:
            st.session_state.pop(_JOB, None)
    if failure is not None:  # shown open, next to the controls, not inside the collapsed box
        render_error(failure)
        return
    if preview is None:
        box.update(label="Cancelled", state="error")
        return
    took = time.monotonic() - started
    box.update(
        label=f"Read version {version}: {preview.num_rows:,} rows in {took:.1f} s", state="complete"
    )
    keep(_RESULT, request, preview)


def _show(preview: Preview, ctx: PageContext) -> None:
    for warning in preview.warnings:
        st.warning(escape_markdown(warning), icon=":material/warning:")
    cols = metric_row()
    cols.metric(
        "Rows",
        format_count(preview.num_rows),
        help="Exact: Spark counted every row" + (" matching the filter." if preview.where else "."),
    )
    cols.metric("Shown", format_count(len(preview.rows)))
    cols.metric("Files read", format_count(preview.files_read))
    cols.metric("Bytes read", format_bytes(preview.bytes_read))
    frame = _frame(preview)
    selected = preview_answers.row_table(frame)
    csv_download(
        "Download these rows (CSV)",
        frame,
        file_name=f"version-{preview.version}-preview.csv",
        key="preview_csv",
    )
    chosen = (
        preview.rows[selected] if selected is not None and selected < len(preview.rows) else None
    )
    preview_answers.blame_panel(ctx, preview.version, chosen)
    spark_caption("Timestamps in UTC. ")


def _frame(preview: Preview) -> pd.DataFrame:
    """The rows as a table, every value written as ``present.values`` writes it."""
    names = [c.name for c in preview.columns]
    return pd.DataFrame(table_rows(preview.rows, names), columns=names, dtype=object)
