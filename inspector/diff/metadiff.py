"""Differences in metaData and protocol between two versions of a table, or made by one
commit, and the one flattening of such a diff into rows (every page and report shows it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from inspector.delta.actions import Metadata, Protocol
from inspector.delta.errors import InspectorError
from inspector.delta.jsonvalue import camel_json
from inspector.delta.schema import Column, iter_columns
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog

State = tuple[Metadata, Protocol]


@dataclass(frozen=True, kw_only=True)
class ColumnChange:
    """A column present on both sides whose type, nullability or name changed.

    Columns are matched by column-mapping id when both sides have one (so a
    RENAME COLUMN shows as a rename, not as a drop plus an add), else by path.
    Only a column's own changes count: a struct whose nested field changed is not
    reported itself (the nested field is), nor is a field whose parent was renamed.
    """

    name: str
    before: Column
    after: Column

    @property
    def changes(self) -> list[str]:
        """What changed, in words: ``type long -> string``, ``renamed from a``, ..."""
        out = []
        if self.before.path[-1] != self.after.path[-1]:
            out.append(f"renamed from {self.before.name}")
        if _shape(self.before.type) != _shape(self.after.type):
            out.append(f"type {self.before.type} -> {self.after.type}")
        if self.before.nullable != self.after.nullable:
            out.append("now nullable" if self.after.nullable else "now NOT NULL")
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"name", "changes", "before", "after"}``."""
        before, after = self.before.to_json(), self.after.to_json()
        return {"name": self.name, "changes": self.changes, "before": before, "after": after}


@dataclass(frozen=True, kw_only=True)
class ValueChange:
    """A named value (property, protocol field, ...) that differs between two versions."""

    key: str
    before: Any
    after: Any

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)


@dataclass(frozen=True, kw_only=True)
class MetadataDiff:
    """Everything that differs in metaData and protocol between two versions."""

    columns_added: tuple[Column, ...]
    columns_removed: tuple[Column, ...]
    columns_changed: tuple[ColumnChange, ...]
    properties: tuple[ValueChange, ...]
    table: tuple[ValueChange, ...]
    protocol: tuple[ValueChange, ...]

    def to_json(self) -> dict[str, Any]:
        """The one JSON shape of a metadata diff (in ``diff --json``, and a restore plan's
        ``schemaChanges``)."""
        return {
            "schema": {
                "added": [c.name for c in self.columns_added],
                "removed": [c.name for c in self.columns_removed],
                "changed": [c.to_json() for c in self.columns_changed],
                "addedColumns": [c.to_json() for c in self.columns_added],
                "removedColumns": [c.to_json() for c in self.columns_removed],
            },
            "properties": [v.to_json() for v in self.properties],
            "protocol": [v.to_json() for v in self.protocol],
            "tableFields": [v.to_json() for v in self.table],
        }

    @property
    def is_empty(self) -> bool:
        """True when the two versions have the same metadata and protocol."""
        return not any(getattr(self, f.name) for f in fields(self))


def diff_metadata(before: State | None, after: State) -> MetadataDiff:
    """Compare (metaData, protocol) of two versions; ``before`` None means ``after`` creates
    the table (every column is then added)."""
    old_meta, old_protocol = before or (None, None)
    old_cols = list(iter_columns(old_meta.schema)) if old_meta else []
    added, removed, changed = _diff_columns(old_cols, list(iter_columns(after[0].schema)))
    return MetadataDiff(
        columns_added=tuple(added),
        columns_removed=tuple(removed),
        columns_changed=tuple(changed),
        properties=_diff_maps(old_meta.configuration if old_meta else {}, after[0].configuration),
        table=_diff_maps(_table_fields(old_meta), _table_fields(after[0])),
        protocol=_diff_maps(_protocol_fields(old_protocol), _protocol_fields(after[1])),
    )


def _identity(col: Column, use_ids: bool) -> Any:
    return ("id", col.column_id) if use_ids and col.column_id is not None else ("path", col.path)


def _diff_columns(
    old: list[Column], new: list[Column]
) -> tuple[list[Column], list[Column], list[ColumnChange]]:
    use_ids = all(any(c.column_id is not None for c in side) for side in (old, new))
    old_by = {_identity(c, use_ids): c for c in old}
    new_by = {_identity(c, use_ids): c for c in new}
    added = [c for k, c in new_by.items() if k not in old_by]
    removed = [c for k, c in old_by.items() if k not in new_by]
    changed = [
        ColumnChange(name=new_by[k].name, before=old_by[k], after=new_by[k])
        for k in new_by
        if k in old_by and _own(old_by[k]) != _own(new_by[k])
    ]
    return added, removed, changed


