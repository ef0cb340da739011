"""The sidebar: which table and which version, mirrored in the URL.

``/PAGE?table=PATH&version=V`` (or ``table=uc://CATALOG.SCHEMA.TABLE``, a name in a
catalog: see docs/catalogs.md) opens that table at that version (Streamlit's navigation,
``ui.routing``, shows the page), and every change the user makes is written back, so the
address bar is always a link to what is on screen. The link is read once, when the
session starts; after that the session state is the truth (``ui.routing`` says why).
"""

from __future__ import annotations

import dataclasses

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from inspector.connection import StorageOptions, parse_pairs
from inspector.delta.errors import InspectorError, VersionNotFound
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.rows.session import warm_up
from inspector.settings import Settings
from inspector.table import Table
from inspector.table.versions import parse_version
from ui import tables
from ui.catalog_browser import render_catalog_browser
from ui.common import (
    PENDING_VERSION,
    SECRETS_IN_USE_KEY,
    STORAGE_OPTIONS_KEY,
    TABLE_KEY,
    VERSION_KEY,
    escape_markdown,
    render_error,
    render_unexpected,
    spark_caption,
)
from ui.context import PageContext
from ui.history_load import HistoryLoad
from ui.launch import LaunchOptions
from ui.registry import Page
from ui.routing import link_params, write_url

_RESET_VERSION = "_reset_version"
#: The versions the sidebar's picker lists at once, around the picked one (with the oldest and
#: the newest): a log of 100,000 commits would send 100,000 labels to the browser every rerun.
PICKER_WINDOW = 1_000
_RECENT_KEY = "_recent_pick"
_REMEMBERED = "_remembered_table"
_ADOPTED = "_link_table_adopted"


def run_settings(launch: LaunchOptions) -> Settings:
    """Settings from the environment, with ``--operator`` switching operator mode on.

    Raises:
        InvalidInput: If a ``DELTA_INSPECTOR_*`` variable has a malformed value.
    """
    settings = Settings.from_env()
    return dataclasses.replace(settings, operator_mode=True) if launch.operator else settings


def render_sidebar(
    settings: Settings, launch: LaunchOptions, notices: DeltaGenerator
) -> PageContext | None:
    """Draw the sidebar and work out the table and version the page shows.

    Args:
        settings: The settings of this run.
        launch: Command-line options (the table to open when the URL names none).
        notices: A main-area container for errors about the table or the URL.

    Returns:
        The page context, or None when no table could be opened (the reason is already
        shown in ``notices``).
    """
    _adopt_link(launch)
    with st.sidebar:
        st.markdown("### :material/change_history: Delta Inspector")
        location = _table_picker(settings)
        render_catalog_browser(settings, on_pick=_pick_table)
        typed = _storage_options_text(location)
        opened = _open(location, settings, typed, notices)
        if opened is None:
            write_url({"table": location or None, "version": None})
            return None
        table, settings = opened  # the settings now hold the sidebar's storage options too
        log = table.log
        load = tables.history_load(log, settings)
        version = _version_picker(log, settings, load, notices)
    shown = table.name or log.table_root  # a table opened by name keeps its name
    write_url({"table": shown, "version": str(version)})
    if st.session_state.get(_REMEMBERED) != shown:
        tables.remember_table(settings, shown)
        st.session_state[_REMEMBERED] = shown
    return PageContext(table, settings, version, load)


def _adopt_link(launch: LaunchOptions) -> None:
    """Adopt the table and version of the link that opened this session (once)."""
    state, link = st.session_state, link_params()
    if _ADOPTED in state:
        return
    state[_ADOPTED] = True
    table = link.get("table", launch.table or "")
    if table != state.get(TABLE_KEY):
        state[TABLE_KEY] = table
        state[_RESET_VERSION] = True
    if "version" in link:
        state[PENDING_VERSION] = link["version"]


