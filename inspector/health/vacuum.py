"""VACUUM planner: what a VACUUM would delete, and which versions would stop being readable.

Read-only. The modes are Delta's (docs/vacuum-and-replicas.md): LITE, as Delta 4.4's
(``VacuumCommand.getFilesFromDeltaLog``), takes the paths the ``remove`` and ``cdc``
actions of a window of commits name (:func:`lite_window`). The versions a deletion breaks
are those whose live files, in the full check's trace (:mod:`.trace`), name a file to delete.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pyarrow.compute as pc

from inspector.delta import properties
from inspector.delta.errors import InspectorError, InvalidInput, UnsupportedFeature
from inspector.delta.jsonvalue import camel_json
from inspector.delta.paths import LOG_DIR
from inspector.delta.protocol import catalog_features, through_the_catalog
from inspector.files.tablefiles import is_hidden, relative_path, walk_table
from inspector.health.allversions import judged_trace, versions_naming
from inspector.health.examine import Judging, named_paths, physical_paths, root_base
from inspector.health.retention import retention_policy
from inspector.health.trace import ArrowTrace
from inspector.log import arrays
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot
from inspector.storage import ObjectMeta
from inspector.table.history_time import history_timestamp

HOUR_MS = 3_600_000
_WORKERS = 8  # stat calls in parallel for referenced files the walk did not list
#: Delta's default deletedFileRetentionDuration: below it Delta's VACUUM refuses by default.
RECOMMENDED_MINIMUM_MS = properties.parse_interval(
    properties.DEFAULTS[properties.DELETED_FILE_RETENTION]
)


class VacuumMode(StrEnum):
    """Which files VACUUM considers (Delta's ``VACUUM ... LITE | FULL``)."""

    LITE = "lite"
    FULL = "full"


class VersionFate(StrEnum):
    """What a retained version becomes if the VACUUM runs."""

    READABLE = "readable"  # readable before and after
    LOST = "lost"  # readable now, not after: a file it needs would be deleted
    UNREADABLE = "unreadable"  # already unreadable: files missing or the log damaged


class DeleteReason(StrEnum):
    """Why VACUUM deletes a file."""

    TOMBSTONE = "tombstone expired"
    UNREFERENCED = "not referenced"
    CHANGE_DATA = "change data"


@dataclass(frozen=True, kw_only=True)
class VacuumFile:
    """A file VACUUM would delete, relative to the table root."""

    path: str
    size: int
    modification_time: int
    reason: DeleteReason


@dataclass(frozen=True, kw_only=True)
class VacuumPlan:
    """What a VACUUM with this retention and mode would do.

    Attributes:
        cutoff: Tombstones removed, and unreferenced files modified, before this
            time (ms) are deleted.
        fates: Every retained version (oldest first) and what becomes of it.
        earliest_log_version: Versions before it already expired from the log.
        restore_undos_lost: RESTORE commits that could no longer be undone (the
            version before them is lost).
        tombstones_already_deleted: Expired tombstones whose files are gone already.
    """

    table_root: str
    retain_hours: float
    mode: VacuumMode
    cutoff: int
    files: tuple[VacuumFile, ...]
    fates: tuple[tuple[int, VersionFate], ...]
    earliest_log_version: int
    restore_undos_lost: tuple[int, ...]
    tombstones_already_deleted: int
    warnings: tuple[str, ...]

    @property
    def bytes_to_delete(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def versions_lost(self) -> list[int]:
        return [v for v, fate in self.fates if fate is VersionFate.LOST]

    @property
    def oldest_readable_before(self) -> int | None:
        return next((v for v, f in self.fates if f is not VersionFate.UNREADABLE), None)

    @property
    def oldest_readable_after(self) -> int | None:
        return next((v for v, f in self.fates if f is VersionFate.READABLE), None)

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "retain_hours", "mode"),
            "numFilesToDelete": len(self.files),
            "bytesToDelete": self.bytes_to_delete,
            "filesToDelete": [f.path for f in self.files],
            "versionsLost": self.versions_lost,
            "oldestReadableVersionBefore": self.oldest_readable_before,
            "oldestReadableVersionAfter": self.oldest_readable_after,
            **camel_json(self, "warnings", "earliest_log_version", "restore_undos_lost"),
            "tombstonesAlreadyDeleted": self.tombstones_already_deleted,
        }


