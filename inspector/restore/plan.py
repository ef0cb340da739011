"""Planning a RESTORE: a read-only dry run that says exactly what a restore would do.

The file lists are compared on Spark as Delta's ``RestoreTableCommand`` does: the
target's files missing from the current version are re-added, the current files
missing from the target are removed, with a file's identity being its path plus
its deletion vector (so a file whose deletion vector changed is swapped, not kept).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from inspector.delta.actions import AddFile, Metadata, Protocol
from inspector.delta.errors import InspectorError, InvalidInput
from inspector.delta.paths import data_file_path
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey, Snapshot
from inspector.restore.audit import record_attempt
from inspector.restore.guards import (
    GuardResult,
    append_only_guard,
    column_mapping_guard,
    features_guard,
    files_guard,
    managed_guard,
    protocol_guard,
    row_tracking_guard,
    target_guard,
    unchanged_guard,
)
from inspector.restore.plan_warnings import restore_warnings
from inspector.restore.protocol import merge_protocols, writer_features
from inspector.settings import Settings
from inspector.views.history import build_history, iso
from inspector.views.metadiff import MetadataDiff, diff_metadata
from inspector.views.versions import file_action_record

CLUSTERING_DOMAIN = "delta.clustering"
_EMPTY_CLUSTERING = '{"clusteringColumns":[]}'


@dataclass(frozen=True)
class RestoreMetrics:
    """Delta's RESTORE metrics (``operationMetrics`` of the commit, as numbers)."""

    num_restored_files: int
    restored_files_size: int
    num_removed_files: int
    removed_files_size: int
    num_of_files_after_restore: int
    table_size_after_restore: int

    def to_json(self) -> dict[str, int]:
        """The metrics under Delta's names."""
        return {
            "numRestoredFiles": self.num_restored_files,
            "restoredFilesSize": self.restored_files_size,
            "numRemovedFiles": self.num_removed_files,
            "removedFilesSize": self.removed_files_size,
            "numOfFilesAfterRestore": self.num_of_files_after_restore,
            "tableSizeAfterRestore": self.table_size_after_restore,
        }

    def operation_metrics(self) -> dict[str, str]:
        """The metrics as Spark writes them into ``commitInfo``: strings."""
        return {k: str(v) for k, v in self.to_json().items()}


@dataclass(frozen=True)
class FileProblem:
    """A file the restore needs that is missing or smaller/larger than the log records.

    ``kind`` is ``missing``, ``truncated`` (size differs), ``dv_missing`` or
    ``dv_truncated`` (for the file's deletion vector); ``key`` is the (path,
    deletion-vector id) identity of the add action the problem belongs to.
    """

    path: str
    kind: str
    expected_size: int
    actual_size: int | None
    local_path: str
    key: tuple[str, str | None] = ("", None)  # identity of the add it belongs to

    def to_json(self) -> dict[str, Any]:
        """The JSON form listed in guard details and ``missingFiles``."""
        return {
            "path": self.path,
            "kind": self.kind,
            "expectedSize": self.expected_size,
            "actualSize": self.actual_size,
            "localPath": self.local_path,
        }


