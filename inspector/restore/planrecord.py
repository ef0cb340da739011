"""A RESTORE's plan as a record: what it would add, remove and change, who would commit it,
and what Delta's own RESTORE would do with it.

Made by :func:`inspector.restore.plan.plan_restore`; what a restore that leaves missing
files out would commit is derived here too (``effective_*``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from inspector.delta.actions import AddFile, Metadata, Protocol
from inspector.delta.jsonvalue import camel_json
from inspector.delta.protocol import catalog_features
from inspector.delta.schema import logical_names
from inspector.diff.metadiff import MetadataDiff
from inspector.files.filecheck import FileIssue, FileRole, FileState
from inspector.restore.audit import Attempt
from inspector.restore.guards import GuardName, GuardResult
from inspector.storage import parse_location
from inspector.table import Table
from inspector.table.history_time import iso
from inspector.table.versions import file_action_record


class Engine(StrEnum):
    """An engine that reads or commits (the names ``restore --json`` reports)."""

    DELTA = "delta-spark"
    OWN = "delta-inspector"
    CATALOG = "catalog"  # a catalog-managed table: only its catalog commits


@dataclass(frozen=True, kw_only=True)
class Engines:
    """Who writes the commit of a restore, and why (Delta Lake always reads the rows)."""

    commit: Engine
    why: str

    def to_json(self) -> dict[str, str]:
        return {"read": str(Engine.DELTA), **camel_json(self)}

    def describe(self) -> str:
        names = {Engine.DELTA: "Delta Lake", Engine.OWN: "Delta Inspector"}
        names[Engine.CATALOG] = "only the table's catalog"
        return f"Delta Lake reads, {names[self.commit]} commits: {self.why}"


class DeltaOutcome(StrEnum):
    """What Delta's RESTORE would do."""

    COMMITS = "commits"  # the commit the plan describes
    REFUSES = "refuses"  # fails before writing
    COMMITS_UNREADABLE = "commits-unreadable"  # commits, and the restored version is unreadable


@dataclass(frozen=True, kw_only=True)
class DeltaVerdict:
    """Delta's RESTORE on this plan: its outcome, why, and the files that decide it."""

    outcome: DeltaOutcome
    reason: str
    paths: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)


_REFUSING_GUARDS = {
    GuardName.TARGET_VERSION: "the target is not an older version it can reconstruct",
    GuardName.COLUMN_MAPPING: "it does not allow this change of the column mapping mode",
}


def deltas_restore(guards: Sequence[GuardResult], problems: Sequence[FileIssue]) -> DeltaVerdict:
    """What Delta 4.4's own RESTORE would do with a plan, from its guards and the problems of
    the files to re-add (for people: the guards still decide). Delta checks only that data
    files exist (``checkSnapshotFilesAvailability``): a truncated file or a missing deletion
    vector is re-added, and the restored version cannot be read."""
    for guard in guards:
        if not guard.passed and guard.name in _REFUSING_GUARDS:
            return DeltaVerdict(
                outcome=DeltaOutcome.REFUSES,
                reason=f"Delta's RESTORE refuses: {_REFUSING_GUARDS[guard.name]}.",
            )
    missing = [
        p.path for p in problems if p.role is FileRole.DATA_FILE and p.state is FileState.MISSING
    ]
    if missing:
        return DeltaVerdict(
            outcome=DeltaOutcome.REFUSES,
            reason=f"Delta's RESTORE refuses: {len(missing)} data files it would re-add do not "
            "exist (it stops at the first, before writing).",
            paths=tuple(missing),
        )
    if problems:
        return DeltaVerdict(
            outcome=DeltaOutcome.COMMITS_UNREADABLE,
            reason=f"Delta's RESTORE would commit: it checks only that data files exist, so "
            f"{len(problems)} files of another size or missing deletion vectors would be "
            "re-added and the restored version could not be read.",
            paths=tuple(p.path for p in problems),
        )
    return DeltaVerdict(
        outcome=DeltaOutcome.COMMITS, reason="Delta's RESTORE would commit this plan."
    )


@dataclass(frozen=True, kw_only=True)
class RestoreMetrics:
    """Delta's RESTORE metrics (``operationMetrics`` of the commit, as numbers)."""

    num_restored_files: int
    restored_files_size: int
    num_removed_files: int
    removed_files_size: int
    num_of_files_after_restore: int
    table_size_after_restore: int

    @classmethod
    def of(
        cls,
        adds: Collection[AddFile],
        removes: Collection[AddFile],
        *,
        files_after: int,
        bytes_after: int,
    ) -> RestoreMetrics:
        """The metrics of a restore that re-adds ``adds`` and removes ``removes``, leaving
        ``files_after`` files of ``bytes_after`` bytes."""
        return cls(
            num_restored_files=len(adds),
            restored_files_size=sum(a.size for a in adds),
            num_removed_files=len(removes),
            removed_files_size=sum(a.size for a in removes),
            num_of_files_after_restore=files_after,
            table_size_after_restore=bytes_after,
        )

    def to_json(self) -> dict[str, int]:
        return camel_json(self)

    def operation_metrics(self) -> dict[str, str]:
        """The metrics as Spark writes them into ``commitInfo``: strings."""
        return {k: str(v) for k, v in self.to_json().items()}


