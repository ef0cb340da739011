"""Catalogs: a table's name (``uc://CATALOG.SCHEMA.TABLE``, ``glue://DATABASE.TABLE``) resolved.

:func:`resolve_table` (in ``browse``, which also lists catalogs, schemas and tables for the
app) is the one entry point the front ends call on what the user typed: a catalog name
becomes a :class:`ResolvedTable` (location, storage options); a path passes through. Unity
Catalog is reached over its REST API (``unity``), AWS Glue with boto3 (``glue``).

May import ``inspector.settings``, ``inspector.storage`` and ``inspector.delta``.
"""

from inspector.catalog.browse import resolve_table
from inspector.catalog.names import CatalogKind, parse_catalog_name

__all__ = ["CatalogKind", "parse_catalog_name", "resolve_table"]
