"""The sidebar's catalog browser: a catalog, then a schema, then a table, with search.

Unity Catalog (when ``unity_catalog_url`` is set) and AWS Glue are offered; each table
shows its name, format and location, and opening one opens it by name (``uc://...``).
The listings come from :mod:`inspector.catalog.browse`; this module only draws them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import streamlit as st

from inspector.catalog import CatalogKind
from inspector.catalog.browse import list_catalogs, list_schemas, list_tables
from inspector.catalog.names import CatalogTable
from inspector.delta.errors import InspectorError
from inspector.settings import Settings
from ui.common import escape_markdown, render_error

_ON, _KIND, _CATALOG, _SCHEMA, _SEARCH = (
    "_browse_on",
    "_browse_kind",
    "_browse_catalog",
    "_browse_schema",
    "_browse_search",
)
_LABELS = {CatalogKind.UNITY: "Unity Catalog", CatalogKind.GLUE: "AWS Glue"}
_SHOWN = 50  # tables listed at once; the search narrows the rest


def render_catalog_browser(settings: Settings, on_pick: Callable[[str], None]) -> None:
    """Draw the browser (when switched on); ``on_pick(name)`` opens the table picked."""
    if not st.toggle(
        "Browse a catalog",
        key=_ON,
        help="Find a table by name in Unity Catalog or AWS Glue (see docs/catalogs.md).",
    ):
        return
    offered = [k for k in CatalogKind if k is not CatalogKind.UNITY or settings.unity_catalog_url]
    label = st.selectbox(
        "Catalog service", [_LABELS[k] for k in offered], key=_KIND, on_change=_clear_catalog
    )
    kind = next((k for k in offered if _LABELS[k] == label), CatalogKind.GLUE)
    try:
        catalog = st.selectbox(
            "Catalog",
            _catalogs(kind, settings),
            index=None,
            key=_CATALOG,
            on_change=_clear_schema,
            placeholder="Pick a catalog…",
        )
        if catalog is None:
            return
        schema = st.selectbox(
            "Database" if kind is CatalogKind.GLUE else "Schema",
            _schemas(kind, settings, catalog),
            index=None,
            key=_SCHEMA,
            placeholder="Pick a schema…",
        )
        if schema is None:
            return
        found = _tables(kind, settings, catalog, schema)
    except InspectorError as exc:
        render_error(exc)
        return
    _table_list(found, on_pick)


def _table_list(found: list[CatalogTable], on_pick: Callable[[str], None]) -> None:
    search = st.text_input("Search tables", key=_SEARCH, placeholder="part of a name")
    shown = [t for t in found if search.strip().lower() in t.name.lower()]
    st.caption(
        f"{len(shown)} of {len(found)} table(s)"
        + (f"; first {_SHOWN}" if len(shown) > _SHOWN else "")
    )
    for table in shown[:_SHOWN]:
        delta = table.format == "delta"
        st.button(
            table.name.rsplit(".", 1)[-1],
            key=f"_browse_open_{table.name}",
            on_click=on_pick,
            args=(table.name,),
            disabled=not delta,
            help=f"Open {table.name}" if delta else "Not a Delta table: it cannot be opened here.",
            icon=":material/table:",
        )
        where = f"`{table.location}`" if table.location else "no location"
        st.caption(f"{escape_markdown(table.name)} · {table.format} · {where}")


def _clear_catalog() -> None:
    st.session_state[_CATALOG] = None
    _clear_schema()


def _clear_schema() -> None:
    st.session_state[_SCHEMA] = None


def _digest(settings: Settings) -> str:
    """A cache key for the settings that reach a catalog (hashed: they hold secrets)."""
    reach = (settings.unity_catalog_url, settings.unity_catalog_token, settings.glue_endpoint)
    return hashlib.sha256(repr((*reach, settings.storage_options)).encode()).hexdigest()


def _catalogs(kind: CatalogKind, settings: Settings) -> list[str]:
    return _cached_catalogs(kind, _digest(settings), settings)


def _schemas(kind: CatalogKind, settings: Settings, catalog: str) -> list[str]:
    return _cached_schemas(kind, catalog, _digest(settings), settings)


def _tables(kind: CatalogKind, settings: Settings, catalog: str, schema: str) -> list[CatalogTable]:
    return _cached_tables(kind, catalog, schema, _digest(settings), settings)


# A minute: browsing does not ask the catalog on every rerun, and new tables appear soon.
@st.cache_data(ttl=60, show_spinner="Listing the catalogs…")
def _cached_catalogs(kind: CatalogKind, digest: str, _settings: Settings) -> list[str]:
    return list_catalogs(kind, _settings)


@st.cache_data(ttl=60, show_spinner="Listing the schemas…")
def _cached_schemas(kind: CatalogKind, catalog: str, digest: str, _settings: Settings) -> list[str]:
    return list_schemas(kind, _settings, catalog)


@st.cache_data(ttl=60, show_spinner="Listing the tables…")
def _cached_tables(
    kind: CatalogKind, catalog: str, schema: str, digest: str, _settings: Settings
) -> list[CatalogTable]:
    return list_tables(kind, _settings, catalog, schema)