@dataclass(frozen=True, kw_only=True)
class RestorePlan:
    """What a restore of ``table_root`` from ``read_version`` to ``target_version`` would do.

    ``metrics`` are Delta's, for the full restore. ``file_problems`` lists at most
    ``max_listed_files`` problems; ``problem_paths`` names every one (left out with
    ``allow_missing_files``).
    """

    table: Table = field(compare=False, repr=False)
    table_root: str
    table_name: str
    catalog_name: str | None = None
    read_version: int
    target_version: int
    target_timestamp: int | None
    requested_timestamp: str | None
    metrics: RestoreMetrics
    rows_before: int | None
    current_metadata: Metadata
    current_protocol: Protocol
    guards: tuple[GuardResult, ...]
    # Empty when the target cannot be restored (the plan is only its refusal):
    files_to_add: tuple[AddFile, ...] = ()
    files_to_remove: tuple[AddFile, ...] = ()
    rows_after: int | None = None
    rows_added: int | None = None
    rows_removed: int | None = None
    target_metadata: Metadata | None = None
    target_protocol: Protocol | None = None
    merged_protocol: Protocol | None = None
    metadata_diff: MetadataDiff | None = None
    domain_metadata: tuple[Mapping[str, Any], ...] = ()
    partitions_touched: tuple[Mapping[str, str | None], ...] = ()
    num_partitions_touched: int = 0
    file_problems: tuple[FileIssue, ...] = ()
    num_file_problems: int = 0
    problem_paths: frozenset[tuple[str, str | None]] = frozenset()
    warnings: tuple[str, ...] = ()

    def attempt(self, *, reason: str | None = None, operator: str | None = None) -> Attempt:
        """What the audit log records of every attempt on this plan."""
        return Attempt(
            table=self.table_root,
            name=self.catalog_name,
            from_version=self.read_version,
            to_version=self.target_version,
            to_timestamp=self.requested_timestamp,
            reason=reason,
            operator=operator,
        )

    @property
    def is_refusal(self) -> bool:
        """The target cannot be restored at all (no such version, or unreadable): the plan is
        only its refusal, with nothing to add, remove or confirm."""
        return self.target_metadata is None

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.guards)

    def guards_json(self) -> list[dict[str, Any]]:
        return [g.to_json() for g in self.guards]

    def blocking_guards(self, overrides: Collection[str] = ()) -> list[GuardResult]:
        return [g for g in self.guards if not g.passed and g.override not in overrides]

    @property
    def problem_adds(self) -> tuple[AddFile, ...]:
        """The re-added files that are missing or damaged: left out with ``allow_missing_files``."""
        return tuple(a for a in self.files_to_add if a.key in self.problem_paths)

    def kept_adds(self, *, allow_missing_files: bool) -> tuple[AddFile, ...]:
        if not allow_missing_files:
            return self.files_to_add
        return tuple(a for a in self.files_to_add if a.key not in self.problem_paths)

    def effective_metrics(self, *, allow_missing_files: bool) -> RestoreMetrics:
        dropped, m = self.problem_adds if allow_missing_files else (), self.metrics
        return RestoreMetrics.of(
            self.kept_adds(allow_missing_files=allow_missing_files),
            self.files_to_remove,
            files_after=m.num_of_files_after_restore - len(dropped),
            bytes_after=m.table_size_after_restore - sum(a.size for a in dropped),
        )

    @property
    def rows_in_problem_files(self) -> int:
        """Live rows (by stats) of the re-added files that are missing or damaged: rows
        the table would not have after a restore that leaves those files out."""
        return sum(a.num_live_records or 0 for a in self.problem_adds)

    def effective_rows_after(self, *, allow_missing_files: bool) -> int | None:
        """Rows after the restore as it will be committed (missing files left out when allowed)."""
        if self.rows_after is None or not allow_missing_files:
            return self.rows_after
        return self.rows_after - self.rows_in_problem_files

    def engines(self, *, allow_missing_files: bool = False) -> Engines:
        """Who commits this restore, and why (docs/restore.md)."""
        if catalog_features(self.current_protocol):
            return Engines(
                commit=Engine.CATALOG,
                why="the table is catalog-managed; this restore is refused (not_catalog_managed).",
            )
        if not parse_location(self.table_root).is_local:
            return Engines(
                commit=Engine.OWN,
                why="on an object store Delta's default LogStore is safe for one Spark driver "
                "only; Delta Inspector's writer commits with the store's create-if-absent.",
            )
        if allow_missing_files and self.problem_paths:
            return Engines(
                commit=Engine.OWN,
                why="Delta's RESTORE would re-add the missing files; only Delta Inspector's "
                "writer leaves them out.",
            )
        return Engines(commit=Engine.DELTA, why="a local table: Delta's own RESTORE commits.")

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract for a plan (see docs/json-contracts.md, "restore")."""
        names = logical_names((self.target_metadata or self.current_metadata).schema)
        return {
            "table": self.table_root,
            **camel_json(self, "table_name", "catalog_name", "read_version", "target_version"),
            "targetTimestamp": iso(self.target_timestamp),
            **self.metrics.to_json(),
            "engines": self.engines().to_json(),
            **camel_json(self, "rows_before", "rows_after"),
            "rowsInMissingFiles": self.rows_in_problem_files,
            **camel_json(self, "rows_added", "rows_removed"),
            "filesToAdd": [file_action_record(a, names) for a in self.files_to_add],
            "filesToRemove": [file_action_record(a, names) for a in self.files_to_remove],
            "partitionsTouched": [dict(p) for p in self.partitions_touched],
            "numPartitionsTouched": self.num_partitions_touched,
            "schemaChanges": self.metadata_diff.to_json() if self.metadata_diff else None,
            "protocolAfterRestore": dict(self.merged_protocol.raw)
            if self.merged_protocol
            else None,
            "missingFiles": [p.to_json() for p in self.file_problems],
            "numMissingFiles": self.num_file_problems,
            "deltaRestore": deltas_restore(self.guards, self.file_problems).to_json(),
            "warnings": list(self.warnings),
        }