def _own(col: Column) -> tuple[Any, ...]:
    """What belongs to the column itself: its own name, its type's shape, its nullability."""
    return col.path[-1], _shape(col.type), col.nullable


def _shape(type_string: str) -> str:
    """``array<struct<a:int>>`` -> ``array<struct>``: nested fields are columns of their own
    in the diff, so a change inside a struct is not also one of the struct (or of its array)."""
    out, depth = [], 0
    for token in re.split(r"(struct<|[<>])", type_string):
        if depth:
            depth += {"struct<": 1, "<": 1, ">": -1}.get(token, 0)
        elif token == "struct<":
            out.append("struct")
            depth = 1
        else:
            out.append(token)
    return "".join(out)


def _diff_maps(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[ValueChange, ...]:
    keys = sorted(set(old) | set(new))
    changed = [k for k in keys if old.get(k) != new.get(k)]
    return tuple(ValueChange(key=k, before=old.get(k), after=new.get(k)) for k in changed)


def _table_fields(meta: Metadata | None) -> dict[str, Any]:
    if meta is None:
        return {}
    return {
        **camel_json(meta, "id", "name", "description"),
        "format": meta.format_provider,
        "partitionColumns": list(meta.partition_columns),
    }


def _protocol_fields(protocol: Protocol | None) -> dict[str, Any]:
    if protocol is None:
        return {}
    return {
        **camel_json(protocol, "min_reader_version", "min_writer_version"),
        "readerFeatures": sorted(protocol.reader_features or []) or None,
        "writerFeatures": sorted(protocol.writer_features or []) or None,
    }


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
        name: The column's name, or the key.
        before: The column's type, or the value, on the older side (None when absent).
        after: The column's type, or the value, on the newer side (None when absent).
        changes: For a changed column, what changed in words (``type long -> string``).
        column: For a column row, the column as the newer side has it (the older side's
            for a removed column).
    """

    kind: RowKind
    name: str
    before: Any
    after: Any
    changes: tuple[str, ...] = ()
    column: Column | None = None

    def to_json(self) -> dict[str, Any]:
        return camel_json(self, "kind", "name", "before", "after", "changes")


def metadata_rows(diff: MetadataDiff) -> tuple[MetadataRow, ...]:
    """Every change of ``diff`` as rows: columns added, removed and changed, then table
    fields, properties and protocol values, each group in the diff's order."""
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


@dataclass(frozen=True, kw_only=True)
class CommitMetadataChange:
    """What a commit changed in metaData and protocol.

    Attributes:
        diff: The change against the version before (everything, when that is unknown
            or the commit creates the table); None when the state at this version
            cannot be determined (the commit's actions are then all there is).
        creates: Nothing is compared against: the commit creates the table, or the
            version before cannot be reconstructed.
        before_unknown: Why the version before cannot be reconstructed, or None.
    """

    diff: MetadataDiff | None
    creates: bool
    before_unknown: str | None = None


def commit_metadata_change(log: DeltaLog, commit: Commit) -> CommitMetadataChange | None:
    """The metaData/protocol change of ``commit``, or None when it carries neither action."""
    if commit.metadata is None and commit.protocol is None:
        return None
    before: State | None = None
    unknown = None  # version 0 has no version before it, and needs no reason
    if commit.version > 0:
        try:
            prev = log.snapshot(commit.version - 1)
            before = (prev.metadata, prev.protocol)
        except InspectorError as exc:
            unknown = f"Version {commit.version - 1} cannot be reconstructed ({exc.message})"
    # In force after it: its own, else the one before it, else the snapshot's at its version.
    meta = commit.metadata or (before[0] if before else None)
    proto = commit.protocol or (before[1] if before else None)
    after: State | None = None if meta is None or proto is None else (meta, proto)
    if after is None:
        with suppress(InspectorError):
            snap = log.snapshot(commit.version)
            after = meta or snap.metadata, proto or snap.protocol
    return CommitMetadataChange(
        diff=None if after is None else diff_metadata(before, after),
        creates=before is None,
        before_unknown=unknown,
    )
