"""The table's history (like DESCRIBE HISTORY), with every timestamp a version has.

One entry per version: the commit summarised, its row figures (the one row rule) and its
timestamps (the one timestamp rule, :mod:`inspector.table.history_time`). The whole history
is read oldest first here, its commits in bulk (:mod:`inspector.table.history_scan`);
:mod:`inspector.table.history_pages` reads it newest first, a page at a time (the app's
Timeline).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from inspector.delta.actions import Metadata, Protocol
from inspector.delta.errors import InspectorError
from inspector.log.commit import Commit, FileSummary
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import LogListing
from inspector.log.tablemeta import metadata_at
from inspector.settings import Settings
from inspector.table.history_scan import collector_paused, scan_commits
from inspector.table.history_time import (
    COPY_PROBLEM,
    TIME_RULE,
    TimestampSource,
    VersionTimestamps,
    file_time_before,
    is_copy_problem,
    iso,
    ms_to_datetime,
    timestamps_of,
)
from inspector.table.rowcounts import UNKNOWN, RowChange, rows_along

__all__ = [  # the timestamp rule's names, long imported from here
    "COPY_PROBLEM",
    "TIME_RULE",
    "Change",
    "HistoryEntry",
    "TimestampSource",
    "VersionTimestamps",
    "build_history",
    "history_page",
    "history_record",
    "is_copy_problem",
    "iso",
    "looks_copied",
    "ms_to_datetime",
    "readable",
]


class Change(StrEnum):
    """What a commit changed besides rows, marked on the Timeline."""

    SCHEMA = "schema"
    PROPERTIES = "properties"
    PROTOCOL = "protocol"
    PARTITION_OVERWRITE = "partition overwrite"
    OVERWRITE = "overwrite"


@dataclass(frozen=True, kw_only=True)
class HistoryEntry:
    """One row of the history: a version's commit summarised for people and scripts.

    ``files`` counts the files added and removed, their bytes and records; ``rows`` is
    what the commit inserted, deleted and updated (the one row rule,
    :mod:`inspector.table.rowcounts`), which every page and the CLI show.
    """

    version: int
    timestamps: VersionTimestamps
    operation: str
    operation_parameters: Mapping[str, Any]
    operation_metrics: Mapping[str, Any]
    user: str | None
    engine_info: str | None
    read_version: int | None
    isolation_level: str | None
    is_blind_append: bool | None
    user_metadata: str | None
    files: FileSummary
    rows: RowChange
    changes_metadata: bool
    changes_protocol: bool
    problems: tuple[str, ...]
    changes: tuple[Change, ...] = ()

    @property
    def timestamp(self) -> datetime:
        """The history timestamp as an aware UTC datetime."""
        return ms_to_datetime(self.timestamps.history)


def looks_copied(history: Sequence[HistoryEntry]) -> bool:
    """Whether the whole table looks copied or replicated, said once instead of per version.

    True when there are at least two versions, every version with a commitInfo time
    has the mismatch problem, and the commit files' modification times lie closer
    together than the commitInfo times (the copy wrote them all at about once).
    """
    stamped = [e for e in history if e.timestamps.commit_info is not None]
    if len(stamped) < 2 or not all(any(map(is_copy_problem, e.problems)) for e in stamped):
        return False
    files = [e.timestamps.file_modification for e in stamped]
    infos = [e.timestamps.commit_info or 0 for e in stamped]
    return max(files) - min(files) < max(infos) - min(infos)


def history_page(
    log: DeltaLog, settings: Settings, *, limit: int, newest: int | None = None
) -> list[HistoryEntry]:
    """The newest ``limit`` versions at or below ``newest`` (default: the latest), oldest first.

    Reads only those commits (as ``DESCRIBE HISTORY ... LIMIT n`` does), listed from the
    newest checkpoint on when that reaches back far enough. The table's properties, for
    in-commit timestamps, are read (from the snapshot at ``newest``) only when a commit of
    the page carries one. As in Delta, file-time timestamps are made monotonic within the
    page; checkpoint problems are those found so far (``history`` without a limit, and
    ``check``, compare checkpoints with their commits).

    Args:
        log: An opened log.
        settings: For ``timestamp_tolerance_seconds``.
        limit: How many versions.
        newest: The newest version of the page.

    Returns:
        Up to ``limit`` entries, oldest first.
    """
    top = log.latest_version if newest is None else newest
    versions = _page_versions(log.tail, top, limit)
    if versions is None:
        versions = _page_versions(log.listing, top, limit) or []
    commits = log.read_commits(versions)
    config: Mapping[str, str] = {}
    if any(c.commit_info.in_commit_timestamp is not None for c in commits):
        config = configuration_at(log, top)
    gaps = gap_problems(log, versions, whole=False)
    found = log.replay_problems()
    return history_entries(
        log,
        versions,
        rows_along(log, iter(commits)),
        config,
        gaps,
        found,
        settings,
        previous=_time_before(log, versions, commits),
    )


def _time_before(log: DeltaLog, versions: list[int], commits: list[Commit]) -> int | None:
    """The history timestamp just before a page, as the whole history has it (listing the
    whole log only when a commit of the page takes its time from its file)."""
    if not versions or all(c.commit_info.in_commit_timestamp is not None for c in commits):
        return None
    listing = log.tail if log.tail.is_whole else log.listing
    return file_time_before(listing.commits, versions[0])


def _page_versions(listing: LogListing, top: int, limit: int) -> list[int] | None:
    """The newest ``limit`` versions at or below ``top`` in a listing; None when a listing
    that starts at a checkpoint does not reach back far enough."""
    if limit <= 0:
        return []
    listed = sorted(v for v in {*listing.commits, *listing.checkpoints} if v <= top)
    page = listed[-limit:]
    if not listing.is_whole and len(page) < limit:
        return None
    return page


def configuration_at(log: DeltaLog, version: int) -> Mapping[str, str]:
    """The table properties at a version ({} when its state cannot be read)."""
    try:
        return metadata_at(log, version).configuration
    except InspectorError:  # unreadable: timestamps fall back to file times
        return {}


def build_history(
    log: DeltaLog, settings: Settings, *, verify_all_checkpoints: bool = False
) -> list[HistoryEntry]:
    """The history of every version with a commit file or a checkpoint, oldest first.

    A version whose commit expired but whose checkpoint remains gets an entry
    (operation ``UNKNOWN``) saying so: its state is readable, its changes are not.

    Args:
        log: An opened log.
        settings: For ``timestamp_tolerance_seconds``.
        verify_all_checkpoints: Compare every checkpoint with its commits; by
            default only the newest is (the others get a cheap structural check).

    Returns:
        One entry per version, with problems from parsing, gaps, checkpoints and timestamps.
    """
    with collector_paused():
        listing = log.listing
        versions = sorted(set(listing.commits) | set(listing.checkpoints))
        first = {c.version: c for c in log.read_commits(versions[:1])}
        config = _initial_configuration(log, first, versions)
        gaps = gap_problems(log, versions)
        checkpoints = log.checkpoint_problems(verify_all=verify_all_checkpoints)
        # Commits are read a slice at a time and not kept: one slice is in memory, not the log.
        stream = scan_commits(log, versions)
        return history_entries(log, versions, stream, config, gaps, checkpoints, settings)


def history_entries(
    log: DeltaLog,
    versions: list[int],
    commits: Iterator[tuple[Commit, RowChange]],
    config: Mapping[str, str],
    gaps: Mapping[int, list[str]],
    checkpoints: Mapping[int, list[str]],
    settings: Settings,
    *,
    previous: int | None = None,
) -> list[HistoryEntry]:
    """One entry per version, oldest first, from the versions' commits in the same order
    (``previous``: the history timestamp of the version before the first, if known)."""
    tolerance_ms = settings.timestamp_tolerance_seconds * 1000
    entries, pending = [], next(commits, None)
    state: list[Metadata | Protocol | None] = [None, None]  # the metadata and protocol so far
    for version in versions:
        if pending is not None and pending[0].version == version:
            (commit, rows), pending = pending, next(commits, None)
        else:
            commit, rows = _checkpoint_only(log, version), UNKNOWN
        changes = commit_changes(commit, state)
        if commit.metadata is not None:
            config = commit.metadata.configuration
        stamps, ts_problems = timestamps_of(commit, config, previous, tolerance_ms)
        previous = stamps.history
        problems = (
            *gaps.get(version, ()),
            *commit.problems,
            *checkpoints.get(version, ()),
            *ts_problems,
        )
        entry = _entry(commit, stamps, problems, rows)
        entries.append(replace(entry, changes=changes) if changes else entry)
    return entries


def commit_changes(commit: Commit, state: list[Metadata | Protocol | None]) -> tuple[Change, ...]:
    """What a commit changed of the schema, properties, protocol, or overwrote.

    Args:
        commit: The commit.
        state: ``[metadata, protocol]`` in force before it (None: not known yet); updated.
    """
    out: list[Change] = []
    before, after = state[0], commit.metadata
    if isinstance(before, Metadata) and after is not None:
        if before.schema_string != after.schema_string:
            out.append(Change.SCHEMA)
        if dict(before.configuration) != dict(after.configuration):
            out.append(Change.PROPERTIES)
    protocol = commit.protocol
    if state[1] is not None and protocol is not None and protocol != state[1]:
        out.append(Change.PROTOCOL)
    state[0] = after or before
    state[1] = protocol or state[1]
    params = commit.commit_info.operation_parameters
    if commit.commit_info.operation.upper() == "WRITE" and str(params.get("mode")) == "Overwrite":
        dynamic = str(params.get("partitionOverwriteMode", "")).upper() == "DYNAMIC"
        partial = bool(params.get("predicate")) or dynamic
        out.append(Change.PARTITION_OVERWRITE if partial else Change.OVERWRITE)
    return tuple(out)


def readable(mapping: Mapping[str, Any] | None) -> str:
    """operationParameters or operationMetrics as ``key: value`` text, JSON in values unwrapped
    (``partitionBy: region · mode: Overwrite``), for the Timeline's hover and History table."""
    return " · ".join(f"{k}: {_plain(v)}" for k, v in (mapping or {}).items())