def _table_picker(settings: Settings) -> str:
    current = st.session_state.get(_REMEMBERED)
    recent = [t for t in tables.recent_tables(settings) if t != current]
    st.text_input(
        "Table",
        key=TABLE_KEY,
        on_change=_reset_version,
        persist_state="session",  # a page switch can end a run before the sidebar is drawn
        placeholder="/path/to/table, s3://bucket/table or uc://catalog.schema.table "
        "(empty: the demo table)",
        help="The folder that contains `_delta_log`, a `file://` URI, an object store URI "
        "(`s3://`, `s3a://`, `abfss://`, `az://`, `gs://`), or a name in a catalog: "
        "`uc://CATALOG.SCHEMA.TABLE` (Unity Catalog) or `glue://DATABASE.TABLE` (AWS Glue). "
        "Press Enter to open.",
    )
    if recent:
        st.selectbox(
            "Recently opened",
            recent,
            index=None,
            key=_RECENT_KEY,
            on_change=_pick_recent,
            placeholder=f"{len(recent)} recent table(s)…",
            label_visibility="collapsed",
        )
    return (st.session_state.get(TABLE_KEY) or "").strip()


def _storage_options_text(location: str) -> str:
    """The storage options typed in the sidebar (object store locations only), unparsed.

    The typed options live in this session's memory only: never in the URL, the recent
    tables or a file; errors mask their secret values (:func:`ui.common.render_error`).
    """
    if "://" not in location or location.startswith("file://"):
        return ""
    with st.expander("Storage options", icon=":material/key:"):
        return st.text_area(
            "KEY=VALUE per line (delta-rs names)",
            key=STORAGE_OPTIONS_KEY,
            persist_state="session",
            placeholder="AWS_ENDPOINT_URL=http://127.0.0.1:9000\nAWS_REGION=us-east-1",
            help="Added to the AWS_*/AZURE_*/GOOGLE_* environment variables and "
            "DELTA_INSPECTOR_STORAGE_OPTIONS. Kept in this session only; secrets are never shown "
            "in errors and never stored. See docs/object-storage.md.",
        )


def _reset_version() -> None:
    st.session_state[_RESET_VERSION] = True


def _pick_table(name: str) -> None:
    """Open a table picked in the catalog browser (by its name)."""
    st.session_state[TABLE_KEY] = name
    st.session_state[_RESET_VERSION] = True


def _pick_recent() -> None:
    picked = st.session_state.get(_RECENT_KEY)
    if picked:
        st.session_state[TABLE_KEY] = picked
        st.session_state[_RESET_VERSION] = True
    st.session_state[_RECENT_KEY] = None


def _open(
    location: str, settings: Settings, typed: str, notices: DeltaGenerator
) -> tuple[Table, Settings] | None:
    """The table's handle (a catalog name looked up), and the settings with the sidebar's
    storage options merged over the environment's (parsed here, once; a commit opens the
    table again with them); None when it cannot be opened (the reason is shown in
    ``notices``)."""
    st.session_state[SECRETS_IN_USE_KEY] = settings.secrets()  # masked from now on
    try:
        typed_options = parse_pairs(StorageOptions, typed)
        settings = dataclasses.replace(
            settings, storage_options=settings.storage_options.merged(typed_options)
        )
        st.session_state[SECRETS_IN_USE_KEY] = settings.secrets()
        if not location:
            with notices, st.spinner("Writing the demo table (first start only)…"):
                location = tables.ensure_demo_table(settings.demo_path)
            st.caption("No table given: showing the built-in demo table.")
        return tables.open_table(location, settings), settings
    except InspectorError as exc:
        with notices:
            render_error(exc)
    except Exception as exc:  # an unforeseen failure must not take the sidebar down with it
        with notices:
            render_unexpected(exc, "opening the table")
    return None


def _versions(load: HistoryLoad, wanted: object) -> tuple[int, ...]:
    """The versions the picker offers: those listed so far, or all when the version wanted
    (a link's, or the one picked before) is not among them."""
    versions = load.known_versions()
    if wanted is None or wanted in versions:
        return versions
    if isinstance(wanted, str) and wanted.isdigit() and int(wanted) in versions:
        return versions
    return load.all_versions()


