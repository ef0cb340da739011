"""A metadata diff as rows, written once for every front end and report.

The Diff page, the Version page, the restore plan and the Markdown postmortem all show
a :class:`~inspector.diff.metadiff.MetadataDiff` as a table; :func:`metadata_rows` is
the one flattening: columns added, removed and changed, then table fields, properties
and protocol values, each a :class:`MetadataRow`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.schema import Column
from inspector.diff.metadiff import MetadataDiff


class RowKind(StrEnum):
    """What a row of a metadata diff is about."""

    COLUMN_ADDED = "column added"
    COLUMN_REMOVED = "column removed"
    COLUMN_CHANGED = "column changed"
    TABLE = "table"
    PROPERTY = "property"
    PROTOCOL = "protocol"

    @property
    def is_column(self) -> bool:
        """True for the rows about a column (the others are about a key's value)."""
        return self in (RowKind.COLUMN_ADDED, RowKind.COLUMN_REMOVED, RowKind.COLUMN_CHANGED)


@dataclass(frozen=True, kw_only=True)
class MetadataRow:
    """One change of a metadata diff.

    Attributes:
        kind: What changed (a column, or a table field, property or protocol value).
        name: The column's name, or the key.
        before: The column's type, or the value, on the older side (None when absent).
        after: The column's type, or the value, on the newer side (None when absent).
        changes: For a changed column, what changed in words (``type long -> string``).
        column: For a column row, the column as the newer side has it (the older side's
            for a removed column), with its nullability and physical name.
    """

    kind: RowKind
    name: str
    before: Any
    after: Any
    changes: tuple[str, ...] = ()
    column: Column | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "name", "before", "after", "changes"}``."""
        return {
            "kind": self.kind.value,
            "name": self.name,
            "before": self.before,
            "after": self.after,
            "changes": list(self.changes),
        }


def metadata_rows(diff: MetadataDiff) -> tuple[MetadataRow, ...]:
    """Every change of ``diff`` as rows: columns added, removed, changed, then values.

    Args:
        diff: A metadata diff (of two versions, a commit, or a restore plan).

    Returns:
        The rows, columns first (added, removed, changed), then table fields,
        properties and protocol values, each group in the diff's order.
    """
    rows = [
        MetadataRow(kind=RowKind.COLUMN_ADDED, name=c.name, before=None, after=c.type, column=c)
        for c in diff.columns_added
    ]
    rows += [
        MetadataRow(kind=RowKind.COLUMN_REMOVED, name=c.name, before=c.type, after=None, column=c)
        for c in diff.columns_removed
    ]
    rows += [
        MetadataRow(
            kind=RowKind.COLUMN_CHANGED,
            name=c.name,
            before=c.before.type,
            after=c.after.type,
            changes=tuple(c.changes),
            column=c.after,
        )
        for c in diff.columns_changed
    ]
    for kind, values in (
        (RowKind.TABLE, diff.table),
        (RowKind.PROPERTY, diff.properties),
        (RowKind.PROTOCOL, diff.protocol),
    ):
        rows += [MetadataRow(kind=kind, name=v.key, before=v.before, after=v.after) for v in values]
    return tuple(rows)
