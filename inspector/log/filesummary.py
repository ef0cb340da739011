"""A commit's files added and removed as Delta counts them, and its actions as written."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class FileSummary:
    """A commit's files added and removed as Delta counts them, and its actions as written.

    Files and bytes are the writer's ``operationMetrics`` where it recorded them
    (:data:`_FILE_METRICS`), as for rows. Without them, from the actions by Delta's rule: a
    file removed and added back under the same path in one commit (given a deletion vector)
    is neither added nor removed (Delta's DELETE counts it in ``numDeletionVectorsAdded``);
    those files are ``deletion_vector_updates``. The records are those of every add and
    remove action (the row rule nets out the files re-added).
    """

    add_actions: int
    remove_actions: int
    deletion_vector_updates: int
    num_added_files: int
    num_removed_files: int
    added_bytes: int
    removed_bytes: int
    added_records: int | None
    removed_records: int | None

    def with_metrics(self, metrics: Mapping[str, Any]) -> FileSummary:
        """The summary with the writer's file metrics where it recorded them."""
        if not metrics:
            return self
        found = file_metrics(metrics)
        return dataclasses.replace(self, **{k: v for k, v in found.items() if v is not None})

    @classmethod
    def of(
        cls,
        adds: Iterable[tuple[str, int]],
        removes: Iterable[tuple[str, int]],
        *,
        added_records: int | None,
        removed_records: int | None,
    ) -> FileSummary:
        """A summary from each add's and each remove's ``(path, size)``."""
        added, removed = list(adds), list(removes)
        both = {p for p, _ in added} & {p for p, _ in removed} if added and removed else set()
        return cls(
            add_actions=len(added),
            remove_actions=len(removed),
            deletion_vector_updates=len(both),
            num_added_files=len(added) - len(both),
            num_removed_files=len(removed) - len(both),
            added_bytes=sum(s for p, s in added if p not in both),
            removed_bytes=sum(s for p, s in removed if p not in both),
            added_records=added_records,
            removed_records=removed_records,
        )


# Each figure's metric names, normalised (lower case, no underscores), first found wins.
_FILE_METRICS = {
    "num_added_files": ("numaddedfiles", "numtargetfilesadded", "numfiles"),
    "num_removed_files": ("numremovedfiles", "numtargetfilesremoved"),
    "added_bytes": ("numaddedbytes", "numtargetbytesadded", "numoutputbytes"),
    "removed_bytes": ("numremovedbytes", "numtargetbytesremoved"),
}


def file_metrics(metrics: Mapping[str, Any]) -> dict[str, int | None]:
    """The writer's file figures by :class:`FileSummary` field (None: not recorded)."""
    named: dict[str, Any] = {_name(k): v for k, v in metrics.items()}
    return {field: _metric(named, names) for field, names in _FILE_METRICS.items()}


@functools.lru_cache(maxsize=1024)  # writers use a few dozen names
def _name(key: str) -> str:
    return key.replace("_", "").lower()


def _metric(named: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    for name in names:
        try:
            return int(named[name])
        except (KeyError, TypeError, ValueError):
            continue
    return None
