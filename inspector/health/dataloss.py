"""The data-loss window: what falling back to an older version would lose.

After a failover to a replica, or a recovery to the last consistent version, the versions
after it are gone: how many, the time their commits span, and the rows they inserted,
deleted and updated by the one row rule (:mod:`inspector.table.rowcounts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.delta.errors import InspectorError
from inspector.delta.jsonvalue import camel_json
from inspector.log.deltalog import DeltaLog
from inspector.table.rowcounts import RowChange, rows_between


@dataclass(frozen=True, kw_only=True)
class DataLossWindow:
    """What the versions lost by a fallback hold.

    Attributes:
        versions: How many versions are lost.
        seconds: Time between the two versions' commits (None when a commit time
            is unknown, or there is no version to fall back to).
        rows_inserted: Rows the lost versions inserted, updated rows not included (None
            when a commit is missing or the log cannot know: files rewritten without
            metrics); ``rows_deleted`` likewise; ``rows_updated`` each counted once.
    """

    versions: int
    seconds: float | None
    rows_inserted: int | None
    rows_deleted: int | None
    rows_updated: int | None

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``replica --json`` and ``check --json``."""
        return camel_json(
            self, "versions", "seconds", "rows_inserted", "rows_deleted", "rows_updated"
        )


def data_loss_window(log: DeltaLog, from_version: int | None, to_version: int) -> DataLossWindow:
    """The window between a fallback version (None: there is none) and the newest version of
    the log that has the lost commits (the primary's, or the table's own)."""
    if from_version is None:
        return DataLossWindow(
            versions=to_version - log.earliest_version + 1,
            seconds=None,
            rows_inserted=_live_rows(log, to_version),
            rows_deleted=0,
            rows_updated=0,
        )
    start, end = commit_time(log, from_version), commit_time(log, to_version)
    rows = _rows_between(log, from_version, to_version)
    return DataLossWindow(
        versions=max(to_version - from_version, 0),
        seconds=(end - start) / 1000 if start is not None and end is not None else None,
        rows_inserted=rows["rowsInserted"],
        rows_deleted=rows["rowsDeleted"],
        rows_updated=rows["rowsUpdated"],
    )


def commit_time(log: DeltaLog, version: int) -> int | None:
    """When a version was committed (ms): its in-commit timestamp, else the writer's
    ``commitInfo.timestamp`` (copying a table resets file times), else the commit file's
    modification time; None when the commit file is gone."""
    try:
        commit = log.commit(version)
    except InspectorError:
        return None
    info = commit.commit_info
    return info.in_commit_timestamp or info.timestamp or commit.file.modification_time


def _live_rows(log: DeltaLog, version: int) -> int | None:
    try:
        return log.snapshot(version).num_records
    except InspectorError:
        return None


def _rows_between(log: DeltaLog, first: int, last: int) -> dict[str, int | None]:
    """Rows the commits after ``first`` up to ``last`` inserted, deleted and updated: the
    one row rule (:mod:`inspector.table.rowcounts`), summed, in ``history --json``'s names;
    None when a commit is missing or damaged."""
    if last <= first:
        return RowChange.no_change("no commits in between", commits=0).history_json()
    try:
        commits = [log.commit(v) for v in range(first + 1, last + 1)]
    except InspectorError:
        return RowChange.unknown("a commit is missing").history_json()
    if not all(c.is_complete for c in commits):
        return RowChange.unknown("a commit is damaged").history_json()
    return rows_between(log, first, last).total.history_json()
