"""The Timeline's reading of a long history: the versions a window needs, read on demand,
and the progress of the reading in the background.

The first screen draws the newest page (``ui.history_load``; a short one on an object
store, drawn again when a window's worth has been read). Moving the chart's window
to older versions, or selecting an older version, reads the pages it needs first; the
rest is read in the background while a progress bar says how far it has got, and the
page is drawn again once, when all is read (the filters and the retention band need the
whole history).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from inspector.table.history_entry import HistoryEntry
from ui.history_load import HistoryLoad
from ui.pages.timeline_frame import WINDOW

POLL_S = 0.25  # how often the progress bar looks again (the page is drawn again after it)


def read_for_window(load: HistoryLoad, selected: int, back: int | None) -> None:
    """Read the pages the window needs: ``back`` windows from the newest, or (None) the
    window that holds the selected version."""
    if load.done:
        return
    if back is None:
        if load.entries and load.entries[0].version <= selected:
            return
    elif len(load.entries) >= (back + 1) * WINDOW:
        return
    with st.spinner("Reading older versions…"):
        if back is None:
            load.read_down_to(selected)
        else:
            load.read_count((back + 1) * WINDOW)


def show_progress(
    load: HistoryLoad, then: Callable[[tuple[HistoryEntry, ...]], object] | None = None
) -> None:
    """A progress bar while older versions are read in the background (started here), which
    draws the page again when a window's worth has been read (a short first page, on an
    object store) and once they all are; ``then`` is run in the background with the whole
    history once it is read (:meth:`HistoryLoad.start_background`)."""
    if load.done:
        return
    load.start_background(then)
    st.fragment(run_every=POLL_S)(_progress)(load, len(load.entries))


def _progress(load: HistoryLoad, drawn: int) -> None:
    if load.done or drawn < WINDOW <= len(load.entries):
        # The whole page: once a window is full, and once every version is read (the
        # filters and the retention band need them all).
        st.rerun()
    read, total = load.progress()
    of = f"{total:,}" if total is not None else "all (listing the log)"
    st.progress(
        read / total if total else 0.0,
        text=f"Reading the history, newest first: {read:,} of {of} versions read. Older "
        "windows are read when you move to them; the filters and the "
        "retention band come when every version is read.",
    )