def plan_vacuum(
    log: DeltaLog,
    *,
    retain_hours: float | None = None,
    mode: VacuumMode = VacuumMode.LITE,
    now_ms: int | None = None,
    name: str | None = None,
) -> VacuumPlan:
    """Plan a VACUUM of the latest version without deleting anything (``retain_hours``:
    default the table's ``delta.deletedFileRetentionDuration``; ``now_ms``: default the
    clock; ``name``: the table's catalog name, when it was opened by one).

    Raises:
        InvalidInput: If the retention is negative or not a number.
        CorruptLog: If the latest version cannot be read (VACUUM needs it too).
        UnsupportedFeature: If the table is catalog-managed (only its catalog may vacuum it).
    """
    snapshot = log.snapshot()
    config = snapshot.metadata.configuration
    if managed := catalog_features(snapshot.protocol):
        how = through_the_catalog("VACUUM t", name, config)
        raise UnsupportedFeature(
            f"The table is catalog-managed ({', '.join(managed)}): only its catalog may "
            "vacuum it (the Delta protocol forbids maintenance it has not permitted), so no "
            "VACUUM plan is made by path.",
            f"To vacuum it, {how}.",
        )
    configured = retention_policy(config).deleted_files
    if retain_hours is None:
        retain_hours = configured.ms / HOUR_MS
    retain_ms = _retention_ms(retain_hours)
    cutoff = (int(time.time() * 1000) if now_ms is None else now_ms) - retain_ms
    listing = walk_table(log)
    traced = _trace(log, listing)  # before the window's commits are held parsed: read in bulk
    window = lite_window(log, cutoff, config) if mode is VacuumMode.LITE else None
    to_delete, already_deleted = _select(snapshot, listing, cutoff, window)
    fates = _fates(*traced, {f.path for f in to_delete})
    lost = {v for v, fate in fates if fate is VersionFate.LOST}
    warnings = [configured.problem] if configured.problem else []
    warnings += [window.refusal] if window is not None and window.refusal else []
    warnings += _retention_warnings(retain_ms, configured)
    return VacuumPlan(
        table_root=log.table_root,
        retain_hours=retain_hours,
        mode=mode,
        cutoff=cutoff,
        files=to_delete,
        fates=tuple(fates),
        earliest_log_version=log.earliest_version,
        restore_undos_lost=tuple(_restores_undone_by(log, lost)),
        tombstones_already_deleted=already_deleted,
        warnings=tuple(warnings),
    )


def default_retain_hours(log: DeltaLog) -> float:
    """The retention VACUUM uses when none is given: the table's
    ``delta.deletedFileRetentionDuration``, else 7 days (hours)."""
    return retention_policy(log.snapshot().metadata.configuration).deleted_files.ms / HOUR_MS


def _retention_ms(retain_hours: float) -> int:
    try:
        hours = float(retain_hours)
    except (TypeError, ValueError):
        hours = float("nan")
    if not hours >= 0 or hours == float("inf"):
        raise InvalidInput(
            f"'{retain_hours}' is not a retention VACUUM accepts.",
            "Give the retention in hours, 0 or more (e.g. --retain-hours 168 for 7 days).",
        )
    return round(hours * HOUR_MS)


def _select(
    snapshot: Snapshot, listing: Mapping[str, ObjectMeta], cutoff: int, window: LiteWindow | None
) -> tuple[tuple[VacuumFile, ...], int]:
    """The files a VACUUM deletes, sorted by path, and how many files the tombstones it
    reads name that are gone already. Full (no ``window``): files of tombstones older than
    the retention, and files the snapshot does not reference, older than the retention.
    Lite: the files the window's commits removed or wrote as change data. Never a file the
    snapshot protects (live files, tombstones within the retention) nor a hidden one."""
    root, tombstones = snapshot.table_root, snapshot.tombstones_table
    stamps = pc.fill_null(tombstones.column("deletionTimestamp"), 0)  # none: expired
    old = stamps.to_numpy() < cutoff  # in Arrow: no Python object per tombstone
    protected = set(named_paths(root, "add", snapshot.files_table))
    protected.update(named_paths(root, "remove", tombstones.filter(arrays.mask(~old))))
    expired = {
        relative_path(root, path) or ""
        for path in tombstones.filter(arrays.mask(old)).column("path").to_pylist()
    }
    expired -= protected | {""}
    if window is None:
        named = [(p, DeleteReason.TOMBSTONE) for p in expired]
        named += [
            (path, DeleteReason.UNREFERENCED)
            for path, stored in listing.items()
            if path not in expired and stored.last_modified < cutoff
        ]
    else:
        named = [(p, DeleteReason.TOMBSTONE) for p in window.removed]
        named += [(p, DeleteReason.CHANGE_DATA) for p in window.change_data - window.removed]
    found = [
        VacuumFile(
            path=path,
            size=listing[path].size,
            modification_time=listing[path].last_modified,
            reason=reason,
        )
        for path, reason in named
        if path in listing
        and path not in protected
        and not is_hidden(path, snapshot.partition_columns)
    ]
    gone = expired if window is None else window.removed - protected
    return tuple(sorted(found, key=lambda f: f.path)), sum(1 for p in gone if p not in listing)


