"""Which data files differ between two versions, from the commits between them only.

Delta's log already says what changed: the net effect of the commits between
versions ``lo`` and ``hi`` on top of the state at ``lo`` is exactly the set of
files only in one of the two versions. So the cost of a diff follows the size of
the change, not the size of the table, and no Spark is needed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.delta.actions import AddFile, Metadata, Protocol, RemoveFile
from inspector.delta.errors import CorruptLog, VersionNotFound
from inspector.delta.schema import ColumnNames, logical_names, with_logical_names
from inspector.delta.text import partition_label
from inspector.diff.metadiff import MetadataDiff, diff_metadata
from inspector.log.commit import Commit, FileSummary, known_sum
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey
from inspector.table.history_time import file_time_before, history_timestamp

PartitionValues = tuple[tuple[str, "str | None"], ...]
FileActions = Sequence[AddFile | RemoveFile]


@dataclass(frozen=True, kw_only=True)
class VersionSide:
    """One side of a diff: a version and the totals of its live files."""

    version: int
    metadata: Metadata
    protocol: Protocol
    num_files: int
    size_in_bytes: int
    num_records: int | None


@dataclass(frozen=True, kw_only=True)
class FileTotals:
    """Files, bytes and records added and removed (records: None when stats are missing).

    Files are counted as Delta's ``operationMetrics`` count them: a file on both sides under
    the same path is neither added nor removed but ``deletion_vector_updates`` (its bytes in
    neither sum). Records are the live records of every file on each side (their difference
    is the net change in rows).
    """

    files_added: int = 0
    files_removed: int = 0
    deletion_vector_updates: int = 0
    bytes_added: int = 0
    bytes_removed: int = 0
    records_added: int | None = 0
    records_removed: int | None = 0


@dataclass(frozen=True, kw_only=True)
class PartitionChange:
    """What changed in one partition (``partition_values`` as sorted (column, value) pairs)."""

    partition_values: PartitionValues
    totals: FileTotals

    @property
    def label(self) -> str:
        """``col=value/col2=value2``, or ``(unpartitioned)``."""
        return partition_label(self.partition_values)


@dataclass(frozen=True, kw_only=True)
class CommitChange:
    """What one commit between the two versions contributed, in log order (adds and removes as written).

    ``timestamp`` is the version's history timestamp, the one every page shows;
    ``commit_info_timestamp`` the writer's own, shown beside it (on a copied table they differ).
    """

    version: int
    operation: str
    timestamp: int
    commit_info_timestamp: int | None
    totals: FileTotals
    changes_metadata: bool
    changes_protocol: bool


@dataclass(frozen=True, kw_only=True)
class FileDiff:
    """The difference between two versions; ``from`` and ``to`` may be in either order.

    ``only_in_to`` are the files "added" going from ``from_version`` to
    ``to_version``, ``only_in_from`` the files "removed". A file is identified by
    its path and deletion vector (``AddFile.key``), so a file whose deletion vector
    changed appears on both sides.
    """

    from_side: VersionSide
    to_side: VersionSide
    only_in_from: tuple[AddFile, ...]
    only_in_to: tuple[AddFile, ...]
    by_partition: tuple[PartitionChange, ...]
    by_commit: tuple[CommitChange, ...]
    metadata: MetadataDiff

    @property
    def from_version(self) -> int:
        return self.from_side.version

    @property
    def to_version(self) -> int:
        return self.to_side.version

    @property
    def totals(self) -> FileTotals:
        """Files, bytes and records added (only in ``to``) and removed (only in ``from``)."""
        return _totals(self.only_in_to, self.only_in_from)

    @property
    def deletion_vector_updates(self) -> int:
        """Files on both sides under the same path: only their deletion vector changed."""
        return self.totals.deletion_vector_updates

    @property
    def rewritten(self) -> int:
        """Files removed whose path is not added again: their rows left or were rewritten."""
        return len(self.only_in_from) - self.deletion_vector_updates


def diff_files(log: DeltaLog, from_version: int, to_version: int) -> FileDiff:
    """Diff two versions (``from_version`` may be the newer) by replaying only the commits
    between them on the older one.

    Raises:
        VersionNotFound: If either version is outside the log.
        CorruptLog: If the older version cannot be reconstructed or a commit in between
            is missing or unreadable.
    """
    lo, hi = sorted((from_version, to_version))
    if hi > log.latest_version:
        log.commit(hi)  # raises VersionNotFound with the table's range
    base = log.snapshot(lo)
    commits = [_commit_between(log, v, lo, hi) for v in range(lo + 1, hi + 1)]
    times = _history_times(log, base.metadata.configuration, commits)
    touched = (a.key for c in commits for a in c.actions if isinstance(a, AddFile | RemoveFile))
    gone, new, by_commit = _replay_net(base.files.subset(touched), commits, times)
    lo_side = VersionSide(
        version=lo,
        metadata=base.metadata,
        protocol=base.protocol,
        num_files=base.num_files,
        size_in_bytes=base.size_in_bytes,
        num_records=base.num_records,
    )
    hi_side = _side_after(hi, lo_side, commits, new, gone)
    if from_version <= to_version:
        sides, only_from, only_to = (lo_side, hi_side), gone, new
    else:
        sides, only_from, only_to = (hi_side, lo_side), new, gone
    return FileDiff(
        from_side=sides[0],
        to_side=sides[1],
        only_in_from=_sorted(only_from),
        only_in_to=_sorted(only_to),
        by_partition=_by_partition(only_to, only_from, logical_names(hi_side.metadata.schema)),
        by_commit=tuple(by_commit),
        metadata=diff_metadata(
            (sides[0].metadata, sides[0].protocol), (sides[1].metadata, sides[1].protocol)
        ),
    )


def _commit_between(log: DeltaLog, version: int, lo: int, hi: int) -> Commit:
    try:
        commit = log.commit(version)
    except VersionNotFound:
        commit = None
    if commit is None or not commit.is_complete:
        what = "is missing" if commit is None else "is truncated or corrupt"
        raise CorruptLog(
            f"The commit of version {version} {what}, so the change between versions "
            f"{lo} and {hi} cannot be computed.",
            "Diff versions on one side of the damage; the health check (the Health page, or "
            "`check` on the command line) shows which versions are affected.",
        )
    return commit


def _history_times(
    log: DeltaLog, config: Mapping[str, str], commits: Sequence[Commit]
) -> dict[int, int]:
    """Each commit's history timestamp, by the one timestamp rule (as the history has it)."""
    previous = file_time_before(log, commits[0].version) if commits else None
    out = {}
    for commit in commits:
        config = commit.metadata.configuration if commit.metadata is not None else config
        out[commit.version] = previous = history_timestamp(commit, config, previous)[0]
    return out


