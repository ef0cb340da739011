"""The records of a row's history (``blame``), their JSON and their text.

Computed on Spark by :mod:`inspector.rows.blame`; kept apart so the walk stays short.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.jsonvalue import camel_json, json_value


class WriteKind(StrEnum):
    """What a version did to a row."""

    INSERTED = "inserted"
    UPDATED = "updated"
    DELETED = "deleted"
    #: The row was there when its history starts (the oldest version read); what wrote it
    #: before is gone (log retention, VACUUM) or lies before the row first matched.
    PRESENT = "present"


class Method(StrEnum):
    """How rows are linked across versions."""

    ROW_TRACKING = "row-tracking"  # by _metadata.row_id
    PREDICATE = "predicate"  # by the filter alone (the table has no row tracking)


@dataclass(frozen=True, kw_only=True)
class RowWrite:
    """One version that wrote a row, with the row before and after it."""

    version: int
    operation: str
    change: WriteKind
    timestamp: str | None  # the history's time of the version (ISO 8601)
    user_name: str | None
    engine_info: str | None
    row_commit_version: int | None
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """One write: ``version``, ``operation`` and the rest (docs/json-contracts.md)."""
        values = {"before": json_value(self.before), "after": json_value(self.after)}
        return {**camel_json(self), "change": str(self.change), **values}


@dataclass(frozen=True, kw_only=True)
class BlamedRow:
    """One row (a row id under row tracking) and every version that wrote it, oldest first."""

    row_id: int | None
    writes: tuple[RowWrite, ...]

    @property
    def current(self) -> Mapping[str, Any] | None:
        """The row's values at the chosen version (None when it was deleted)."""
        return self.writes[-1].after if self.writes else None

    def to_json(self) -> dict[str, Any]:
        return {
            "rowId": self.row_id,
            "rowCommitVersion": self.writes[-1].row_commit_version if self.writes else None,
            "current": json_value(self.current),
            "writes": [w.to_json() for w in self.writes],
        }


@dataclass(frozen=True, kw_only=True)
class HistoryCut:
    """Where the history stops short, and why."""

    version: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class Blame:
    """The rows a filter matches at a version or before, and the versions that wrote them."""

    version: int
    where: str
    method: Method
    earliest_version: int
    versions_read: tuple[int, ...]
    versions_considered: int
    rows: tuple[BlamedRow, ...]
    cuts: tuple[HistoryCut, ...]
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``blame --json`` (docs/json-contracts.md)."""
        return {
            **camel_json(self),
            "method": str(self.method),
            "versionsRead": list(self.versions_read),
            "rows": [r.to_json() for r in self.rows],
            "cuts": [camel_json(c) for c in self.cuts],
            "notes": list(self.notes),
        }
