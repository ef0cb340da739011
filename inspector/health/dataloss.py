"""The data-loss window: what falling back to an older version would lose.

After a failover to a replica, or a recovery to the last consistent version, the
versions after it are gone. The window says how many, how much time their commits
span, and how many rows they added and removed (the one row rule of
:mod:`inspector.table.rowcounts`: operation metrics, else deletion vectors and file
stats): the recovery point an operator reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.delta.errors import InspectorError
from inspector.delta.jsonvalue import camel_json
from inspector.log.deltalog import DeltaLog
from inspector.table.rowcounts import rows_between


@dataclass(frozen=True, kw_only=True)
class DataLossWindow:
    """What the versions after ``from_version`` up to ``to_version`` hold.

    Attributes:
        from_version: The version fallen back to (None: no version to fall back to).
        to_version: The newest version, which the fallback loses.
        versions: How many versions are lost.
        seconds: Time between the two versions' commits (None when a commit time
            is unknown, or there is no version to fall back to).
        rows_added: Rows the lost versions added, updated rows' new versions included
            (None when a commit is missing or the log cannot know).
        rows_removed: Rows they removed, likewise.
    """

    from_version: int | None
    to_version: int
    versions: int
    seconds: float | None
    rows_added: int | None
    rows_removed: int | None

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``replica --json`` and ``check --json``."""
        return camel_json(self, "versions", "seconds", "rows_added", "rows_removed")


def data_loss_window(log: DeltaLog, from_version: int | None, to_version: int) -> DataLossWindow:
    """The window between a fallback version and the newest version of a log.

    Args:
        log: The log that has the lost commits (the primary's, or the table's own).
        from_version: The version fallen back to; None when there is none.
        to_version: The newest version.

    Returns:
        The window; zero when the two versions are the same.
    """
    if from_version is None:
        return DataLossWindow(
            from_version=None,
            to_version=to_version,
            versions=to_version - log.earliest_version + 1,
            seconds=None,
            rows_added=_live_rows(log, to_version),
            rows_removed=0,
        )
    start, end = commit_time(log, from_version), commit_time(log, to_version)
    added, removed = _rows_between(log, from_version, to_version)
    return DataLossWindow(
        from_version=from_version,
        to_version=to_version,
        versions=max(to_version - from_version, 0),
        seconds=(end - start) / 1000 if start is not None and end is not None else None,
        rows_added=added,
        rows_removed=removed,
    )


def commit_time(log: DeltaLog, version: int) -> int | None:
    """When a version was committed (ms): its in-commit timestamp, else the writer's
    ``commitInfo.timestamp``, else the commit file's modification time.

    The writer's clock comes before the file time because copying a table (or
    replicating it) resets file times; None when the commit file is gone.
    """
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


def _rows_between(log: DeltaLog, first: int, last: int) -> tuple[int | None, int | None]:
    """Rows the commits after ``first`` up to ``last`` added and removed: the one row rule
    (:mod:`inspector.table.rowcounts`), summed; None when a commit is missing or damaged."""
    if last <= first:
        return 0, 0
    try:
        commits = [log.commit(v) for v in range(first + 1, last + 1)]
    except InspectorError:
        return None, None
    if not all(c.is_complete for c in commits):
        return None, None
    total = rows_between(log, first, last).total
    return total.added, total.removed
