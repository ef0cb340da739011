"""The files Delta's ``VACUUM ... LITE`` considers: those the log says were removed.

Delta 4.4's LITE mode (``VacuumCommand.getFilesFromDeltaLog``) never lists the table
folder: it reads the commits from after the last LITE run's window
(``_delta_log/_last_vacuum_info``, else the earliest commit) to the newest commit made at
or before the cutoff, and takes the paths their ``remove`` actions (with their deletion
vectors, removed before the cutoff) and ``cdc`` actions name. A log that no longer starts
at version 0 with no earlier LITE run covering the gap is refused
(``DELTA_CANNOT_VACUUM_LITE``). Untracked files are only ever found by FULL.
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


@dataclass(frozen=True, kw_only=True)
class LiteWindow:
    """The relative paths the commits a LITE VACUUM reads name: removed files and their
    deletion vectors removed before the cutoff, change-data files; ``refusal``: why Delta
    refuses this table, if it does."""

    removed: frozenset[str] = frozenset()
    change_data: frozenset[str] = frozenset()
    refusal: str | None = None


def lite_window(log: DeltaLog, cutoff: int) -> LiteWindow:
    """The window of commits Delta's LITE VACUUM reads for this ``cutoff`` (ms), and what it
    names (empty when no commit is older than the cutoff, or Delta refuses)."""
    versions = log.listing.commit_versions
    timed = [(v, _history_ms(c)) for v, c in zip(versions, log.read_commits(versions), strict=True)]
    before = [v for v, ms in timed if ms <= cutoff]
    if not before:
        return LiteWindow()
    last, earliest = max(before), min(versions)
    previous = _last_vacuum_end(log)
    if earliest != 0 and (previous is None or previous < earliest):
        return LiteWindow(
            refusal=f"Delta's VACUUM LITE refuses this table (DELTA_CANNOT_VACUUM_LITE): its "
            f"log starts at version {earliest}, so files removed by the expired commits "
            "would be missed. Delta asks for VACUUM FULL.",
        )
    first = min(log.latest_version, earliest if previous is None else previous + 1)
    root, removed, change_data = log.table_root, set[str](), set[str]()
    for commit in log.read_commits([v for v in versions if first <= v <= last]):
        for remove in commit.removes:
            if (remove.deletion_timestamp or 0) < cutoff:
                removed.update(physical_paths(root, remove.path, remove.deletion_vector))
        change_data.update(p for c in commit.cdc_files for p in physical_paths(root, c.path, None))
    return LiteWindow(removed=frozenset(removed), change_data=frozenset(change_data))


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
        text = log.storage.read(f"{LOG_DIR}/_last_vacuum_info")
        value = json.loads(text).get("latestCommitVersionOutsideOfRetentionWindow")
    except (InspectorError, OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None
