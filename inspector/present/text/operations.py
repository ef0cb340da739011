"""What the operators' commands print without ``--json``: ``vacuum-plan`` and ``replica``."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.delta.text import counted, format_time, version_ranges
from inspector.health.replica import ReplicaReport
from inspector.health.vacuum import VacuumPlan
from inspector.present.values import count_text


def vacuum_plan_lines(plan: VacuumPlan, *, cap: int) -> Iterator[str]:
    """``vacuum-plan``: the files it would delete (``cap`` listed) and the versions it breaks."""
    yield (
        f"VACUUM {plan.mode.upper()} plan for {plan.table_root}, retaining "
        f"{plan.retain_hours:g} hours (deletes files removed or written before "
        f"{format_time(plan.cutoff)})"
    )
    yield ""
    for warning in plan.warnings:
        yield f"! {warning}"
    yield f"Files to delete: {len(plan.files):,} ({plan.bytes_to_delete:,} bytes)"
    for f in plan.files[:cap]:
        yield f"  {f.path}  {f.size:,} bytes  ({f.reason})"
    if len(plan.files) > cap:
        yield f"  … and {len(plan.files) - cap:,} more (use --json)"
    yield ""
    yield f"Versions that stop being readable: {version_ranges(plan.versions_lost) or 'none'}"
    for restore in plan.restore_undos_lost:
        yield f"  the RESTORE at version {restore} could no longer be undone"
    yield f"Oldest readable version now: {_or_none(plan.oldest_readable_before)}"
    yield f"Oldest readable version after: {_or_none(plan.oldest_readable_after)}"
    if plan.earliest_log_version > 0:
        yield f"Versions 0..{plan.earliest_log_version - 1} already expired from the log."


def replica_lines(report: ReplicaReport, *, cap: int) -> Iterator[str]:
    """``replica``: both latest versions, what is still to copy, the data-loss window."""
    window = report.window
    yield f"Primary {report.primary_root}: latest version {report.primary_latest_version}"
    yield (
        f"Replica {report.replica_root}: latest version {report.replica_latest_version}, "
        f"{'consistent' if report.replica_consistent else 'NOT CONSISTENT'}; last consistent "
        f"version {_or_none(report.replica_last_consistent_version)}"
    )
    yield ""
    missing = [f.version for f in report.missing_commits]
    yield f"Commits still to copy: {version_ranges(missing) or 'none'}"
    for title, files in (
        ("Files missing", report.missing_files),
        ("Files with another size", report.size_mismatches),
    ):
        yield f"{title}: {len(files):,}"
        for f in files[:cap]:
            yield f"  v{f.version}  {f.path}  {f.size:,} bytes"
    yield f"Bytes still to copy: {report.bytes_to_copy:,}"
    yield f"Files only on the replica: {len(report.extra_paths):,}"
    seconds = "unknown" if window.seconds is None else f"{window.seconds:,.0f} s"
    yield ""
    yield (
        f"Data-loss window of a failover now: {counted(window.versions, 'version')}, {seconds}, "
        f"{counted(window.rows_inserted, 'row')} inserted, "
        f"{count_text(window.rows_deleted)} deleted and {count_text(window.rows_updated)} "
        "updated on the primary since."
    )


def _or_none(version: int | None) -> str:
    return "none" if version is None else str(version)
