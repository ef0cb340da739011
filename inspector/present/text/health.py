"""The health report as text for ``check``: runs of versions, each damaged file once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from inspector.delta.text import counted
from inspector.health import HealthReport, recovery_advice, restore_command
from inspector.health.records import HealthProblem, ProblemKind, VersionStatus
from inspector.health.runs import VersionRun, damaged_files, version_runs
from inspector.log.staged import StagedCommit

_RUNS_SHOWN = 20
_FILES_SHOWN = 200


def check_lines(
    report: HealthReport, staged: Iterable[StagedCommit], *, asked_all: bool
) -> Iterator[str]:
    """``check``: the report's lines, then a catalog-managed table's staged commits."""
    yield from health_lines(report, asked_all=asked_all)
    for s in staged:
        yield f"~ staged commit, version {s.version} ({s.file.name}): {s.status}"


def health_lines(report: HealthReport, *, asked_all: bool) -> list[str]:
    """The lines ``check`` prints: verdict, runs of versions, damaged files, next step.

    Args:
        report: The health report.
        asked_all: Whether the user asked for every version (else the check widened
            on its own because the latest was not consistent).
    """
    first, last = report.versions[0].version, report.latest_version
    scope = (
        f"every retained version ({first}..{last})"
        if report.all_versions
        else f"the latest version ({last})"
    )
    if report.all_versions and not asked_all:
        scope += ", because the latest was not consistent"
    lines = [
        f"Health check of {report.table_root}",
        f"checked {scope}; {counted(report.files_examined, 'file')} examined"
        + (" with Parquet footers" if report.deep else ""),
        "",
    ]
    if report.is_consistent:
        lines.append(
            f"OK: the latest version {last} is consistent (every file present with its "
            "recorded size)."
        )
    else:
        lines.append(
            f"NOT CONSISTENT: the latest version {last} is {report.latest.status.upper()}."
        )
    consistent = report.last_consistent_version
    lines.append(f"Last consistent version: {consistent if consistent is not None else 'none'}")
    lines += _run_lines(report)
    lines += _file_lines(report)
    lines += [f"! {problem}" for problem in report.problems]
    lines += [
        "",
        f"Orphan files: {report.orphan_files:,} ({counted(report.orphan_bytes, 'byte')}) "
        f"{report.orphan_scope.meaning}.",
        "",
        f"Next step: {recovery_advice(report)}",
    ]
    command = restore_command(report)
    if command:
        lines.append(f"  {command}")
    return lines


def _run_lines(report: HealthReport) -> list[str]:
    runs = version_runs(report)
    if len(runs) == 1 and runs[0].status == "complete" and not runs[0].problems:
        return []
    lines = ["", "Versions (runs with the same state; the ones that matter first):"]
    for run in runs[:_RUNS_SHOWN]:
        lines.append(f"  {run.label:<24} {run.status.upper():<11} {run.summary}{_role(run)}")
        lines += [f"      ! {p}" for p in run.problems if not _said_by_summary(run, p)]
    if len(runs) > _RUNS_SHOWN:
        lines.append(f"  ... and {len(runs) - _RUNS_SHOWN} more runs (check --json lists all)")
    return lines


def _role(run: VersionRun) -> str:
    return f"  <- {run.role}" if run.role else ""


def _said_by_summary(run: VersionRun, problem: HealthProblem) -> bool:
    """A gap's "commit file missing" needs no second line per run (a damaged one says where)."""
    return (
        run.status is VersionStatus.UNREADABLE
        and run.problems[0].kind == ProblemKind.COMMIT_MISSING
        and problem.kind == ProblemKind.COMMIT_MISSING
    )


def _file_lines(report: HealthReport) -> list[str]:
    files = damaged_files(report)
    if not files:
        return []
    lines = ["", f"Damaged files ({len(files)}, each listed once with the versions that need it):"]
    for f in files[:_FILES_SHOWN]:
        detail = f"  ({f.detail})" if f.detail else ""
        problem = str(f.problem).replace("_", " ")
        lines.append(f"  {problem:<14} {f.path}{detail}  needed by {f.versions_text}")
    if len(files) > _FILES_SHOWN:
        lines.append(f"  ... and {len(files) - _FILES_SHOWN} more (check --json lists all)")
    capped = any(
        v.missing_count > len(v.missing_files)
        or v.size_mismatch_count > len(v.size_mismatches)
        or v.unreadable_count > len(v.unreadable_files)
        for v in report.versions
    )
    if capped:
        lines.append("  (lists are capped per version by max_listed_files; counts are exact)")
    return lines
