"""Opening tables for the app: one cached log per table, its history, the demo table, recent tables.

A table opened for reading, and its :class:`~inspector.log.deltalog.DeltaLog`, are shared
by every session of the app (the log is thread-safe) and refreshed on each rerun; a
refresh reads only new commits. Nothing that may write is cached here: a restore's commit
asks the catalog for ``READ_WRITE`` itself (:func:`inspector.table.for_commit`).
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping

import streamlit as st

from inspector import table as inspector_table
from inspector.catalog import parse_catalog_name
from inspector.connection import redact_text
from inspector.delta.paths import log_dir
from inspector.delta.text import format_time
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import listing_stamp
from inspector.settings import Settings
from inspector.storage import parse_location
from inspector.table import Table
from inspector.table.history_entry import HistoryEntry
from ui.history_load import HistoryLoad

_demo_lock = threading.Lock()
_STAMP_FROM = 1000  # commit files from which a refresh is skipped while the log folder is unchanged
_SETTLED_NS = 2_000_000_000  # a folder changed this recently is always re-listed (clock ticks)
_stamps: dict[int, tuple[int, int]] = {}  # id of a cached log -> the folder stamp it last listed
_fresh: set[int] = set()  # ids of logs opened (listed) and not yet handed out


@st.cache_resource(max_entries=32, show_spinner=False)
def _cached_by_location(root: str, settings_digest: str, _settings: Settings) -> Table:
    # Keyed by the table root, so every spelling of a location shares one log. Failures are
    # not cached by Streamlit, so a table created later opens on the next try. The
    # settings (secrets) are not hashed into the key; their digest is.
    return _opened(inspector_table.open_table(root, _settings))


@st.cache_resource(max_entries=32, ttl=300, show_spinner="Looking the table up in its catalog…")
def _cached_by_name(text: str, settings_digest: str, _settings: Settings) -> Table:
    # Five minutes: a rerun does not ask the catalog again, and vended credentials (an hour,
    # typically) are asked for again long before they expire. Only reads are cached: they
    # ask for READ; a commit asks for READ_WRITE itself, at commit time, never cached.
    return _opened(inspector_table.open_table(text, _settings))


def _opened(table: Table) -> Table:
    """Note a log just opened (and so just listed): the call that opened it does not list again."""
    _fresh.add(id(table.log))
    return table


def _digest(settings: Settings) -> str:
    """A cache key for settings that hold secrets: their hash, never the secrets.

    The storage options' values are hashed explicitly: their repr masks secret values.
    """
    material = (dataclasses.astuple(settings), sorted(settings.storage_options.items()))
    return hashlib.sha256(repr(material).encode()).hexdigest()


def open_table(text: str, settings: Settings) -> Table:
    """The handle of a table for reading, opened once per process; its log refreshed on every call.

    :func:`inspector.table.open_table` opens it; a catalog name (``uc://``, ``glue://``) is
    looked up with credentials for ``READ``, again after five minutes.

    Args:
        text: A local path, ``file://`` URI, object store URI or catalog name, as typed.
        settings: Whose storage options (environment and sidebar, parsed) reach the store,
            and whose catalog settings reach a catalog.

    Returns:
        The handle, its log refreshed.

    Raises:
        NotADeltaTable: If the location holds no readable Delta log.
        StorageUnavailable: If the store cannot be reached or refuses access.
        InvalidInput: If a storage option is unknown or a catalog name malformed.
        TableNotInCatalog: If the catalog has no such table (or catalog, or schema).
        CatalogUnavailable: If the catalog cannot be reached or is not configured.
        CatalogAccessDenied: If the catalog refuses the token or credentials.
    """
    text, digest = text.strip(), _digest(settings)
    if parse_catalog_name(text) is not None:
        table = _cached_by_name(text, digest, settings)
    else:
        table = _cached_by_location(parse_location(text).root, digest, settings)
    just_listed = id(table.log) in _fresh  # opened by this very call: listed a moment ago
    _fresh.discard(id(table.log))
    _refresh(table.log, just_listed=just_listed)
    return table


def _refresh(log: DeltaLog, *, just_listed: bool = False) -> None:
    """Refresh the log, unless it was just listed (opened), or is large, local and its folder
    has not changed since.

    Listing 20,000 commit files takes 0.1-1 s, on every rerun of the app; a stat of
    ``_delta_log`` says whether any file was added or removed (Delta never rewrites a
    log file in place). Small logs and object stores are always re-listed.
    """
    stamp = listing_stamp(log.storage)
    if stamp is not None and time.time_ns() - stamp[0] < _SETTLED_NS:
        stamp = None
    if stamp is not None and _stamps.get(id(log)) == stamp:
        return
    if not just_listed:
        log.refresh()
    if stamp is not None and log.latest_version >= _STAMP_FROM:  # a long log, not listed whole
        _stamps[id(log)] = stamp
    else:
        _stamps.pop(id(log), None)


@st.cache_resource(max_entries=16, show_spinner="Reading the newest versions…")
def _cached_load(
    table_root: str, generation: int, tolerance: int, _log: DeltaLog, _settings: Settings
) -> HistoryLoad:
    return HistoryLoad(_log, _settings)


def history_load(log: DeltaLog, settings: Settings) -> HistoryLoad:
    """The table's history, read newest first, once per log generation (until a new commit
    lands): its newest page at once, the rest when asked for (:mod:`ui.history_load`)."""
    return _cached_load(
        log.table_root, log.generation, settings.timestamp_tolerance_seconds, log, settings
    )


def history(log: DeltaLog, settings: Settings) -> tuple[HistoryEntry, ...]:
    """The table's whole history (read once per log generation), oldest first."""
    load = history_load(log, settings)
    if load.done:
        return load.whole()
    with st.spinner("Reading the history…"):
        return load.whole()


