"""The data-loss window: what falling back to an older version would lose.

After a failover to a replica, or a recovery to the last consistent version, the
versions after it are gone. The window says how many, how much time their commits
span, and how many rows they added and removed by the file statistics: the recovery
point an operator reports.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from inspector.delta.actions import AddFile, RemoveFile, canonical_path
from inspector.delta.errors import InspectorError
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey


@dataclass(frozen=True, kw_only=True)
class DataLossWindow:
    """What the versions after ``from_version`` up to ``to_version`` hold.

    Attributes:
        from_version: The version fallen back to (None: no version to fall back to).
        to_version: The newest version, which the fallback loses.
        versions: How many versions are lost.
        seconds: Time between the two versions' commits (None when a commit time
            is unknown, or there is no version to fall back to).
        rows_added: Rows the lost versions added, by the file stats (None when a
            commit is missing or a file has no stats).
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
        return {
            "versions": self.versions,
            "seconds": self.seconds,
            "rowsAdded": self.rows_added,
            "rowsRemoved": self.rows_removed,
        }


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
    """Rows added and removed by the commits after ``first`` up to ``last``."""
    if last <= first:
        return 0, 0
    try:
        state: dict[FileKey, AddFile] = dict(log.snapshot(first).files)
        commits = [log.commit(v) for v in range(first + 1, last + 1)]
    except InspectorError:
        return None, None
    if not all(c.is_complete for c in commits):
        return None, None
    totals: list[int | None] = [0, 0]
    for commit in commits:
        for index, count in enumerate(_commit_rows(commit.actions, state)):
            current = totals[index]
            totals[index] = None if current is None or count is None else current + count
    return totals[0], totals[1]


def _commit_rows(
    actions: Iterable[object], state: MutableMapping[FileKey, AddFile]
) -> tuple[int | None, int | None]:
    """Rows one commit added and removed, netted per data file.

    Only data changes count (an OPTIMIZE rewrites rows without changing them). A
    deletion-vector update removes and re-adds the same file: the difference in
    live rows is what it removed.
    """
    added: dict[str, int | None] = {}
    removed: dict[str, int | None] = {}
    for action in actions:
        if isinstance(action, AddFile):
            state[action.key] = action
            if action.data_change:
                _accumulate(added, canonical_path(action.path), action.num_live_records)
        elif isinstance(action, RemoveFile):
            before = state.pop(action.key, None)
            if action.data_change:
                rows = before.num_live_records if before is not None else _removed_rows(action)
                _accumulate(removed, canonical_path(action.path), rows)
    rows_added: int | None = 0
    rows_removed: int | None = 0
    for path in added.keys() | removed.keys():
        plus, minus = added.get(path, 0), removed.get(path, 0)
        if plus is None or minus is None:
            if path in added:
                rows_added = None
            if path in removed:
                rows_removed = None
            continue
        net = plus - minus
        if net > 0 and rows_added is not None:
            rows_added += net
        elif net < 0 and rows_removed is not None:
            rows_removed -= net
    return rows_added, rows_removed


def _accumulate(counts: dict[str, int | None], path: str, rows: int | None) -> None:
    current = counts.get(path, 0)
    counts[path] = None if current is None or rows is None else current + rows


def _removed_rows(remove: RemoveFile) -> int | None:
    if remove.num_records is None:
        return None
    dv = remove.deletion_vector
    return remove.num_records - (dv.cardinality if dv is not None else 0)