def _trace(log: DeltaLog, listing: Mapping[str, ObjectMeta]) -> tuple[ArrowTrace, set[int]]:
    """The trace of every retained version, and the versions unreadable already (the log
    broken, or a file they need missing or damaged, judged as the health check judges)."""
    paths = list(listing)
    walk = (paths, [listing[p].size for p in paths])
    traced, _, judged = judged_trace(log, Judging(workers=_WORKERS), walk)
    return traced, versions_naming(traced, judged.issues.keys()) | traced.unreadable


def _fates(
    traced: ArrowTrace, broken: set[int], deleted: set[str]
) -> list[tuple[int, VersionFate]]:
    """Each retained version: unreadable already (``broken``), lost to the VACUUM that
    deletes ``deleted``, or readable."""
    prefix = root_base(traced.root) + "/"
    lost = versions_naming(traced, {prefix + path for path in deleted}) - broken
    fate = dict.fromkeys(lost, VersionFate.LOST) | dict.fromkeys(broken, VersionFate.UNREADABLE)
    return [(v, fate.get(v, VersionFate.READABLE)) for v in range(traced.first, traced.latest + 1)]


def _restores_undone_by(log: DeltaLog, lost: set[int]) -> list[int]:
    """RESTORE commits whose undo (a restore to the version before them) would fail (only
    the commits after the lost versions are read)."""
    after = log.read_commits([v + 1 for v in sorted(lost)])
    return [c.version for c in after if c.commit_info.operation == "RESTORE"]


def _retention_warnings(retain_ms: int, table: properties.Retention) -> list[str]:
    """Delta's retention check (``checkRetentionPeriodSafety``), plus its 7-day advice."""
    hours = f"{retain_ms / HOUR_MS:g} hours"
    risk = (
        "Readers of older snapshots and writes still running can fail, and a running "
        "write can lose files it has not committed yet."
    )
    if retain_ms < table.ms:
        return [
            f"A retention of {hours} is shorter than the table's deleted-file retention "
            f"({table.describe()}): Delta's VACUUM refuses it "
            "unless its retention check is turned off "
            "(spark.databricks.delta.retentionDurationCheck.enabled=false; delta-rs: "
            f"enforce_retention_duration=False). {risk}"
        ]
    if retain_ms < RECOMMENDED_MINIMUM_MS:
        return [
            f"A retention of {hours} is shorter than 7 days, the minimum Delta recommends. {risk}"
        ]
    return []


@dataclass(frozen=True, kw_only=True)
class LiteWindow:
    """The relative paths the commits a LITE VACUUM reads name: removed files and their
    deletion vectors removed before the cutoff, change-data files; ``refusal``: why Delta
    refuses this table, if it does."""

    removed: frozenset[str] = frozenset()
    change_data: frozenset[str] = frozenset()
    refusal: str | None = None


def lite_window(log: DeltaLog, cutoff: int, config: Mapping[str, str]) -> LiteWindow:
    """The window of commits Delta's LITE VACUUM reads for this ``cutoff`` (ms), and what it
    names (empty when no commit is older than the cutoff, or Delta refuses).

    A commit is older than the cutoff by its history timestamp under the latest
    properties ``config``, as Delta's ``getActiveCommitAtTime`` judges it.
    """
    versions = log.listing.commit_versions
    before, previous = [], None
    for version, commit in zip(versions, log.read_commits(versions), strict=True):
        previous = history_timestamp(commit, config, previous)[0]
        if previous <= cutoff:
            before.append(version)
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


def _last_vacuum_end(log: DeltaLog) -> int | None:
    """The window end the last LITE VACUUM recorded (None when absent or unreadable)."""
    try:
        text = log.storage.read(f"{LOG_DIR}/_last_vacuum_info")
        value = json.loads(text).get("latestCommitVersionOutsideOfRetentionWindow")
    except (InspectorError, OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None
