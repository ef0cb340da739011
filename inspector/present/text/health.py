"""What the health commands print without ``--json``: ``check`` (runs of versions, each
damaged file once), ``vacuum-plan`` and ``replica``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from inspector.delta.text import counted, format_time, version_ranges
from inspector.health import HealthReport, recovery_advice, restore_command
from inspector.health.problems import COMMIT_MISSING
from inspector.health.records import VersionStatus
from inspector.health.runs import damaged_files, version_runs
from inspector.log.staged import StagedCommit
from inspector.present.values import count_text

if TYPE_CHECKING:
    from inspector.health.replica import ReplicaReport
    from inspector.health.vacuum import VacuumPlan

_RUNS_SHOWN = 20
_FILES_SHOWN = 200


def check_lines(
    report: HealthReport, staged: Iterable[StagedCommit], *, asked_all: bool
) -> Iterator[str]:
    """``check``: verdict, runs of versions, damaged files, next step, then a catalog-managed
    table's staged commits (``asked_all``: the user asked for every version, else the check
    widened on its own because the latest was not consistent)."""
    first, last = report.versions[0].version, report.latest_version
    scope = (
        f"every retained version ({first}..{last})"
        if report.all_versions
        else f"the latest version ({last})"
    )
    if report.all_versions and not asked_all:
        scope += ", because the latest was not consistent"
    yield f"Health check of {report.table_root}"
    footers = " with Parquet footers" if report.deep else ""
    yield f"checked {scope}; {counted(report.files_examined, 'file')} examined{footers}"
    yield ""
    if report.is_consistent:
        yield (
            f"OK: the latest version {last} is consistent (every file present with its "
            "recorded size)."
        )
    else:
        yield f"NOT CONSISTENT: the latest version {last} is {report.latest.status.upper()}."
    yield f"Last consistent version: {_or_none(report.last_consistent_version)}"
    yield from _run_lines(report)
    yield from _file_lines(report)
    yield from (f"! {problem}" for problem in report.problems)
    yield ""
    yield (
        f"Orphan files: {report.orphan_files:,} ({counted(report.orphan_bytes, 'byte')}) "
        f"{report.orphan_scope.meaning}."
    )
    yield ""
    yield f"Next step: {recovery_advice(report)}"
    if command := restore_command(report):
        yield f"  {command}"
    for s in staged:
        yield f"~ staged commit, version {s.version} ({s.file.name}): {s.status}"


def _run_lines(report: HealthReport) -> Iterator[str]:
    runs = version_runs(report)
    if len(runs) == 1 and runs[0].status == "complete" and not runs[0].problems:
        return
    yield ""
    yield "Versions (runs with the same state; the ones that matter first):"
    for run in runs[:_RUNS_SHOWN]:
        role = f"  <- {run.role}" if run.role else ""
        yield f"  {run.label:<24} {run.status.upper():<11} {run.summary}{role}"
        # a gap's "commit file missing" needs no second line per run (a damaged one says where)
        gap = run.status is VersionStatus.UNREADABLE and run.problems[:1] == (COMMIT_MISSING,)
        yield from (f"      ! {p}" for p in run.problems if not (gap and p == COMMIT_MISSING))
    if len(runs) > _RUNS_SHOWN:
        yield f"  ... and {len(runs) - _RUNS_SHOWN} more runs (check --json lists all)"


def _file_lines(report: HealthReport) -> Iterator[str]:
    files = damaged_files(report)
    if not files:
        return
    yield ""
    yield f"Damaged files ({len(files)}, each listed once with the versions that need it):"
    for f in files[:_FILES_SHOWN]:
        detail = f"  ({f.detail})" if f.detail else ""
        problem = str(f.problem).replace("_", " ")
        yield f"  {problem:<14} {f.path}{detail}  needed by {f.versions_text}"
    if len(files) > _FILES_SHOWN:
        yield f"  ... and {len(files) - _FILES_SHOWN} more (check --json lists all)"
    if note := capped_note(report):
        yield f"  ({note})"


def capped_note(report: HealthReport) -> str | None:
    """What ``check`` and the Health page say when a version's list of bad files is capped
    (``max_listed_files``); None when every list is whole."""
    capped = any(
        v.missing_count > len(v.missing_files)
        or v.size_mismatch_count > len(v.size_mismatches)
        or v.unreadable_count > len(v.unreadable_files)
        for v in report.versions
    )
    return "lists are capped per version by max_listed_files; counts are exact" if capped else None


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
