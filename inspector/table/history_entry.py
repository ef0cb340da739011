"""One history entry per version: its commit summarised, its row figures (the one row rule,
:mod:`inspector.table.rowcounts`) and its timestamps (the one timestamp rule,
:mod:`inspector.table.history_time`), computed forward over consecutive versions; and the
history's JSON record.

The history is read page by page, newest first. Three figures depend on versions before a
page, so they are computed forward within it and finished when the older page arrives
(:func:`joined`): file-time timestamps, fixed forward from the older page's last one until
the fix changes nothing; the schema, properties and protocol changes, against the older
page's last metadata and protocol; and the rows of a commit that removed a file without
counting them, from the snapshot just before the page (page boundaries fall on
checkpoints, so that snapshot is one checkpoint, not a replay of the older page).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from inspector.delta.actions import Metadata, Protocol
from inspector.delta.jsonvalue import camel_json
from inspector.log.commit import Commit, FileSummary
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history_time import (
    PropertiesBefore,
    TimestampSource,
    VersionTimestamps,
    file_time_before,
    is_copy_problem,
    iso,
    monotonic,
    timestamps_of,
)
from inspector.table.rowrule import UNKNOWN, RowChange


class Change(StrEnum):
    """What a commit changed besides rows, marked on the Timeline."""

    SCHEMA = "schema"
    PROPERTIES = "properties"
    PROTOCOL = "protocol"
    PARTITION_OVERWRITE = "partition overwrite"
    OVERWRITE = "overwrite"


@dataclass(frozen=True, kw_only=True)
class HistoryEntry:
    """One row of the history: a version's commit summarised for people and scripts
    (``rows``: what it inserted, deleted and updated, by the one row rule)."""

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
    staged: str | None = None  # a catalog-managed table's staged commit: its status

    @property
    def timestamp(self) -> datetime:
        """The history timestamp as an aware UTC datetime."""
        return datetime.fromtimestamp(self.timestamps.history / 1000, tz=UTC)


def looks_copied(history: Sequence[HistoryEntry]) -> bool:
    """Whether the whole table looks copied or replicated, said once instead of per version:
    every version (of at least two) with a commitInfo time has the mismatch problem, and
    the file times lie closer together than those (the copy wrote them all at about once)."""
    stamped = [e for e in history if e.timestamps.commit_info is not None]
    if len(stamped) < 2 or not all(any(map(is_copy_problem, e.problems)) for e in stamped):
        return False
    files = [e.timestamps.file_modification for e in stamped]
    infos = [e.timestamps.commit_info or 0 for e in stamped]
    return max(files) - min(files) < max(infos) - min(infos)


def history_entries(
    log: DeltaLog,
    versions: list[int],
    commits: Iterator[tuple[Commit, RowChange]],
    first: int,
    gaps: Mapping[int, list[str]],
    checkpoints: Mapping[int, list[str]],
    settings: Settings,
) -> tuple[list[HistoryEntry], Edge]:
    """One entry per version, oldest first, from the versions' commits in the same order, the
    properties in force before version ``first`` read only if needed (:class:`PropertiesBefore`);
    and the page's edge (what the pages beside it need of it)."""
    tolerance_ms = settings.timestamp_tolerance_seconds * 1000
    config: Mapping[str, str] = PropertiesBefore(log, first)
    entries, previous, pending = [], None, next(commits, None)
    state: tuple[Metadata | None, Protocol | None] = (None, None)  # in force so far
    first_metadata: tuple[int, Metadata] | None = None
    first_protocol: tuple[int, Protocol] | None = None
    for version in versions:
        if pending is not None and pending[0].version == version:
            (commit, rows), pending = pending, next(commits, None)
        else:
            commit, rows = _checkpoint_only(log, version), UNKNOWN
        metadata, protocol = commit.metadata, commit.protocol  # each a scan of the actions
        if metadata is not None:
            config = metadata.configuration
            first_metadata = first_metadata or (version, metadata)
        if protocol is not None:
            first_protocol = first_protocol or (version, protocol)
        changes = commit_changes(commit, state, (metadata, protocol))
        state = (metadata or state[0], protocol or state[1])
        stamps, ts_problems = timestamps_of(commit, config, previous, tolerance_ms)
        previous = stamps.history
        problems = (
            *gaps.get(version, ()),
            *commit.problems,
            *checkpoints.get(version, ()),
            *ts_problems,
        )
        entry = _entry(commit, stamps, problems, rows, (metadata, protocol))
        entries.append(replace(entry, changes=changes) if changes else entry)
    edge = Edge(
        first_metadata=first_metadata,
        first_protocol=first_protocol,
        last_metadata=state[0],
        last_protocol=state[1],
    )
    return entries, edge


def commit_changes(
    commit: Commit,
    before: tuple[Metadata | None, Protocol | None],
    own: tuple[Metadata | None, Protocol | None],
) -> tuple[Change, ...]:
    """What a commit changed of the schema, properties, protocol, or overwrote, against the
    metadata and protocol in force ``before`` it (None: not known yet), given its ``own``
    (None: it has none)."""
    out = table_changes(before[0], own[0], before[1], own[1])
    params = commit.commit_info.operation_parameters
    if commit.commit_info.operation.upper() == "WRITE" and str(params.get("mode")) == "Overwrite":
        dynamic = str(params.get("partitionOverwriteMode", "")).upper() == "DYNAMIC"
        partial = bool(params.get("predicate")) or dynamic
        out.append(Change.PARTITION_OVERWRITE if partial else Change.OVERWRITE)
    return tuple(out)