def _replay_net(
    base: Mapping[FileKey, AddFile], commits: Iterable[Commit], times: Mapping[int, int]
) -> tuple[list[AddFile], list[AddFile], list[CommitChange]]:
    """Net file changes of ``commits`` on top of ``base``: (gone from base, new since base, per commit)."""
    gone: dict[FileKey, AddFile] = {}
    new: dict[FileKey, AddFile] = {}
    per_commit = []
    for commit in commits:
        adds: list[AddFile] = []
        removes: list[AddFile | RemoveFile] = []
        for action in commit.actions:
            if isinstance(action, AddFile):
                adds.append(action)
                if gone.pop(action.key, None) is None and action.key not in base:
                    new[action.key] = action  # a later add of the same key wins, as in replay
            elif isinstance(action, RemoveFile):
                live = new.pop(action.key, None)
                if live is None and action.key in base and action.key not in gone:
                    live = gone[action.key] = base[action.key]
                removes.append(live or action)
        info = commit.commit_info
        per_commit.append(
            CommitChange(
                version=commit.version,
                operation=info.operation,
                timestamp=times[commit.version],
                commit_info_timestamp=info.timestamp,
                # files and bytes as the history counts them (the writer's metrics first)
                totals=_totals(adds, removes, commit.file_summary),
                changes_metadata=commit.metadata is not None,
                changes_protocol=commit.protocol is not None,
            )
        )
    return list(gone.values()), list(new.values()), per_commit


def _side_after(
    version: int,
    base: VersionSide,
    commits: Sequence[Commit],
    new: list[AddFile],
    gone: list[AddFile],
) -> VersionSide:
    """The newer side: the base with the commits' metadata, protocol and net file changes."""
    meta, proto = base.metadata, base.protocol
    for commit in commits:
        meta, proto = commit.metadata or meta, commit.protocol or proto
    change = _totals(new, gone)
    removed = None if change.records_removed is None else -change.records_removed
    return VersionSide(
        version=version,
        metadata=meta,
        protocol=proto,
        num_files=base.num_files + len(new) - len(gone),
        size_in_bytes=base.size_in_bytes + change.bytes_added - change.bytes_removed,
        num_records=known_sum([base.num_records, change.records_added, removed]),
    )


def _records(files: FileActions) -> int | None:
    """Live records of add actions (records of remove actions); None when any lacks stats."""
    return known_sum(
        [f.num_live_records if isinstance(f, AddFile) else f.num_records for f in files]
    )


def _totals(
    added: FileActions, removed: FileActions, summary: FileSummary | None = None
) -> FileTotals:
    """Totals by Delta's rule for files re-added under their path (:class:`FileSummary`);
    files and bytes as ``summary`` counts them, when given."""
    if summary is None:
        sizes = ([(f.path, f.size or 0) for f in files] for files in (added, removed))
        summary = FileSummary.of(*sizes, added_records=None, removed_records=None)
    return FileTotals(
        files_added=summary.num_added_files,
        files_removed=summary.num_removed_files,
        deletion_vector_updates=summary.deletion_vector_updates,
        bytes_added=summary.added_bytes,
        bytes_removed=summary.removed_bytes,
        records_added=_records(added),
        records_removed=_records(removed),
    )


def _by_partition(
    added: list[AddFile], removed: list[AddFile], names: ColumnNames
) -> tuple[PartitionChange, ...]:
    groups: dict[PartitionValues, tuple[list[Any], list[Any]]] = defaultdict(lambda: ([], []))
    for side, files in enumerate((added, removed)):
        for add in files:  # by logical column name (the log uses physical ones)
            values = tuple(sorted(with_logical_names(add.partition_values or {}, names).items()))
            groups[values][side].append(add)
    return tuple(
        PartitionChange(partition_values=p, totals=_totals(*groups[p]))
        for p in sorted(groups, key=lambda p: [(k, v is None, v or "") for k, v in p])
    )


def _sorted(files: list[AddFile]) -> tuple[AddFile, ...]:
    return tuple(sorted(files, key=lambda a: (a.path, a.key[1] or "")))
