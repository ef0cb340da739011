"""The catalogs by kind: a name resolved (:func:`resolve_table`), and browsing for the app.

Glue has two levels, so its one catalog is called ``glue`` and its databases are the
schemas. Listings raise the errors :func:`resolve_table` raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.catalog.names import CatalogKind, CatalogTable, ResolvedTable, parse_catalog_name
from inspector.settings import Settings

if TYPE_CHECKING:
    from inspector.catalog.glue import Glue
    from inspector.catalog.unity import UnityCatalog

#: The one catalog Glue has (the account's Data Catalog in the region).
GLUE_CATALOG = "glue"


def _client(kind: CatalogKind, settings: Settings) -> Glue | UnityCatalog:
    # Each client is imported only when its catalog is asked (boto3 for Glue: start-up time).
    if kind is CatalogKind.GLUE:
        from inspector.catalog.glue import Glue

        return Glue(settings)
    from inspector.catalog.unity import UnityCatalog

    return UnityCatalog(settings)


def list_catalogs(kind: CatalogKind, settings: Settings) -> list[str]:
    """The catalogs' names, sorted."""
    if kind is CatalogKind.GLUE:
        return [GLUE_CATALOG]
    from inspector.catalog.unity import UnityCatalog

    return sorted(UnityCatalog(settings).catalogs())


def list_schemas(kind: CatalogKind, settings: Settings, catalog: str) -> list[str]:
    """A catalog's schemas (Glue: its databases), sorted."""
    return sorted(_client(kind, settings).schemas(catalog))


def list_tables(
    kind: CatalogKind, settings: Settings, catalog: str, schema: str
) -> list[CatalogTable]:
    """A schema's tables with their format and location, sorted by name."""
    return sorted(_client(kind, settings).tables(catalog, schema), key=lambda t: t.name)


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
    return _client(name.kind, settings).resolve(name, write=write)
