"""A RESTORE's plan as a record: what a restore would add, remove and change, and its JSON.

:func:`inspector.restore.plan.plan_restore` makes one (read-only); executing, verifying
and auditing a restore read it. Its metrics are Delta's RESTORE metrics; what a restore
that leaves missing files out would commit is derived here too (``effective_*``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.delta.actions import AddFile, Metadata, Protocol
from inspector.delta.jsonvalue import camel_json
from inspector.delta.protocol import catalog_features
from inspector.delta.schema import logical_names
from inspector.diff.metadiff import MetadataDiff
from inspector.files.filecheck import FileIssue
from inspector.restore.audit import Attempt
from inspector.restore.delta_verdict import deltas_restore
from inspector.restore.engine import Engines, choose_engines
from inspector.restore.guards import GuardResult
from inspector.table import Table
from inspector.table.history import iso
from inspector.table.versions import file_action_record


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
        """The metrics under Delta's names."""
        return camel_json(self)

    def operation_metrics(self) -> dict[str, str]:
        """The metrics as Spark writes them into ``commitInfo``: strings."""
        return {k: str(v) for k, v in self.to_json().items()}


@dataclass(frozen=True, kw_only=True)
class RestorePlan:
    """What a restore of ``table_root`` from ``read_version`` to ``target_version`` would do.

    ``metrics`` are Delta's, for the full restore. ``file_problems`` lists at most
    ``max_listed_files`` problems; ``num_file_problems`` is exact, and
    ``problem_paths`` names every re-added file that would be left out with
    ``allow_missing_files`` (a partial table). :meth:`engines` says who reads and who
    commits, and why.
    ``table`` is the handle the plan was made on (executing and verifying use it).
    ``catalog_name`` is the table's name in a catalog (``uc://...``) when it was opened by
    name (the handle's ``name``); ``table_name``, what the operator types to confirm, is
    then its full name.
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
        """True when every guard passed (no override needed)."""
        return all(g.passed for g in self.guards)

    def guards_json(self) -> list[dict[str, Any]]:
        """Every guard's verdict as JSON (``restore --json``'s ``guards``)."""
        return [g.to_json() for g in self.guards]

    def blocking_guards(self, overrides: Collection[str] = ()) -> list[GuardResult]:
        """Failed guards that the given override keywords do not cover."""
        return [
            g
            for g in self.guards
            if not g.passed and (g.override is None or g.override not in overrides)
        ]

    @property
    def problem_adds(self) -> tuple[AddFile, ...]:
        """The re-added files that are missing or damaged: left out with ``allow_missing_files``."""
        return tuple(a for a in self.files_to_add if a.key in self.problem_paths)

    def kept_adds(self, *, allow_missing_files: bool) -> tuple[AddFile, ...]:
        """The add actions the commit writes (missing files left out when allowed)."""
        if not allow_missing_files:
            return self.files_to_add
        return tuple(a for a in self.files_to_add if a.key not in self.problem_paths)

    def effective_metrics(self, *, allow_missing_files: bool) -> RestoreMetrics:
        """The metrics of what will actually be committed."""
        dropped = self.problem_adds if allow_missing_files else ()
        if not dropped:
            return self.metrics
        size, m = sum(a.size for a in dropped), self.metrics
        return dataclasses.replace(
            m,
            num_restored_files=m.num_restored_files - len(dropped),
            restored_files_size=m.restored_files_size - size,
            num_of_files_after_restore=m.num_of_files_after_restore - len(dropped),
            table_size_after_restore=m.table_size_after_restore - size,
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
        """Who reads the rows and who commits this restore, and why."""
        return choose_engines(
            self.table_root,
            allow_missing_files=allow_missing_files and bool(self.problem_paths),
            catalog_managed=bool(catalog_features(self.current_protocol)),
        )

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract for a plan (see docs/json-contracts.md, "restore")."""
        names = logical_names((self.target_metadata or self.current_metadata).schema)
        return {
            "table": self.table_root,
            "tableName": self.table_name,
            "catalogName": self.catalog_name,
            "readVersion": self.read_version,
            "targetVersion": self.target_version,
            "targetTimestamp": iso(self.target_timestamp),
            **self.metrics.to_json(),
            "engines": self.engines().to_json(),
            "rowsBefore": self.rows_before,
            "rowsAfter": self.rows_after,
            "rowsInMissingFiles": self.rows_in_problem_files,
            "rowsAdded": self.rows_added,
            "rowsRemoved": self.rows_removed,
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