@dataclass(frozen=True)
class RestorePlan:
    """What a restore of ``table_root`` from ``read_version`` to ``target_version`` would do.

    ``metrics`` are Delta's, for the full restore. ``file_problems`` lists at most
    ``max_listed_files`` problems; ``num_file_problems`` is exact, and
    ``problem_paths`` names every re-added file that would be left out with
    ``allow_missing_files`` (a partial table). ``delta_jars`` records whether the
    Spark session that made the plan has Delta's jars (then Delta's RESTORE commits).
    """

    table_root: str
    table_name: str
    read_version: int
    target_version: int
    target_timestamp: int | None
    requested_timestamp: str | None
    files_to_add: tuple[AddFile, ...]
    files_to_remove: tuple[AddFile, ...]
    metrics: RestoreMetrics
    rows_before: int | None
    rows_after: int | None
    rows_added: int | None
    rows_removed: int | None
    current_metadata: Metadata
    current_protocol: Protocol
    target_metadata: Metadata | None
    target_protocol: Protocol | None
    merged_protocol: Protocol | None
    metadata_diff: MetadataDiff | None
    domain_metadata: tuple[Mapping[str, Any], ...]
    partitions_touched: tuple[Mapping[str, str | None], ...]
    num_partitions_touched: int
    file_problems: tuple[FileProblem, ...]
    num_file_problems: int
    problem_paths: frozenset[tuple[str, str | None]]
    guards: tuple[GuardResult, ...]
    warnings: tuple[str, ...]
    delta_jars: bool = False
    planned_at: int = field(default_factory=lambda: int(time.time() * 1000))

    @property
    def passed(self) -> bool:
        """True when every guard passed (no override needed)."""
        return all(g.passed for g in self.guards)

    def blocking_guards(self, overrides: Sequence[str] = ()) -> list[GuardResult]:
        """Failed guards that the given override keywords do not cover."""
        return [
            g
            for g in self.guards
            if not g.passed and (g.override is None or g.override not in overrides)
        ]

    def kept_adds(self, *, allow_missing_files: bool) -> tuple[AddFile, ...]:
        """The add actions the commit writes (missing files left out when allowed)."""
        if not allow_missing_files:
            return self.files_to_add
        return tuple(a for a in self.files_to_add if a.key not in self.problem_paths)

    def effective_metrics(self, *, allow_missing_files: bool) -> RestoreMetrics:
        """The metrics of what will actually be committed."""
        if not allow_missing_files or not self.problem_paths:
            return self.metrics
        dropped = [a for a in self.files_to_add if a.key in self.problem_paths]
        size = sum(a.size for a in dropped)
        m = self.metrics
        return RestoreMetrics(
            m.num_restored_files - len(dropped),
            m.restored_files_size - size,
            m.num_removed_files,
            m.removed_files_size,
            m.num_of_files_after_restore - len(dropped),
            m.table_size_after_restore - size,
        )

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract for a plan (see docs/json-contracts.md, "restore")."""
        return {
            "table": self.table_root,
            "tableName": self.table_name,
            "readVersion": self.read_version,
            "targetVersion": self.target_version,
            "targetTimestamp": iso(self.target_timestamp),
            **self.metrics.to_json(),
            "rowsBefore": self.rows_before,
            "rowsAfter": self.rows_after,
            "rowsAdded": self.rows_added,
            "rowsRemoved": self.rows_removed,
            "filesToAdd": [file_action_record(a) for a in self.files_to_add],
            "filesToRemove": [file_action_record(a) for a in self.files_to_remove],
            "partitionsTouched": [dict(p) for p in self.partitions_touched],
            "numPartitionsTouched": self.num_partitions_touched,
            "schemaChanges": _diff_json(self.metadata_diff),
            "protocolAfterRestore": dict(self.merged_protocol.raw)
            if self.merged_protocol
            else None,
            "missingFiles": [p.to_json() for p in self.file_problems],
            "numMissingFiles": self.num_file_problems,
            "warnings": list(self.warnings),
        }


def plan_restore(
    log: DeltaLog,
    target: int | datetime | str,
    *,
    settings: Settings | None = None,
    spark: Any = None,
) -> RestorePlan:
    """Make a restore plan (a dry run): what would change, and every guard's verdict.

    Args:
        log: The table's log (refreshed first, so the plan is made on the latest version).
        target: The version to restore, or a timestamp (datetime or ISO text); a
            timestamp means the last version committed at or before it, as in Delta.
        settings: For ``max_listed_files``, ``check_workers`` and ``audit_log``.
        spark: The SparkSession to compare file lists on; started when None.

    Returns:
        The plan. Nothing is written to the table; the attempt is recorded in the audit log.

    Raises:
        InvalidInput: If the target is not a version or a timestamp.
        TimestampOutOfRange: If a timestamp is outside the table's history.
        CorruptLog: If the current version cannot be reconstructed.
    """
    settings = settings or Settings.from_env()
    log.refresh()
    current = log.snapshot()
    version, requested = _resolve_target(log, target)
    target_snap, error = _target_snapshot(log, version)
    if target_snap is None or version >= current.version:
        plan = _refused_plan(log, current, version, requested, error)
    else:
        plan = _full_plan(log, current, target_snap, requested, settings, spark)
    record_attempt(
        settings.audit_log,
        table=plan.table_root,
        outcome="planned",
        from_version=plan.read_version,
        to_version=plan.target_version,
        details={"guardsPassed": plan.passed, **plan.metrics.to_json()},
    )
    return plan


def _resolve_target(log: DeltaLog, target: int | datetime | str) -> tuple[int, str | None]:
    if isinstance(target, bool):
        raise InvalidInput(
            f"'{target}' is not a version or a timestamp.",
            "Give a version number or a timestamp such as 2024-05-01T12:00:00Z.",
        )
    if isinstance(target, int):
        return target, None
    from inspector.views import timetravel

    when = timetravel.parse_timestamp(target) if isinstance(target, str) else target
    return timetravel.version_at_timestamp(log, when), _delta_timestamp_text(when)


def _delta_timestamp_text(when: datetime) -> str:
    """The timestamp as Delta records it in operationParameters (``yyyy-MM-dd HH:mm:ss.SSS``)."""
    return when.strftime("%Y-%m-%d %H:%M:%S.") + f"{when.microsecond // 1000:03d}"


def _target_snapshot(log: DeltaLog, version: int) -> tuple[Snapshot | None, str | None]:
    try:
        return log.snapshot(version), None
    except InspectorError as exc:
        return None, str(exc)


def _refused_plan(
    log: DeltaLog, current: Snapshot, version: int, requested: str | None, error: str | None
) -> RestorePlan:
    """A plan for a target that cannot be restored: nothing to do, and the reason as a guard."""
    guard = target_guard(current.version, version, log.earliest_version, error)
    empty = RestoreMetrics(0, 0, 0, 0, current.num_files, current.size_in_bytes)
    return RestorePlan(
        current.table_root,
        table_name(current),
        current.version,
        version,
        _history_ms(log, version),
        requested,
        (),
        (),
        empty,
        current.num_records,
        None,
        None,
        None,
        current.metadata,
        current.protocol,
        None,
        None,
        None,
        None,
        (),
        (),
        0,
        (),
        0,
        frozenset(),
        (guard,),
        (),
    )


def _full_plan(
    log: DeltaLog,
    current: Snapshot,
    target: Snapshot,
    requested: str | None,
    settings: Settings,
    spark: Any,
) -> RestorePlan:
    if spark is None:
        from inspector.rows.session import get_spark

        spark = get_spark(settings)
    adds, removes, metrics = diff_files(current, target, spark=spark)
    problems = check_files(target.table_root, adds, workers=settings.check_workers)
    damaged = {
        p.key for p in check_files(current.table_root, removes, workers=settings.check_workers)
    }
    merged = merge_protocols(current.protocol, target.protocol)
    diff = diff_metadata((current.metadata, current.protocol), (target.metadata, merged))
    partitions = _partitions(adds + removes)
    limit = settings.max_listed_files
    target_ms = _history_ms(log, target.version)
    guards = (
        target_guard(current.version, target.version, log.earliest_version, None),
        files_guard(problems, len(problems), len(adds), limit),
        unchanged_guard(current.version, log.latest_version),
        protocol_guard(current.protocol, target.protocol, merged),
        features_guard((current.protocol, target.protocol, merged)),
        managed_guard(current.metadata, current.protocol, log.listing.staged_commits),
        append_only_guard(current.metadata, removes),
        row_tracking_guard(merged, target.metadata, adds),
        column_mapping_guard(current.metadata, target.metadata),
    )
    return RestorePlan(
        current.table_root,
        table_name(current),
        current.version,
        target.version,
        target_ms,
        requested,
        adds,
        removes,
        metrics,
        current.num_records,
        target.num_records,
        _live_rows(adds),
        _live_rows(removes),
        current.metadata,
        current.protocol,
        target.metadata,
        target.protocol,
        merged,
        diff,
        restore_domains(current, target),
        tuple(partitions[:limit]),
        len(partitions),
        tuple(problems[:limit]),
        len(problems),
        frozenset(p.key for p in problems),
        guards,
        tuple(
            restore_warnings(
                log, current, target, adds, removes, diff, problems, target_ms, len(damaged)
            )
        ),
        _has_delta_jars(spark),
    )


def _has_delta_jars(spark: Any) -> bool:
    from inspector.rows.session import has_delta_jars

    return has_delta_jars(spark)


def table_name(snapshot: Snapshot) -> str:
    """The name an operator types to confirm: the metadata name, else the folder's name."""
    return snapshot.metadata.name or os.path.basename(snapshot.table_root.rstrip(os.sep))