def _version_picker(
    log: DeltaLog, settings: Settings, load: HistoryLoad, notices: DeltaGenerator
) -> int:
    state = st.session_state
    pending = state.pop(PENDING_VERSION, None)
    versions = _versions(load, pending if pending is not None else state.get(VERSION_KEY))
    if state.pop(_RESET_VERSION, False) or state.get(VERSION_KEY) not in versions:
        state[VERSION_KEY] = versions[-1]
    if pending is not None:
        try:
            state[VERSION_KEY] = _valid_version(pending, log, versions)
        except InspectorError as exc:
            with notices:
                render_error(exc)
    listed = "in the log" if load.progress()[1] is not None else "listed so far"
    shown = _window(versions, versions.index(state[VERSION_KEY]))
    labels = tables.version_labels(
        log.table_root,
        log.generation,
        settings.timestamp_tolerance_seconds,
        len(load.entries),
        shown,
        load,
    )
    nearest = f" (the {len(shown):,} nearest listed here)" if len(shown) < len(versions) else ""
    version = st.selectbox(
        f"Version ({len(versions):,} {listed})",
        shown[::-1],
        key=VERSION_KEY,
        persist_state="session",
        format_func=lambda v: labels.get(v, f"v{v}"),
        help=f"Pick a version{nearest}, step with Older/Newer, or click a mark on the timeline "
        "or a row of the history table.",
    )
    at = versions.index(version)
    older, newer = st.columns(2)
    older.button(
        "Older",
        icon=":material/chevron_left:",
        width="stretch",
        disabled=at == 0,
        on_click=_step,
        args=(versions, at - 1),
        key="_older",
    )
    newer.button(
        "Newer",
        icon=":material/chevron_right:",
        width="stretch",
        disabled=at == len(versions) - 1,
        on_click=_step,
        args=(versions, at + 1),
        key="_newer",
    )
    return version


def _window(versions: tuple[int, ...], at: int) -> tuple[int, ...]:
    """The picker's options: the :data:`PICKER_WINDOW` versions around ``versions[at]``,
    and the oldest and the newest version (all of them for a shorter log)."""
    if len(versions) <= PICKER_WINDOW:
        return versions
    start = min(max(at - PICKER_WINDOW // 2, 0), len(versions) - PICKER_WINDOW)
    near = versions[start : start + PICKER_WINDOW]
    return tuple(sorted({versions[0], *near, versions[-1]}))


def _step(versions: tuple[int, ...], index: int) -> None:
    st.session_state[VERSION_KEY] = versions[index]


def _valid_version(text: str | int, log: DeltaLog, versions: tuple[int, ...]) -> int:
    version = parse_version(text, log)
    if version not in versions:
        gaps = len(versions) != versions[-1] - versions[0] + 1
        error = VersionNotFound.not_in_log(version, versions[0], versions[-1], gaps=gaps)
        error.hint = (
            f"Showing version {versions[-1]} (the latest) instead; pick another in the sidebar."
        )
        raise error
    return version


def start_warm_up(settings: Settings, page: Page) -> None:
    """Start Spark in the background when the page will read rows and ``spark_warmup`` is on."""
    if settings.spark_warmup and page.needs_rows:
        warm_up(settings)


def render_spark_status() -> None:
    """Spark's state at the foot of the sidebar, drawn after the page (so after its Spark work).

    While Spark starts, the caption checks again every second and, once Spark is up (or
    failed), reruns the app once so every part of the page says so.
    """
    with st.sidebar:
        st.divider()
        spark_caption(rerun_when_started=True)


def render_header(ctx: PageContext) -> None:
    """The table's location and version range above every page, and its table-level problems."""
    log = ctx.log
    parts = [p for p in log.table_root.split("/") if p]
    title = ctx.table_name or " / ".join(parts[-2:]) or log.table_root
    st.markdown(f"#### {escape_markdown(title)}")
    versions, listed = ctx.load.known_versions(), ctx.load.progress()[1] is not None
    newest = versions[-1]
    entry = ctx.entry(newest) if ctx.load.has_commit(newest) else None
    where = f"resolved to `{log.table_root}`" if ctx.table_name else f"`{log.table_root}`"
    count = f"{len(log.listing.commits):,} commit files, versions" if listed else "versions"
    oldest = f"{versions[0]}" if listed else f"{versions[0]} (or older: listing the log)"
    st.caption(
        f"{where} · {count} {oldest} to {newest} · latest: v{newest} "
        + (entry.operation if entry else "(checkpoint only)")
    )
    for problem in table_problems(log, whole=listed):
        st.warning(escape_markdown(problem), icon=":material/warning:")