def table_changes(
    before: Metadata | None, after: Metadata | None, was: Protocol | None, now: Protocol | None
) -> list[Change]:
    """The one rule for what a metaData and a protocol change against those in force before
    (None: not known, or not changed)."""
    out: list[Change] = []
    if before is not None and after is not None:
        if before.schema_string != after.schema_string:
            out.append(Change.SCHEMA)
        if dict(before.configuration) != dict(after.configuration):
            out.append(Change.PROPERTIES)
    if was is not None and now is not None and now != was:
        out.append(Change.PROTOCOL)
    return out


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
    commit: Commit,
    stamps: VersionTimestamps,
    problems: tuple[str, ...],
    rows: RowChange,
    own: tuple[Metadata | None, Protocol | None],
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
        changes_metadata=own[0] is not None,
        changes_protocol=own[1] is not None,
        problems=problems,
    )


@dataclass(frozen=True, kw_only=True)
class Edge:
    """What a page's neighbours need of it: its first and last metadata and protocol."""

    first_metadata: tuple[int, Metadata] | None = None
    first_protocol: tuple[int, Protocol] | None = None
    last_metadata: Metadata | None = None
    last_protocol: Protocol | None = None


def last_edge(log: DeltaLog, entries: Sequence[HistoryEntry]) -> Edge:
    """The edge kept entries end with: the metadata and protocol in force after them, read
    again from the commits that last changed them (InspectorError if one is unreadable)."""
    meta = next((e.version for e in reversed(entries) if e.changes_metadata), None)
    protocol = next((e.version for e in reversed(entries) if e.changes_protocol), None)
    return Edge(
        last_metadata=None if meta is None else log.commit(meta).metadata,
        last_protocol=None if protocol is None else log.commit(protocol).protocol,
    )


def joined(
    newer: list[HistoryEntry], older: list[HistoryEntry], newer_edge: Edge, older_edge: Edge
) -> list[HistoryEntry]:
    """The entries of newer pages finished with what the older page just read says of its
    end: the file-time rule runs on, and the newer pages' first metadata and protocol are
    compared with the older page's last (:func:`commit_changes`' rule)."""
    if not older or not newer:
        return newer
    fix_times(newer, older[-1].timestamps.history)
    for at, change in _boundary_changes(newer_edge, older_edge):
        i = bisect.bisect_left(newer, at, key=lambda e: e.version)
        merged = sorted({*newer[i].changes, change}, key=list(Change).index)
        newer[i] = replace(newer[i], changes=tuple(merged))
    return newer


def _boundary_changes(newer: Edge, older: Edge) -> Iterator[tuple[int, Change]]:
    meta, protocol = newer.first_metadata, newer.first_protocol
    if meta is not None:
        yield from ((meta[0], c) for c in table_changes(older.last_metadata, meta[1], None, None))
    if protocol is not None:
        changed = table_changes(None, None, older.last_protocol, protocol[1])
        yield from ((protocol[0], c) for c in changed)


def chain_from_before(log: DeltaLog, entries: list[HistoryEntry]) -> None:
    """Give a page read alone the file times the whole history gives it, in place: the
    file-time chain starts from the versions before the page (their commit files' times are
    listed only when the page's first version takes its time from its file)."""
    if not entries or entries[0].timestamps.source != TimestampSource.FILE_MODIFICATION_TIME:
        return
    previous = file_time_before(log, entries[0].version)
    if previous is not None:
        fix_times(entries, previous)


def fix_times(newer: list[HistoryEntry], previous: int) -> None:
    """Apply the file-time rule from ``previous`` (the history timestamp of the version before
    ``newer``), in place, until it changes nothing."""
    for i, entry in enumerate(newer):
        stamps = entry.timestamps
        if stamps.source != TimestampSource.FILE_MODIFICATION_TIME:
            return  # an in-commit timestamp starts the chain afresh
        history = monotonic(stamps.file_modification, previous)
        if history == stamps.history:
            return  # from here on the chain is what the newer page computed
        newer[i] = replace(entry, timestamps=replace(stamps, history=history))
        previous = history


def history_record(entry: HistoryEntry) -> dict[str, Any]:
    """The CLI's JSON contract for one history entry (see docs/json-contracts.md, "history")."""
    stamps = entry.timestamps
    history = iso(stamps.history)
    same: dict[int | None, str | None] = {stamps.history: history}  # mostly one of the others
    return {
        "version": entry.version,
        "timestamp": history,
        "timestampSource": str(stamps.source),
        "commitInfoTimestamp": same.get(stamps.commit_info) or iso(stamps.commit_info),
        "inCommitTimestamp": same.get(stamps.in_commit) or iso(stamps.in_commit),
        "fileModificationTime": same.get(stamps.file_modification) or iso(stamps.file_modification),
        "operation": entry.operation,
        "operationParameters": dict(entry.operation_parameters),
        "operationMetrics": dict(entry.operation_metrics),
        "userName": entry.user,
        "engineInfo": entry.engine_info,
        **camel_json(entry, "read_version", "isolation_level", "is_blind_append", "user_metadata"),
        "numAddedFiles": entry.files.num_added_files,
        "numRemovedFiles": entry.files.num_removed_files,
        "numDeletionVectorUpdates": entry.files.deletion_vector_updates,
        "numAddActions": entry.files.add_actions,
        "numRemoveActions": entry.files.remove_actions,
        **camel_json(entry.files, "added_bytes", "removed_bytes"),
        **entry.rows.history_json(),
        "problems": list(entry.problems),
        "staged": entry.staged,
    }