def diff_files(
    current: Snapshot, target: Snapshot, *, spark: Any = None, settings: Settings | None = None
) -> tuple[tuple[AddFile, ...], tuple[AddFile, ...], RestoreMetrics]:
    """Files to re-add and to remove, and Delta's metrics, computed on Spark.

    As in Delta's ``RestoreTableCommand``, both versions' file lists become
    DataFrames of (path, deletion-vector id, size), and two left-anti joins on path
    and deletion-vector id (null-safe, so "no deletion vector" matches itself) give
    the files to add and to remove. Both results come back in one Spark job; the
    metrics are the counts and byte sums of exactly those rows.

    Args:
        current: The latest snapshot.
        target: The snapshot to restore.
        spark: The session; started from ``settings`` when None.
        settings: Used only to start Spark.

    Returns:
        (files to add, files to remove, metrics); the files sorted by path.
    """
    from pyspark.sql import functions as F

    if spark is None:
        from inspector.rows.session import get_spark

        spark = get_spark(settings)
    cur_files, tgt_files = list(current.files.items()), list(target.files.items())
    cur, tgt = _file_frame(spark, cur_files).alias("c"), _file_frame(spark, tgt_files).alias("t")
    same = (F.col("c.path") == F.col("t.path")) & F.col("c.dv").eqNullSafe(F.col("t.dv"))
    to_add = tgt.join(cur, same, "left_anti").select(F.lit("add").alias("side"), "idx", "size")
    to_remove = cur.join(tgt, same, "left_anti").select(
        F.lit("remove").alias("side"), "idx", "size"
    )
    found = to_add.unionByName(to_remove).collect()
    adds = _pick(tgt_files, [r for r in found if r.side == "add"])
    removes = _pick(cur_files, [r for r in found if r.side == "remove"])
    metrics = RestoreMetrics(
        len(adds),
        sum(a.size for a in adds),
        len(removes),
        sum(a.size for a in removes),
        target.num_files,
        target.size_in_bytes,
    )
    return adds, removes, metrics


