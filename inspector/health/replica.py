"""Replica check: is a disaster-recovery copy of a table complete, and what would a failover lose?

Read-only on both sides (why replicas lag: docs/vacuum-and-replicas.md). The data-loss window
(what falling back to an older version loses, after a failover or a recovery to the last
consistent version) counts rows by the one row rule (:mod:`inspector.table.rowcounts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.delta.actions import Metadata
from inspector.delta.errors import InspectorError, InvalidInput
from inspector.delta.jsonvalue import camel_json
from inspector.delta.paths import LOG_DIR
from inspector.files.tablefiles import walk_table
from inspector.health.allversions import first_references
from inspector.health.check import check_table
from inspector.health.records import HealthReport
from inspector.health.trace import trace
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.storage import ObjectMeta
from inspector.table import Table
from inspector.table.rowcounts import rows_between
from inspector.table.rowrule import RowChange


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
        return camel_json(self)


def data_loss_window(log: DeltaLog, from_version: int | None, to_version: int) -> DataLossWindow:
    """The window between a fallback version (None: there is none) and the newest version of
    the log that has the lost commits (the primary's, or the table's own)."""
    if from_version is None:  # every version is lost: the rows of the newest are
        try:
            inserted = log.snapshot(to_version).num_records
        except InspectorError:
            inserted = None
        return DataLossWindow(
            versions=to_version - log.earliest_version + 1,
            seconds=None,
            rows_inserted=inserted,
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


@dataclass(frozen=True, kw_only=True)
class ReplicaFile:
    """A file (relative to the root) the primary has and the replica lacks (``replica_size``
    None), or has with another size; ``version``: the first that needs it."""

    version: int
    path: str
    size: int
    replica_size: int | None = None

    def to_json(self) -> dict[str, Any]:
        optional = ("replica_size",) if self.replica_size is not None else ()
        return camel_json(self, "version", "path", "size", *optional)


@dataclass(frozen=True, kw_only=True)
class ReplicaReport:
    """The comparison of a replica with its primary.

    Attributes:
        missing_commits: Commit versions the replica lacks or has truncated.
        missing_files: Data and deletion-vector files of retained versions the
            replica lacks, oldest version first.
        size_mismatches: Such files the replica has with another size.
        extra_paths: Files on the replica that the primary does not have.
        window: What a failover to the last consistent version loses.
    """

    primary_root: str
    replica_root: str
    primary_latest_version: int
    replica_latest_version: int
    replica_last_consistent_version: int | None
    replica_consistent: bool
    missing_commits: tuple[ReplicaFile, ...]
    missing_files: tuple[ReplicaFile, ...]
    size_mismatches: tuple[ReplicaFile, ...]
    extra_paths: tuple[str, ...]
    window: DataLossWindow
    replica_health: HealthReport

    @property
    def bytes_to_copy(self) -> int:
        return sum(
            f.size for f in (*self.missing_commits, *self.missing_files, *self.size_mismatches)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "primaryLatestVersion": self.primary_latest_version,
            "replicaLatestVersion": self.replica_latest_version,
            "replicaLastConsistentVersion": self.replica_last_consistent_version,
            "missingCommits": [f.version for f in self.missing_commits],
            "missingFiles": [f.to_json() for f in self.missing_files],
            "sizeMismatches": [f.to_json() for f in self.size_mismatches],
            "bytesToCopy": self.bytes_to_copy,
            "extraFiles": len(self.extra_paths),
            "dataLossWindow": self.window.to_json(),
        }


def compare_replica(primary: Table, replica: Table, *, settings: Settings) -> ReplicaReport:
    """Compare a replica (its own handle: its own store and options) with its primary.

    Raises:
        InvalidInput: If the two are different tables (their table ids differ), or
            the same folder.
    """
    primary_log, replica_log = primary.log, replica.log
    _same_table(primary_log, replica_log)
    primary_files, replica_files = walk_table(primary_log), walk_table(replica_log)
    commits = {f"{LOG_DIR}/{f.name}": v for v, f in primary_log.listing.commits.items()}
    files = _to_copy(_needed(primary_log), primary_files, replica_files)
    health = check_table(replica_log, settings=settings)
    consistent = health.last_consistent_version
    return ReplicaReport(
        primary_root=primary_log.table_root,
        replica_root=replica_log.table_root,
        primary_latest_version=primary_log.latest_version,
        replica_latest_version=replica_log.latest_version,
        replica_last_consistent_version=consistent,
        replica_consistent=health.is_consistent,
        missing_commits=tuple(_to_copy(commits, primary_files, replica_files)),
        missing_files=tuple(f for f in files if f.replica_size is None),
        size_mismatches=tuple(f for f in files if f.replica_size is not None),
        extra_paths=tuple(sorted(set(replica_files) - set(primary_files))),
        window=data_loss_window(primary_log, consistent, primary_log.latest_version),
        replica_health=health,
    )


def _same_table(primary: DeltaLog, replica: DeltaLog) -> None:
    if primary.table_root == replica.table_root:
        raise InvalidInput(
            f"The primary and the replica are the same folder ({primary.table_root}).",
            "Give the replica's own location.",
        )
    ids = {side: _table_id(log) for side, log in (("primary", primary), ("replica", replica))}
    if ids["primary"] != ids["replica"]:
        raise InvalidInput(
            f"These are two different tables: the primary's table id is {ids['primary']}, "
            f"the replica's is {ids['replica']}.",
            "Give the replica of this table (a copy keeps the table id of metaData).",
        )


def newest_metadata(log: DeltaLog) -> Metadata | None:
    """The latest snapshot's metaData (the checkpoint and the commits after it only); when
    it cannot be read (a replica's newest versions may not be), the newest the commits hold."""
    try:
        return log.snapshot().metadata
    except InspectorError:
        return next((c.metadata for c in reversed(log.commits) if c.metadata), None)


def _table_id(log: DeltaLog) -> str | None:
    """The table id of :func:`newest_metadata`, else of the earliest snapshot's."""
    try:
        return (newest_metadata(log) or log.snapshot(log.earliest_version).metadata).id
    except InspectorError:
        return None


def _needed(primary: DeltaLog) -> dict[str, int]:
    """The files retained primary versions need (data files, deletion vectors,
    checkpoints), with the first version that needs each."""
    needed = first_references(trace(primary, deep=False))
    for version, checkpoints in primary.listing.checkpoints.items():
        for checkpoint in checkpoints:
            needed.update((f"{LOG_DIR}/{f.name}", version) for f in checkpoint.files)
    return needed


def _to_copy(
    needed: Mapping[str, int],
    primary_files: Mapping[str, ObjectMeta],
    replica_files: Mapping[str, ObjectMeta],
) -> list[ReplicaFile]:
    """The needed files (path: first version) the replica lacks or has with another size,
    oldest version first (a file the primary lacks too is nothing to copy)."""
    found = []
    for path, version in needed.items():
        source, copy = primary_files.get(path), replica_files.get(path)
        if source is not None and (copy is None or copy.size != source.size):
            replica_size = copy.size if copy is not None else None
            found.append(
                ReplicaFile(version=version, path=path, size=source.size, replica_size=replica_size)
            )
    return sorted(found, key=lambda f: (f.version, f.path))