@st.cache_resource(max_entries=16, show_spinner=False)
def version_labels(
    table_root: str,
    generation: int,
    tolerance: int,
    read: int,
    shown: tuple[int, ...],
    _load: HistoryLoad,
) -> Mapping[int, str]:
    """Labels for the versions the picker ``shown``, ``v12 · MERGE · 2024-10-08 05:42:52.123
    UTC``, per history generation and versions read (the one display form of a time: typed
    into Preview, it finds that version); versions not read yet have none."""
    entries = _load.entries  # oldest first, ascending versions
    labels = {}
    for v in shown:
        at = bisect.bisect_left(entries, v, key=lambda e: e.version)
        if at < len(entries) and (e := entries[at]).version == v:
            operation = e.operation if _load.has_commit(v) else "checkpoint only"
            labels[v] = f"v{v} · {operation} · {format_time(e.timestamps.history)}"
    return labels


def ensure_demo_table(path: str) -> str:
    """The demo table's location, writing the table first when it is not there yet.

    Args:
        path: ``settings.demo_path``.

    Returns:
        The table root.
    """
    from inspector.demo import demo_root, write_demo_table

    root = demo_root(path)
    if os.path.isdir(log_dir(root)):
        return root
    with _demo_lock:  # two sessions starting together must not both write it
        if not os.path.isdir(log_dir(root)):
            write_demo_table(root)
    return root


def recent_tables(settings: Settings) -> list[str]:
    """Recently opened tables (catalog names or roots), newest first (empty when the file is absent or unreadable)."""
    try:
        with open(os.path.expanduser(settings.recent_tables_file), encoding="utf-8") as fh:
            entries = json.load(fh)
    except (OSError, ValueError):
        return []
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, str)][: settings.recent_tables_max]


def remember_table(settings: Settings, table_root: str) -> None:
    """Put a table at the top of the recently-opened list (at most ``recent_tables_max``).

    A table opened by name is kept by its name (``uc://...``); never a token. Only the
    name or location is stored, without a URL query string (where a SAS token would
    sit) and redacted: never a storage option or a secret.
    """
    table_root = redact_text(table_root.split("?", 1)[0])
    entries = [table_root] + [e for e in recent_tables(settings) if e != table_root]
    target = os.path.expanduser(settings.recent_tables_file)
    try:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(entries[: settings.recent_tables_max], fh, indent=1)
        os.replace(tmp, target)  # atomic: concurrent sessions never read half a file
    except OSError:
        # The list is a convenience; a read-only home must not stop anyone inspecting a table.
        pass
