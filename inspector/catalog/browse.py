"""The catalogs by kind: a name resolved (:func:`resolve_table`), and browsing for the app.

Glue has two levels, so its one catalog is called ``glue`` and its databases are the
schemas. Listings raise the errors :func:`resolve_table` raises.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.catalog.names import CatalogKind, ResolvedTable, parse_catalog_name
from inspector.settings import Settings

#: The one catalog Glue has (the account's Data Catalog in the region).
GLUE_CATALOG = "glue"


@dataclass(frozen=True, kw_only=True)
class CatalogTable:
    """One table as a catalog lists it: its full name as typed (``uc://main.sales.orders``),
    its format in lower case, and its location ("" when none)."""

    name: str
    format: str
    location: str


def list_catalogs(kind: CatalogKind, settings: Settings) -> list[str]:
    """The catalogs' names, sorted."""
    if kind is CatalogKind.GLUE:
        return [GLUE_CATALOG]
    from inspector.catalog.unity import UnityCatalog

    return sorted(str(c.get("name")) for c in UnityCatalog(settings).catalogs())


def list_schemas(kind: CatalogKind, settings: Settings, catalog: str) -> list[str]:
    """A catalog's schemas (Glue: its databases), sorted."""
    if kind is CatalogKind.GLUE:
        from inspector.catalog.glue import Glue

        return sorted(Glue(settings).databases())
    from inspector.catalog.unity import UnityCatalog

    return sorted(str(s.get("name")) for s in UnityCatalog(settings).schemas(catalog))


def list_tables(
    kind: CatalogKind, settings: Settings, catalog: str, schema: str
) -> list[CatalogTable]:
    """A schema's tables with their format and location, sorted by name."""
    if kind is CatalogKind.GLUE:
        from inspector.catalog.glue import Glue, glue_location, table_format

        tables = [
            CatalogTable(
                name=f"glue://{schema}.{t['Name']}",
                format=table_format(t),
                location=glue_location(t),
            )
            for t in Glue(settings).tables(schema)
        ]
    else:
        from inspector.catalog.unity import UnityCatalog

        tables = [
            CatalogTable(
                name=f"uc://{catalog}.{schema}.{t.get('name')}",
                format=str(t.get("data_source_format") or "unknown").lower(),
                location=str(t.get("storage_location") or ""),
            )
            for t in UnityCatalog(settings).tables(catalog, schema)
        ]
    return sorted(tables, key=lambda t: t.name)


def resolve_table(text: str, settings: Settings, *, write: bool = False) -> ResolvedTable:
    """What a user typed, resolved: a catalog name is looked up; a location passes through.

    Args:
        text: A path, a storage URI, ``uc://CATALOG.SCHEMA.TABLE`` or ``glue://DATABASE.TABLE``.
        settings: The catalogs' settings and the storage options (credentials) in force.
        write: Ask for credentials that may write (a restore), not only read.

    Raises:
        InvalidInput: If a catalog name is malformed.
        TableNotInCatalog: If the catalog has no such table, schema or catalog.
        NotADeltaTable: If the catalog's table is not a Delta table.
        CatalogUnavailable: If the catalog cannot be reached or is not configured.
        CatalogAccessDenied: If the catalog refuses the token or credentials.
    """
    name = parse_catalog_name(text)
    if name is None:
        return ResolvedTable(name=None, location=text.strip())
    if name.kind is CatalogKind.UNITY:
        from inspector.catalog.unity import resolve_unity

        return resolve_unity(name, settings, write=write)
    from inspector.catalog.glue import resolve_glue

    return resolve_glue(name, settings)
