"""Table names in catalogs (``uc://CATALOG.SCHEMA.TABLE``, ``glue://DATABASE.TABLE``), resolved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from inspector.delta.errors import InvalidInput


class CatalogKind(StrEnum):
    """The catalogs a table name can be looked up in (the URI scheme)."""

    UNITY = "uc"
    GLUE = "glue"


#: How many dot-separated parts a full name has in each catalog.
_PARTS = {
    CatalogKind.UNITY: ("catalog", "schema", "table"),
    CatalogKind.GLUE: ("database", "table"),
}


@dataclass(frozen=True, kw_only=True)
class CatalogName:
    """A table's full name in one catalog: its ``parts`` are (catalog, schema, table) in Unity
    Catalog, (database, table) in Glue."""

    kind: CatalogKind
    parts: tuple[str, ...]

    @property
    def full_name(self) -> str:
        """The name without the scheme (``main.sales.orders``)."""
        return ".".join(self.parts)

    @property
    def uri(self) -> str:
        """The name as a user types it (``uc://main.sales.orders``)."""
        return f"{self.kind}://{self.full_name}"

    def __str__(self) -> str:
        return self.uri


def parse_catalog_name(text: str) -> CatalogName | None:
    """The catalog name in what a user typed, or None when it is a path or a storage URI.

    Raises:
        InvalidInput: If it has a catalog scheme but not the right number of name parts.
    """
    scheme, sep, rest = text.strip().partition("://")
    if not sep or scheme.lower() not in {k.value for k in CatalogKind}:
        return None
    kind = CatalogKind(scheme.lower())
    parts = tuple(p.strip() for p in rest.strip("/").split("."))
    expected = _PARTS[kind]
    if len(parts) != len(expected) or not all(parts):
        shape = ".".join(p.upper() for p in expected)
        raise InvalidInput(
            f"'{text.strip()}' is not a {kind.value}:// table name.",
            f"Write it as {kind.value}://{shape}.",
        )
    return CatalogName(kind=kind, parts=parts)


#: The format of a table this tool opens (catalogs list others; they are refused).
DELTA = "delta"


@dataclass(frozen=True, kw_only=True)
class CatalogTable:
    """One table as a catalog lists it: its full name as typed (``uc://main.sales.orders``),
    its format in lower case, and its location ("" when none)."""

    name: str
    format: str
    location: str


@dataclass(frozen=True, kw_only=True)
class ResolvedTable:
    """A table as the front ends open it: its catalog name (``uc://main.sales.orders``; None
    for a path), its storage location (a path or an object store URI), and the storage options
    (delta-rs names) the catalog gave to reach it: vended temporary credentials, or those the
    catalog was reached with (never shown: no ``repr``)."""

    name: str | None
    location: str
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)
