"""Catalogs: a table's name (``uc://CATALOG.SCHEMA.TABLE``, ``glue://DATABASE.TABLE``) resolved.

:func:`resolve_table` is the one entry point the CLI and the app call, at the edge, on
whatever the user typed: a catalog name becomes a :class:`ResolvedTable` (its storage
location, the storage options to reach it, its format); a path passes through unchanged.
:mod:`inspector.catalog.browse` lists catalogs, schemas and tables for the app's browser.
Unity Catalog is reached over its REST API (``unity``), AWS Glue with boto3 (``glue``).

May import ``inspector.settings``, ``inspector.storage`` and ``inspector.delta``.
"""

from inspector.catalog.names import CatalogKind, CatalogName, ResolvedTable, parse_catalog_name
from inspector.catalog.resolve import resolve_table

__all__ = [
    "CatalogKind",
    "CatalogName",
    "ResolvedTable",
    "parse_catalog_name",
    "resolve_table",
]
