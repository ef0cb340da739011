"""What to do about a health report: the recovery reason, the restore command, the advice."""

from __future__ import annotations

import shlex

from inspector.delta.text import version_ranges
from inspector.health.records import HealthReport, VersionStatus


def recovery_reason(report: HealthReport) -> str:
    """The reason recorded with a restore to the last consistent version (audit log, userMetadata)."""
    target, latest = report.last_consistent_version, report.latest
    after = [v.version for v in report.damaged_versions if target is None or v.version > target]
    return (
        f"Recovery to the last consistent version {target}: the health check found version(s) "
        f"{version_ranges(after)} incomplete; the latest version {latest.version} references "
        f"{latest.missing_count} missing and {latest.size_mismatch_count + latest.unreadable_count} "
        f"damaged file(s), which the restore removes from the log."
    )


def restore_command(report: HealthReport) -> str | None:
    """The CLI command that restores to the last consistent version, or None when there is none."""
    target = report.last_consistent_version
    if target is None or report.is_consistent or report.latest.status is VersionStatus.UNREADABLE:
        return None
    return (
        f"python -m inspector restore {shlex.quote(report.table_root)} --to-version {target} "
        f"--expect-version {report.latest_version} --reason {shlex.quote(recovery_reason(report))}"
    )


def recovery_advice(report: HealthReport) -> str:
    """What an operator should do next, in one paragraph."""
    target = report.last_consistent_version
    if report.is_consistent:
        return "The latest version is consistent; no recovery is needed."
    if report.latest.status is VersionStatus.UNREADABLE:
        return (
            "The log itself is damaged at the latest version, so no restore can be committed on it. "
            "Copy the missing or damaged commit files from the source (or wait for replication "
            "to finish), then run the check again."
        )
    if target is None:
        return (
            "No retained version is complete. Wait for replication to finish or copy the missing "
            "files from the source, then run the check again."
        )
    return (
        f"If replication is still running, wait for it and check again. If the missing files are "
        f"lost, restore to version {target}, the last consistent version: the restore removes the "
        f"missing files from the log and re-adds only files that exist."
    )
