"""The files Delta's ``VACUUM ... LITE`` considers: those the log says were removed.

Delta 4.4's LITE mode (``VacuumCommand.getFilesFromDeltaLog``) never lists the table
folder. It reads the commits of a window of versions and takes every path their
``remove`` actions (with their deletion vectors) and ``cdc`` actions name:

- the window ends at the newest commit made at or before the cutoff (its history
  timestamp: the in-commit timestamp when enabled, else the commit file's time);
- it starts after the window's end of the last LITE VACUUM that deleted files
  (``_delta_log/_last_vacuum_info``), else at the earliest commit. When that commit
  is not version 0 and no earlier LITE VACUUM covered the gap, Delta refuses
  (``DELTA_CANNOT_VACUUM_LITE``): files removed in the expired commits would be missed.

Of those paths, a removed file counts when its ``deletionTimestamp`` is before the
cutoff; a change-data file always does (Delta gives it time 0). The caller then keeps
whatever the latest snapshot still protects (live files, tombstones within the
retention and their deletion vectors), as Delta does.

Untracked files (failed writes, files whose tombstones expired before the window) are
only ever found by FULL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from inspector.delta.actions import DeletionVector
from inspector.delta.errors import InspectorError
from inspector.delta.paths import LOG_DIR
from inspector.files.tablefiles import relative_path
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog

#: Where Delta records the window of the last LITE VACUUM, in ``_delta_log``.
LAST_VACUUM_INFO = "_last_vacuum_info"


@dataclass(frozen=True, kw_only=True)
class LiteWindow:
    """The commits a LITE VACUUM reads and the paths they name.

    Attributes:
        first: The first commit read (None when nothing is read).
        last: The newest commit at or before the cutoff (None when none is).
        removed: Relative paths of removed files and their deletion vectors, removed
            before the cutoff.
        change_data: Relative paths of change-data files.
        refusal: Why Delta's LITE VACUUM refuses this table, if it does.
    """

    first: int | None
    last: int | None
    removed: frozenset[str]
    change_data: frozenset[str]
    refusal: str | None = None


def lite_window(log: DeltaLog, cutoff: int) -> LiteWindow:
    """The window of commits Delta's LITE VACUUM reads for this cutoff, and what it names.

    Args:
        log: An opened log.
        cutoff: Files removed before this time (ms) are eligible.

    Returns:
        The window (empty when no commit is older than the cutoff, or Delta refuses).
    """
    versions = log.listing.commit_versions
    timed = [(v, _history_ms(c)) for v, c in zip(versions, log.read_commits(versions), strict=True)]
    before = [v for v, ms in timed if ms <= cutoff]
    if not before:
        return LiteWindow(first=None, last=None, removed=frozenset(), change_data=frozenset())
    last, earliest = max(before), min(versions)
    previous = _last_vacuum_end(log)
    if earliest != 0 and (previous is None or previous < earliest):
        return LiteWindow(
            first=None,
            last=last,
            removed=frozenset(),
            change_data=frozenset(),
            refusal=f"Delta's VACUUM LITE refuses this table (DELTA_CANNOT_VACUUM_LITE): its "
            f"log starts at version {earliest}, so files removed by the expired commits "
            "would be missed. Delta asks for VACUUM FULL.",
        )
    first = min(log.latest_version, earliest if previous is None else previous + 1)
    removed: set[str] = set()
    change_data: set[str] = set()
    for commit in log.read_commits([v for v in versions if first <= v <= last]):
        _collect(log.table_root, commit, cutoff, removed, change_data)
    return LiteWindow(
        first=first, last=last, removed=frozenset(removed), change_data=frozenset(change_data)
    )


def _collect(
    root: str, commit: Commit, cutoff: int, removed: set[str], change_data: set[str]
) -> None:
    for remove in commit.removes:
        if (remove.deletion_timestamp or 0) < cutoff:
            removed.update(physical_paths(root, remove.path, remove.deletion_vector))
    change_data.update(p for cdc in commit.cdc_files for p in physical_paths(root, cdc.path, None))


def physical_paths(root: str, path: str, dv: DeletionVector | None) -> list[str]:
    """The files an action names (its file, its deletion vector's), relative to the root;
    none outside it."""
    where = dv.relative_or_absolute_path() if dv is not None else None
    found = [relative_path(root, path), relative_path(root, where) if where else None]
    return [p for p in found if p]


def _history_ms(commit: Commit) -> int:
    """Delta's time of a commit: its in-commit timestamp, else its file's time."""
    ict = commit.commit_info.in_commit_timestamp
    return ict if ict is not None else commit.file.modification_time


def _last_vacuum_end(log: DeltaLog) -> int | None:
    """The window end the last LITE VACUUM recorded (None when absent or unreadable)."""
    try:
        text = log.storage.read(f"{LOG_DIR}/{LAST_VACUUM_INFO}")
        value = json.loads(text).get("latestCommitVersionOutsideOfRetentionWindow")
    except (InspectorError, OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None