def _file_frame(spark: Any, files: list[tuple[FileKey, AddFile]]) -> Any:
    from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("idx", IntegerType(), False),
            StructField("path", StringType(), False),
            StructField("dv", StringType(), True),
            StructField("size", LongType(), False),
        ]
    )
    rows = [(i, key[0], key[1], add.size) for i, (key, add) in enumerate(files)]
    return spark.createDataFrame(rows, schema=schema)


def _pick(files: list[tuple[FileKey, AddFile]], found: list[Any]) -> tuple[AddFile, ...]:
    chosen = [files[row.idx][1] for row in found]
    return tuple(sorted(chosen, key=lambda a: (a.path, a.key[1] or "")))


def check_files(table_root: str, adds: Sequence[AddFile], *, workers: int = 8) -> list[FileProblem]:
    """Stat every file to re-add and its deletion-vector file; report missing or wrong sizes.

    Delta checks existence on Spark executors; here the files are local, so plain
    ``os.stat`` calls in a thread pool are faster than shipping paths to the JVM,
    and they also compare sizes (a truncated file would make the table unreadable).

    Args:
        table_root: The table's root folder.
        adds: The add actions to check.
        workers: Parallel stat calls.

    Returns:
        Every problem, in the order of ``adds``.
    """
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        found = pool.map(lambda a: _check_one(table_root, a), adds)
        return [p for problems in found for p in problems]


