"""What every page shares: the one place errors are rendered, changing the selection, formatting.

The selection (table, version) lives in ``st.session_state`` under the keys below and
is mirrored in the URL (``/PAGE?table=...&version=...``, see ``ui.routing``) so that a
link reproduces what the user sees.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from inspector.connection import redact_text
from inspector.delta.errors import InspectorError
from inspector.delta.text import format_time
from inspector.present.values import EMPTY
from inspector.settings import Settings

TABLE_KEY = "table_input"
STORAGE_OPTIONS_KEY = "_storage_options_text"  # the sidebar's typed options (session only)
SECRETS_IN_USE_KEY = "_secrets_in_use"  # storage options (env + sidebar) and catalog token
VERSION_KEY = "version_select"
PENDING_VERSION = "_pending_version"
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]~$<>|#])")


def render_error(exc: InspectorError) -> None:
    """Show an error a user can act on: what is wrong and what to do next, no traceback.

    Args:
        exc: Any error of the inspector's hierarchy.
    """
    body = f"**{escape_markdown(_redact(exc.message))}**"
    if exc.hint:
        body += f"\n\n{escape_markdown(_redact(exc.hint))}"
    st.error(body, icon=":material/error:")


def _redact(text: str) -> str:
    """Text with secrets masked: the storage options in use and anything that looks secret."""
    secrets = st.session_state.get(SECRETS_IN_USE_KEY)
    if secrets is None:  # before the sidebar ran: the environment's secrets
        try:
            secrets = Settings.from_env().secrets()
        except InspectorError:
            secrets = {}
    return redact_text(text, secrets)


def render_unexpected(exc: BaseException, where: str) -> None:
    """Show a failure the inspector did not foresee, in one line and without a traceback.

    Args:
        exc: The exception.
        where: What was being done, e.g. ``the Version page``.
    """
    first_line = _redact((str(exc).strip().splitlines() or [""])[0])[:300]
    st.error(
        f"**Unexpected failure in {escape_markdown(where)}:** {type(exc).__name__}"
        f"{': ' + escape_markdown(first_line) if first_line else ''}\n\n"
        "This is a bug in Delta Inspector. Please report it with the table's `_delta_log` "
        "listing and this message; the other pages still work.",
        icon=":material/bug_report:",
    )


def escape_markdown(text: str) -> str:
    """Escape Markdown outside `code spans`, so paths like ``_delta_log`` render literally."""
    parts = str(text).split("`")
    # Even parts are outside backticks; an unmatched backtick leaves the rest escaped.
    if len(parts) % 2 == 0:
        parts = [str(text)]
    return "`".join(p if i % 2 else _MARKDOWN_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


def select_version(version: int) -> None:
    """Select a version for every page (sidebar, URL) and rerun the app.

    Safe to call from a widget callback or from a page's body; in the body it stops
    the current run, since the sidebar has already been drawn with the old version.

    Args:
        version: A version of the open table.
    """
    st.session_state[PENDING_VERSION] = int(version)
    st.rerun()


_WORKING = "_work_button_working"  # the key of the button whose work this run does


def work_button(label: str, *, key: str, where: Any = None, **kwargs: Any) -> bool:
    """A button for work that takes a while, which cannot be pressed twice for the same work.

    A press reruns the app at once with the button disabled, and that run does the work
    (True is returned to it); the button is enabled again from the next run. The state
    is cleared at the start of the working run, so an interrupted run never leaves the
    button disabled.

    Args:
        label: The button's label.
        key: Its widget key.
        where: A column or container to draw it in (default: the page).
        **kwargs: Passed to ``st.button`` (``type``, ``icon``, ``help``).

    Returns:
        True in the run that must do the work.
    """
    working = st.session_state.get(_WORKING) == key
    pressed = (where or st).button(label, key=key, disabled=working, **kwargs)
    if pressed and not working:
        st.session_state[_WORKING] = key
        st.rerun()
    if working:
        st.session_state.pop(_WORKING, None)
    return working


class MetricRow:
    """A row of metrics that wraps instead of cutting long values ("16.8 KB / 16.…").

    Each metric takes the width of its value, and one that does not fit moves to the
    next line: ``row = MetricRow(); row.metric("Files", "3")``.
    """

    def __init__(self) -> None:
        self._row = st.container(horizontal=True, gap="large")

    def metric(
        self,
        label: str,
        value: Any,
        delta: Any = None,
        *,
        caption: str | None = None,
        **kwargs: Any,
    ) -> None:
        """``st.metric`` in this row, as wide as its value.

        Args:
            label: The metric's label.
            value: The figure.
            delta: A change only (shown with an arrow); never a size or other figure.
            caption: A figure that is not a change (e.g. a size), as a caption under the value.
            **kwargs: Passed to ``st.metric``.
        """
        if caption is None:
            self._row.metric(label, value, delta, width="content", **kwargs)
            return
        cell = self._row.container(width="content", gap=None)
        cell.metric(label, value, delta, width="content", **kwargs)
        cell.caption(caption)


def metric_row() -> MetricRow:
    """A new :class:`MetricRow` at this point of the page."""
    return MetricRow()


def format_bytes(size: int | float | None) -> str:
    """A byte count for people: ``0 B``, ``751 B``, ``12.3 KB``, ``1.20 GB`` (powers of 1024)."""
    if size is None:
        return EMPTY
    value, unit = float(size), "B"
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(value) < 1024 or unit == "PB":
            break
        value /= 1024
    if unit == "B":
        return f"{int(value):,} B"
    return f"{value:.1f} {unit}" if abs(value) >= 10 else f"{value:.2f} {unit}"


def format_ms(ms: int | None) -> str:
    """Milliseconds since the epoch as ``2024-10-08 05:42:52.123 UTC`` (``–`` when unknown).

    The one display form of a time (:func:`inspector.delta.text.format_time`).
    """
    return format_time(ms) or EMPTY


def format_count(value: int | None) -> str:
    """A count with thousands separators, ``–`` when unknown."""
    return EMPTY if value is None else f"{value:,}"


def rows_table(
    frame: Any, column_config: Any = None, *, key: str | None = None, most: int = 420
) -> None:
    """``frame`` (a pandas DataFrame) as a table tall enough to show its rows without
    scrolling, up to ``most`` pixels (the header is 38 pixels, a row 35); nulls as EMPTY."""
    height = min(38 + 35 * len(frame), most)
    st.dataframe(
        frame,
        hide_index=True,
        column_config=column_config,
        placeholder=EMPTY,
        height=height,
        key=key,
    )


def page_picker(key: str, total: int, size: int, *, where: Any = None) -> int:
    """A picker of one page of ``total`` items, ``size`` to a page: ``Page (of N)``.

    A page kept from before that the list no longer has (another version, another answer)
    starts again at page 1.

    Args:
        key: The picker's widget key.
        total: Items in the whole list.
        size: Items on a page.
        where: A column or container to draw it in (default: the page).

    Returns:
        The index of the picked page's first item.
    """
    pages = max(1, -(-total // size))
    picked = st.session_state.get(key)
    if picked is not None and not 1 <= picked <= pages:
        st.session_state[key] = 1
    chosen = (where or st).number_input(
        f"Page (of {pages:,})", min_value=1, max_value=pages, step=1, key=key
    )
    return (int(chosen) - 1) * size


def csv_table(frame: Any, label: str, *, file_name: str, key: str) -> None:
    """``frame`` (a pandas DataFrame) as a table across the page, and its :func:`csv_download`
    button labelled ``label``."""
    st.dataframe(frame, hide_index=True, width="stretch", placeholder=EMPTY)
    csv_download(label, frame, file_name=file_name, key=key)


def csv_download(label: str, frame: Any, *, file_name: str, key: str) -> None:
    """A button that downloads ``frame`` (a pandas DataFrame) as CSV, without its index."""
    st.download_button(
        label,
        frame.to_csv(index=False).encode("utf-8"),
        file_name=file_name,
        mime="text/csv",
        icon=":material/download:",
        key=key,
    )


def on_spark(action: str) -> str:
    """A spinner's label for work on Spark: it says when Spark must start (or finish) first.

    The spinner shows its own elapsed time, so the wait is seen moving; the only figure a
    page gives about it is measured, not promised (``SparkStatus.describe``).

    Args:
        action: What the work does, as a sentence (``Comparing the rows…``).
    """
    from inspector.rows.session import spark_status

    status = spark_status()
    then = action[:1].lower() + action[1:]
    if status.state == "starting":
        return f"Spark is starting ({status.elapsed():.0f} s so far); then {then}"
    if status.state != "ready":
        return f"Starting Spark (its first start here takes longest), then {then}"
    return action


def spark_caption(prefix: str = "", *, rerun_when_started: bool = False) -> None:
    """Spark's state in one caption; while Spark starts, redrawn every second (the seconds
    so far move).

    Args:
        prefix: Text before the caption.
        rerun_when_started: Rerun the whole app once Spark is up (or failed), so every part
            of the page says so (the sidebar's caption, drawn after the page).
    """
    from inspector.rows.session import spark_status

    def draw() -> None:
        st.caption(f"{prefix}:material/bolt: {escape_markdown(spark_status().describe())}")

    def tick() -> None:
        if rerun_when_started and spark_status().state != "starting":
            st.rerun()  # the whole app, once: the caption is then drawn without polling
        draw()

    if spark_status().state == "starting":
        st.fragment(run_every=1.0)(tick)()
    else:
        draw()
