"""Planning a RESTORE: a read-only dry run that says exactly what a restore would do.

The file lists are compared in Arrow as Delta's ``RestoreTableCommand`` does: no Spark.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import pyarrow as pa

from inspector.delta.actions import AddFile, Protocol
from inspector.delta.errors import InspectorError
from inspector.delta.properties import CLUSTERING_DOMAIN
from inspector.delta.protocol import merge_protocols, writer_features
from inspector.diff.metadiff import diff_metadata
from inspector.files.filecheck import check_files
from inspector.log import arrays, columnar
from inspector.log.commit import known_sum
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot
from inspector.restore.audit import AttemptStatus, record_attempt
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
from inspector.restore.planrecord import RestoreMetrics, RestorePlan
from inspector.settings import Settings
from inspector.table import Table
from inspector.table.history import history_page


def plan_restore(
    table: Table,
    target: int | datetime | str,
    *,
    settings: Settings,
    refresh: bool = True,
) -> RestorePlan:
    """Make a restore plan (a dry run) on the latest version: what would change, and every
    guard's verdict. Nothing is written to the table; the attempt is audited.

    Args:
        table: The table. Opened by name (``uc://main.sales.orders``), its full name
            (``main.sales.orders``) is the one to type to confirm.
        target: The version, or a timestamp (datetime or ISO text): the last version
            committed at or before it, as in Delta.
        settings: For ``max_listed_files``, ``check_workers`` and ``audit_log``.
        refresh: False when the caller has just opened the table (not listed again).

    Raises:
        InvalidInput: If the target is not a version or a timestamp.
        TimestampOutOfRange: If a timestamp is outside the table's history.
        CorruptLog: If the current version cannot be reconstructed.
    """
    log = table.latest_log() if refresh else table.log
    version, requested = _resolve_target(log, target, settings)
    # The target first: the current version is then often its snapshot plus a few commits
    # (the checkpoint is read once).
    try:
        target_snap, error = log.snapshot(version), None
    except InspectorError as exc:
        target_snap, error = None, str(exc)
    current = log.snapshot()
    plan = _base_plan(table, current, version, requested, error, settings)
    if target_snap is not None and version < current.version:
        plan = _full_plan(plan, current, target_snap, settings)
    record_attempt(
        settings.audit_log,
        plan.attempt(),
        outcome=AttemptStatus.PLANNED,
        details={"guardsPassed": plan.passed, **plan.metrics.to_json()},
        secrets=table.storage_options,
    )
    return plan


def _base_plan(
    table: Table,
    current: Snapshot,
    version: int,
    requested: str | None,
    error: str | None,
    settings: Settings,
) -> RestorePlan:
    """What every plan states. A target that cannot be restored leaves the rest empty, with
    its reason as the one guard (``RestorePlan.is_refusal``)."""
    log = table.log
    typed = (table.name.partition("://")[2] or table.name) if table.name else None
    earliest = log.earliest_version  # the whole listing, first: the target's time reuses it
    return RestorePlan(
        table=table,
        table_root=current.table_root,
        # The name an operator types to confirm: else the metadata's, else the folder's.
        table_name=typed
        or current.metadata.name
        or os.path.basename(current.table_root.rstrip(os.sep)),
        catalog_name=table.name or None,
        read_version=current.version,
        target_version=version,
        target_timestamp=_history_ms(log, version, settings),
        requested_timestamp=requested,
        metrics=RestoreMetrics.of(
            (), (), files_after=current.num_files, bytes_after=current.size_in_bytes
        ),
        rows_before=current.num_records,
        current_metadata=current.metadata,
        current_protocol=current.protocol,
        guards=(target_guard(current.version, version, earliest, error),),
    )


def _resolve_target(
    log: DeltaLog, target: int | datetime | str, settings: Settings
) -> tuple[int, str | None]:
    if isinstance(target, int):
        return target, None
    from inspector.table import timetravel

    when = timetravel.parse_timestamp(target) if isinstance(target, str) else target
    # The text as Delta records it in operationParameters (yyyy-MM-dd HH:mm:ss.SSS).
    text = when.strftime("%Y-%m-%d %H:%M:%S.") + f"{when.microsecond // 1000:03d}"
    return timetravel.version_at_timestamp(log, when, settings), text


def _full_plan(
    plan: RestorePlan, current: Snapshot, target: Snapshot, settings: Settings
) -> RestorePlan:
    """``plan`` (what every plan states) with the files, rows, metadata and guards of a target
    that can be restored."""
    adds = _only_in(target.files_table, current.files_table)
    removes = _only_in(current.files_table, target.files_table)
    workers = settings.check_workers
    problems = check_files(target.table_root, adds, workers=workers, storage=target.storage)
    damaged = {
        p.key
        for p in check_files(current.table_root, removes, workers=workers, storage=current.storage)
    }
    merged = merge_protocols(current.protocol, target.protocol)
    diff = diff_metadata((current.metadata, current.protocol), (target.metadata, merged))
    partitions = _partitions_of(adds + removes)
    limit = settings.max_listed_files
    full = dataclasses.replace(
        plan,
        files_to_add=adds,
        files_to_remove=removes,
        metrics=RestoreMetrics.of(
            adds, removes, files_after=target.num_files, bytes_after=target.size_in_bytes
        ),
        rows_after=target.num_records,
        rows_added=known_sum([a.num_live_records for a in adds]),
        rows_removed=known_sum([a.num_live_records for a in removes]),
        target_metadata=target.metadata,
        target_protocol=target.protocol,
        merged_protocol=merged,
        metadata_diff=diff,
        domain_metadata=_restore_domains(current, target),
        partitions_touched=tuple(partitions[:limit]),
        num_partitions_touched=len(partitions),
        file_problems=tuple(problems[:limit]),
        num_file_problems=len(problems),
        problem_paths=frozenset(p.key for p in problems if p.key is not None),
    )
    warnings = restore_warnings(full, current, target, diff, removed_damaged=len(damaged))
    return dataclasses.replace(
        full, guards=_guards(full, current, target, merged), warnings=tuple(warnings)
    )


def _guards(
    plan: RestorePlan, current: Snapshot, target: Snapshot, merged: Protocol
) -> tuple[GuardResult, ...]:
    log, adds = plan.table.log, plan.files_to_add
    return (
        *plan.guards,  # the target's, which passed
        files_guard(plan.file_problems, plan.num_file_problems, len(adds)),
        unchanged_guard(current.version, log.latest_version),
        protocol_guard(current.protocol, target.protocol, merged),
        features_guard((current.protocol, target.protocol, merged)),
        managed_guard(
            current.metadata,
            current.protocol,
            len(log.staged_files),
            name=plan.table.name,
            target_version=target.version,
        ),
        append_only_guard(current.metadata, plan.files_to_remove),
        row_tracking_guard(merged, target.metadata, adds),
        column_mapping_guard(current.metadata, target.metadata),
    )


def _history_ms(log: DeltaLog, version: int, settings: Settings) -> int | None:
    """The target's history timestamp, from its own commit (nothing else is read)."""
    try:
        page = history_page(log, settings, limit=1, newest=version)
    except InspectorError:
        return None
    return next((e.timestamps.history for e in page if e.version == version), None)


_KEYS = ["key_path", "dv_id"]  # dv_id is "" for a file without a deletion vector
_EMPTY_CLUSTERING = '{"clusteringColumns":[]}'


def _only_in(left: pa.Table, right: pa.Table) -> tuple[AddFile, ...]:
    """Typed records of the files of ``left`` whose (path, deletion vector) is not in
    ``right`` (only those), sorted by path, then deletion-vector id: Delta's
    ``RestoreTableCommand`` lists (re-added: in the target only; removed: in the current
    version only), as hash anti-joins. A file whose deletion vector changed is swapped."""
    numbered = left.select(_KEYS).append_column("idx", arrays.span(0, left.num_rows))
    kept = numbered.join(right.select(_KEYS), keys=_KEYS, join_type="left anti")
    chosen = left.take(kept.column("idx").combine_chunks())
    chosen = chosen.sort_by([("path", "ascending"), ("dv_id", "ascending")])
    return tuple(columnar.records("add", chosen))  # type: ignore[arg-type]


def _restore_domains(current: Snapshot, target: Snapshot) -> tuple[Mapping[str, Any], ...]:
    """Domain metadata the restore writes, following Delta's RESTORE: every domain is kept as
    it is now, except ``delta.clustering`` (when the table has one), set to the target's
    clustering columns, or to none when the target was not clustered."""
    if CLUSTERING_DOMAIN not in current.domain_metadata:
        return ()
    found = target.domain_metadata.get(CLUSTERING_DOMAIN)
    clustered = found is not None and "clustering" in writer_features(target.protocol)
    config = found.configuration if found is not None and clustered else _EMPTY_CLUSTERING
    return ({"domain": CLUSTERING_DOMAIN, "configuration": config, "removed": False},)


def _partitions_of(files: Sequence[AddFile]) -> list[Mapping[str, str | None]]:
    seen = {
        json.dumps(dict(a.partition_values), sort_keys=True): dict(a.partition_values)
        for a in files
        if a.partition_values
    }
    return [seen[k] for k in sorted(seen)]