def _check_one(table_root: str, add: AddFile) -> list[FileProblem]:
    problems = []
    local = data_file_path(table_root, add.path)
    actual = _size(local)
    if actual is None or actual != add.size:
        problems.append(
            FileProblem(
                add.path,
                "missing" if actual is None else "truncated",
                add.size,
                actual,
                local,
                add.key,
            )
        )
    dv = add.deletion_vector
    dv_path = dv.relative_or_absolute_path() if dv else None
    if dv is not None and dv_path is not None:
        dv_local = data_file_path(table_root, dv_path)
        needed = dv.required_file_size
        dv_actual = _size(dv_local)
        if dv_actual is None or dv_actual < needed:
            problems.append(
                FileProblem(
                    add.path,
                    "dv_missing" if dv_actual is None else "dv_truncated",
                    needed,
                    dv_actual,
                    dv_local,
                    add.key,
                )
            )
    return problems


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def restore_domains(current: Snapshot, target: Snapshot) -> tuple[Mapping[str, Any], ...]:
    """Domain metadata the restore writes, following Delta's RESTORE.

    Delta keeps every domain as it is now, except ``delta.clustering`` (when the
    table has one): it is set to the target's clustering columns, or to none when
    the target was not clustered.
    """
    if CLUSTERING_DOMAIN not in current.domain_metadata:
        return ()
    found = target.domain_metadata.get(CLUSTERING_DOMAIN)
    clustered = found is not None and "clustering" in writer_features(target.protocol)
    config = found.configuration if found is not None and clustered else _EMPTY_CLUSTERING
    return ({"domain": CLUSTERING_DOMAIN, "configuration": config, "removed": False},)


def _partitions(files: Sequence[AddFile]) -> list[Mapping[str, str | None]]:
    seen = {
        json.dumps(dict(a.partition_values), sort_keys=True): dict(a.partition_values)
        for a in files
        if a.partition_values
    }
    return [seen[k] for k in sorted(seen)]


def _live_rows(files: Sequence[AddFile]) -> int | None:
    counts = [a.num_live_records for a in files]
    known = [c for c in counts if c is not None]
    return None if len(known) < len(counts) else sum(known)


def _history_ms(log: DeltaLog, version: int) -> int | None:
    try:
        return next(
            (e.timestamps.history for e in build_history(log) if e.version == version), None
        )
    except InspectorError:
        return None


def _diff_json(diff: MetadataDiff | None) -> dict[str, Any] | None:
    if diff is None:
        return None
    return {
        "columnsAdded": [c.name for c in diff.columns_added],
        "columnsRemoved": [c.name for c in diff.columns_removed],
        "columnsChanged": [{"name": c.name, "changes": c.changes} for c in diff.columns_changed],
        "properties": [
            {"key": v.key, "before": v.before, "after": v.after} for v in diff.properties
        ],
        "table": [{"key": v.key, "before": v.before, "after": v.after} for v in diff.table],
        "protocol": [{"key": v.key, "before": v.before, "after": v.after} for v in diff.protocol],
    }
