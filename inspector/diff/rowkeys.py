"""A row diff's records (computed on Spark by :mod:`inspector.rows.rowdiff`, presented
without it), and the key it matches rows on.

With a key, a row diff shows an update as one changed row (before → after) instead of
a removed and an added row. The table says which columns identify rows, most
trustworthy first: identity columns (``delta.identity.*`` column metadata), then a
column named like an id (``id``, ``*_id``, ``*Id``) that is NOT NULL or checked by a
CHECK constraint (``delta.constraints.*``), then such a column by its name alone. The
clustering and partition columns group rows but do not identify one; they are
suggested only when nothing else is, and then only to be completed with an id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.jsonvalue import camel_json
from inspector.delta.properties import CONSTRAINTS_PREFIX
from inspector.delta.schema import IDENTITY_START, PrimitiveType
from inspector.diff.metadiff import ValueChange
from inspector.log.snapshot import Snapshot
from inspector.table.overview import clustering_columns

Row = Mapping[str, Any]
_ID_NAME = re.compile(r"(?i:^id$|_id$)|[a-z0-9]Id$")  # id, order_id, ORDER_ID, orderId
_IDENTIFIER = re.compile(r"`((?:[^`]|``)+)`|([A-Za-z_][A-Za-z0-9_]*)")


class KeySource(StrEnum):
    """Why columns were suggested as a key, most trustworthy first."""

    IDENTITY = "identity"
    CONSTRAINED_ID = "constrained id"
    NAMED_ID = "named id"
    CLUSTERING = "clustering"
    PARTITION = "partition"
    NONE = "none"


@dataclass(frozen=True, kw_only=True)
class KeySuggestion:
    """The columns suggested as a row key, why, and whether they identify one row."""

    columns: tuple[str, ...]
    source: KeySource
    reason: str
    identifies_rows: bool

    def to_json(self) -> dict[str, Any]:
        return {**camel_json(self), "columns": list(self.columns), "source": self.source.value}


def suggest_key(snap: Snapshot) -> KeySuggestion:
    """The key a row diff of this version should match rows on, from its schema, constraints
    and clustering; ``identifies_rows`` is False for clustering or partition columns (they
    group many rows) and for no suggestion at all."""
    fields = [f for f in snap.schema.fields if isinstance(f.type, PrimitiveType)]
    if identity := tuple(f.name for f in fields if IDENTITY_START in f.metadata):
        return _found(identity, KeySource.IDENTITY, "identity column", True)
    ids = sorted(
        (f for f in fields if _ID_NAME.search(f.name)), key=lambda f: f.name.lower() != "id"
    )
    checked = _checked_names(snap.metadata.configuration)
    for f in ids:
        if not f.nullable or f.name.lower() in checked:
            why = "NOT NULL" if not f.nullable else "checked by a CHECK constraint"
            return _found((f.name,), KeySource.CONSTRAINED_ID, f"id column, {why}", True)
    if ids:
        return _found((ids[0].name,), KeySource.NAMED_ID, "column named like an id", True)
    top_level = {f.name for f in fields}  # clustering columns by logical name
    if clustering := tuple(n for n in clustering_columns(snap) if n in top_level):
        return _found(clustering, KeySource.CLUSTERING, "clustering column", False)
    if partitions := snap.metadata.partition_columns:
        return _found(partitions, KeySource.PARTITION, "partition column", False)
    return KeySuggestion(
        columns=(),
        source=KeySource.NONE,
        reason="No identity, id, clustering or partition column: pick the columns that "
        "identify a row, or compare whole rows.",
        identifies_rows=False,
    )


def default_key(snap: Snapshot) -> KeySuggestion | None:
    """The key a row diff matches rows on when none is asked for, in the CLI and the app
    alike: the suggestion when it identifies rows, else None (whole rows are compared)."""
    suggestion = suggest_key(snap)
    return suggestion if suggestion.identifies_rows else None


def _found(
    columns: tuple[str, ...], source: KeySource, what: str, identifies: bool
) -> KeySuggestion:
    names = ", ".join(columns)
    plural = "s" if len(columns) > 1 else ""
    reason = f"{names}: the table's {what}{plural}."
    if not identifies:
        reason += " It groups rows but does not identify one: add a column that does."
    return KeySuggestion(columns=columns, source=source, reason=reason, identifies_rows=identifies)


def _checked_names(configuration: Mapping[str, str]) -> set[str]:
    """Lower-cased identifiers named in the table's CHECK constraints."""
    names: set[str] = set()
    for key, expression in configuration.items():
        if key.lower().startswith(CONSTRAINTS_PREFIX):
            for quoted, bare in _IDENTIFIER.findall(expression or ""):
                names.add((quoted.replace("``", "`") or bare).lower())
    return names


@dataclass(frozen=True, kw_only=True)
class ChangedRow:
    """A key present on both sides with different values: only the columns that changed."""

    key: Row
    changes: tuple[ValueChange, ...]


@dataclass(frozen=True, kw_only=True)
class RowSamples:
    """One page of sample rows (the same page of each list)."""

    offset: int
    limit: int
    added: tuple[Row, ...] = ()
    removed: tuple[Row, ...] = ()
    changed: tuple[ChangedRow, ...] = ()


@dataclass(frozen=True, kw_only=True)
class RowDiff:
    """Rows only in ``to`` (added) and only in ``from`` (removed), counted as multisets.

    Without a key, ``added``/``removed`` count rows (duplicates count) and
    ``changed`` is None. With a key, they count keys added and removed, and
    ``changed`` counts keys on both sides whose other columns differ.
    """

    from_version: int
    to_version: int
    columns: tuple[str, ...]
    key: tuple[str, ...]
    added: int
    removed: int
    changed: int | None
    files_read: int
    bytes_read: int
    samples: RowSamples
