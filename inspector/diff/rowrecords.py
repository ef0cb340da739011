"""The records of a row diff (computed on Spark by :mod:`inspector.rows.rowdiff`).

Kept apart from the Spark computation so that presenting a row diff (``present``,
the app) never imports the Spark layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.diff.metadiff import ValueChange

Row = Mapping[str, Any]


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
