"""The health report as text for ``check``: runs of versions, each damaged file once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from inspector.delta.text import counted
from inspector.health import HealthReport, recovery_advice, restore_command
from inspector.health.problems import COMMIT_MISSING
from inspector.health.records import VersionStatus
from inspector.health.runs import damaged_files, version_runs
from inspector.log.staged import StagedCommit

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
    consistent = report.last_consistent_version
    yield f"Last consistent version: {consistent if consistent is not None else 'none'}"
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
    capped = any(
        v.missing_count > len(v.missing_files)
        or v.size_mismatch_count > len(v.size_mismatches)
        or v.unreadable_count > len(v.unreadable_files)
        for v in report.versions
    )
    if capped:
        yield "  (lists are capped per version by max_listed_files; counts are exact)"