def _plain(value: Any) -> str:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            value = json.loads(value)
        except ValueError:
            return str(value)
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) or "[]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def _checkpoint_only(log: DeltaLog, version: int) -> Commit:
    """A stand-in commit for a version that has only a checkpoint (no actions, its file times)."""
    checkpoint = log.listing.checkpoints[version][0]
    return Commit(
        version=version,
        file=checkpoint.files[0],
        parsed=(),
        problems=(
            "Only the checkpoint of this version remains: its commit file is gone (log retention, "
            "or an incomplete copy), so the table's state at this version is known but not what "
            "the commit changed.",
        ),
    )


def _initial_configuration(
    log: DeltaLog, commits: Mapping[int, Commit], versions: list[int]
) -> Mapping[str, str]:
    """Table properties in force before the first listed version (from a checkpoint)."""
    first = versions[0] if versions else 0
    if first == 0 or (first in commits and commits[first].metadata is not None):
        return {}
    for version in (first - 1, first):
        try:
            return log.snapshot(version).metadata.configuration
        except InspectorError:  # expired or unreadable: timestamps fall back to file times
            continue
    return {}


def gap_problems(log: DeltaLog, versions: list[int], *, whole: bool = True) -> dict[int, list[str]]:
    """Problems of the versions after a gap in the listed ``versions`` (and, with ``whole``,
    of the first version when the log does not reach back to version 0)."""
    problems: dict[int, list[str]] = {}
    for before, after in zip(versions, versions[1:], strict=False):
        if after - before > 1:
            missing = f"{before + 1}" if after - before == 2 else f"{before + 1}..{after - 1}"
            problems.setdefault(after, []).append(
                f"The commit files for version {missing} are missing (a gap in the log); "
                "versions after the gap can only be read from a later checkpoint."
            )
    if whole and versions and versions[0] > 0:
        problems.setdefault(versions[0], []).append(
            f"Commits before version {versions[0]} are not in the log (expired by log retention, "
            f"or not copied); the earliest readable version is {log.earliest_version}."
        )
    return problems


