"""What an operator must know before committing a restore, beyond the guards.

These are consequences, not refusals: streaming readers will reprocess data,
the schema changes under running jobs, tables joined by keys drift apart.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from inspector.delta import properties
from inspector.delta.actions import AddFile
from inspector.delta.text import counted
from inspector.diff.metadiff import MetadataDiff
from inspector.health.retention import retention_policy
from inspector.log.commit import known_sum
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot
from inspector.restore.planrecord import RestorePlan


def restore_warnings(
    plan: RestorePlan,
    current: Snapshot,
    target: Snapshot,
    diff: MetadataDiff,
    *,
    removed_damaged: int = 0,
) -> list[str]:
    """Every warning that applies to a plan restoring ``current`` to ``target``, most
    important first.

    ``diff`` is current -> restored; ``removed_damaged`` how many files to remove are
    missing or damaged.
    """
    adds, removes = plan.files_to_add, plan.files_to_remove
    out = []
    if plan.problem_paths:
        out.append(
            f"PARTIAL TABLE RISK: {len(plan.problem_paths)} files of the target version are "
            "missing or truncated. Only with allow_missing_files would the restore proceed, and "
            f"then WITHOUT those files ({_rows(plan.problem_adds)}): they are not re-added, and "
            "the restored table is NOT the target version but a partial copy of it."
        )
    if removed_damaged:
        out.append(
            f"{removed_damaged} of the {len(removes)} files the restore removes are already "
            "missing or damaged in storage (e.g. lost in replication): the restore only "
            "removes them from the log, which makes the table readable again."
        )
    if adds:
        out.append(
            f"Streaming readers of this table will process the {len(adds)} re-added files "
            f"({_rows(adds)}) again as new data: RESTORE marks them dataChange=true. "
            "Streams that do not tolerate deletes (no skipChangeCommits) will fail on the "
            f"{len(removes)} removed files."
        )
    out += _schema_warnings(plan.table.log, current, target, diff)
    if adds or removes:
        out.append(
            "Tables that join to this one by keys are not restored with it: rows they "
            f"reference may disappear ({_rows(removes)} removed) or come back "
            f"({_rows(adds)} re-added), leaving them inconsistent."
        )
    if _enabled(current, properties.ENABLE_CHANGE_DATA_FEED):
        out.append(
            "The change data feed will show this restore as deletes of the removed files and "
            "inserts of the re-added files (no change-data files are written, as in Delta)."
        )
    if _enabled(current, properties.ENABLE_IN_COMMIT_TIMESTAMPS) and not _enabled(
        target, properties.ENABLE_IN_COMMIT_TIMESTAMPS
    ):
        out.append(
            f"Version {target.version} predates in-commit timestamps: the restore turns them "
            "off (as Delta's RESTORE does), so later timestamps come from file times again."
        )
    out += retention_warning(current, target, plan.target_timestamp)
    return out


def _schema_warnings(
    log: DeltaLog, current: Snapshot, target: Snapshot, diff: MetadataDiff
) -> list[str]:
    parts = []
    if diff.columns_removed:
        parts.append("drops " + _names(diff.columns_removed))
    if diff.columns_added:
        parts.append("brings back " + _names(diff.columns_added))
    if diff.columns_changed:
        parts.append(
            "changes "
            + ", ".join(f"{c.name} ({', '.join(c.changes)})" for c in diff.columns_changed[:10])
        )
    if parts:
        return [
            f"The restore crosses a schema change: it {'; '.join(parts)}. Jobs and streams "
            "that rely on the current schema may fail."
        ]
    if current.metadata.partition_columns != target.metadata.partition_columns:
        return ["The restore changes the partition columns."]
    if between := _schema_changes_between(log, target.version, current.version):
        return [
            f"The schema changed after version {target.version} (in version(s) "
            f"{', '.join(map(str, between))}) and changed back; the restored schema equals the "
            "current one, but streams that read those versions saw the change."
        ]
    return []


def _schema_changes_between(log: DeltaLog, first: int, last: int) -> list[int]:
    found, schema = [], None
    for commit in log.read_commits(list(range(first + 1, last + 1))):  # only those commits
        if commit.metadata is not None:
            if schema is not None and commit.metadata.schema_string != schema:
                found.append(commit.version)
            schema = commit.metadata.schema_string
    return found


def retention_warning(
    current: Snapshot, target: Snapshot, target_ms: int | None, *, now_ms: int | None = None
) -> list[str]:
    """The warning that VACUUM may already delete the target's files, if it applies (by the
    retention the Health page uses; ``now_ms``, the clock by default, is for tests)."""
    if target_ms is None:
        return []
    found = retention_policy(current.metadata.configuration).deleted_files
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    if now - target_ms <= found.ms:
        return []
    invalid = f" {found.problem}" if found.problem else ""
    return [
        f"Version {target.version} is older than the table's deleted-file retention "
        f"({found.describe()}): a VACUUM may delete its files at any moment. Commit soon; files "
        f"are checked again at commit.{invalid}"
    ]


def _names(columns: Sequence[Any]) -> str:
    names = [c.name for c in columns[:10]]
    return ", ".join(names) + (f" and {len(columns) - 10} more" if len(columns) > 10 else "")


def _enabled(snapshot: Snapshot, key: str) -> bool:
    return properties.enabled(snapshot.metadata.configuration, key)


def _rows(files: Sequence[AddFile]) -> str:
    total = known_sum([a.num_live_records for a in files])
    if total is None:
        return "row count unknown: some files have no stats"
    return counted(total, "row")
