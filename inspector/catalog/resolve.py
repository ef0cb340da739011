"""Resolving what a user typed to a table location: the one entry point of the catalogs."""

from __future__ import annotations

from inspector.catalog.names import CatalogKind, ResolvedTable, parse_catalog_name
from inspector.settings import Settings


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