def _entry(
    commit: Commit, stamps: VersionTimestamps, problems: tuple[str, ...], rows: RowChange
) -> HistoryEntry:
    info = commit.commit_info
    return HistoryEntry(
        version=commit.version,
        timestamps=stamps,
        operation=info.operation,
        operation_parameters=info.operation_parameters,
        operation_metrics=info.operation_metrics,
        user=info.user,
        engine_info=info.engine_info,
        read_version=info.read_version,
        isolation_level=info.raw.get("isolationLevel"),
        is_blind_append=info.raw.get("isBlindAppend"),
        user_metadata=info.raw.get("userMetadata"),
        files=commit.file_summary,
        rows=rows,
        changes_metadata=commit.metadata is not None,
        changes_protocol=commit.protocol is not None,
        problems=problems,
    )


def history_record(entry: HistoryEntry) -> dict[str, Any]:
    """The CLI's JSON contract for one history entry (see docs/json-contracts.md, "history")."""
    return {
        "version": entry.version,
        "timestamp": iso(entry.timestamps.history),
        "timestampSource": str(entry.timestamps.source),
        "commitInfoTimestamp": iso(entry.timestamps.commit_info),
        "inCommitTimestamp": iso(entry.timestamps.in_commit),
        "fileModificationTime": iso(entry.timestamps.file_modification),
        "operation": entry.operation,
        "operationParameters": dict(entry.operation_parameters),
        "operationMetrics": dict(entry.operation_metrics),
        "userName": entry.user,
        "engineInfo": entry.engine_info,
        "readVersion": entry.read_version,
        "isolationLevel": entry.isolation_level,
        "isBlindAppend": entry.is_blind_append,
        "userMetadata": entry.user_metadata,
        "numAddedFiles": entry.files.num_added_files,
        "numRemovedFiles": entry.files.num_removed_files,
        "numDeletionVectorUpdates": entry.files.deletion_vector_updates,
        "numAddActions": entry.files.add_actions,
        "numRemoveActions": entry.files.remove_actions,
        "addedBytes": entry.files.added_bytes,
        "removedBytes": entry.files.removed_bytes,
        **entry.rows.history_json(),
        "problems": list(entry.problems),
    }
