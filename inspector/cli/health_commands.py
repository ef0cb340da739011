"""``check``: the health check (which versions have all their files; how to recover).

Exit code 4 (:attr:`ExitCode.INCONSISTENT`) when the latest version is not consistent.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import ExitCode
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.views.health import HealthReport, VersionHealth


@dataclass(frozen=True, kw_only=True)
class CheckResult(Result):
    """``check``: the health report, and whether every version was asked for."""

    report: HealthReport
    asked_all: bool
    data_loss_window: dict[str, Any]  # views.dataloss.DataLossWindow.to_json()

    def to_json(self) -> dict[str, Any]:
        from inspector.views.health import health_record

        return {**health_record(self.report), "dataLossWindow": self.data_loss_window}

    def text(self) -> Iterator[str]:
        return _health_lines(self.report, self.asked_all)


def _check_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--all-versions",
        action="store_true",
        help="Check every retained version, not only the latest.",
    )
    parser.add_argument(
        "--deep",
        action="store_true",
        help="Also read each data file's Parquet footer and compare its row count.",
    )


@command(
    "check",
    "Health check: which versions have all their files, and the last consistent version. "
    "Exit code 4 when the latest version is not consistent.",
)
@arguments(_check_args)
def check_command(args: argparse.Namespace, settings: Settings) -> CheckResult:
    from inspector.views.health import check_table

    log = DeltaLog.open(args.table)
    show = sys.stderr.isatty() and not args.json
    report = check_table(
        log,
        all_versions=args.all_versions,
        deep=args.deep,
        settings=settings,
        progress=_print_progress if show else None,
    )
    if show:
        print(file=sys.stderr)
    from inspector.views.dataloss import data_loss_window

    window = data_loss_window(log, report.last_consistent_version, report.latest_version)
    code = ExitCode.OK if report.is_consistent else ExitCode.INCONSISTENT
    return CheckResult(
        report=report,
        asked_all=args.all_versions,
        data_loss_window=window.to_json(),
        exit_code=code,
    )


def _print_progress(done: int, total: int) -> None:
    print(f"\rexamining files: {done}/{total}", end="", file=sys.stderr, flush=True)


def _health_lines(report: HealthReport, asked_all: bool) -> Iterator[str]:
    from inspector.delta.text import version_ranges
    from inspector.views.health import recovery_advice, restore_command

    first, last = report.versions[0].version, report.latest_version
    scope = (
        f"every retained version ({first}..{last})"
        if report.all_versions
        else f"the latest version ({last})"
    )
    if report.all_versions and not asked_all:
        scope += ", because the latest was not consistent"
    yield f"Health check of {report.table_root}"
    yield (
        f"checked {scope}; {report.files_examined} files examined"
        f"{' with Parquet footers' if report.deep else ''}\n"
    )
    if report.is_consistent:
        yield (
            f"OK: the latest version {last} is consistent (every file present with its "
            "recorded size)."
        )
    else:
        yield f"NOT CONSISTENT: the latest version {last} is {report.latest.status.upper()}."
    consistent = report.last_consistent_version
    yield f"Last consistent version: {consistent if consistent is not None else 'none'}"
    damaged = report.damaged_versions
    if damaged:
        yield (
            f"\n{len(damaged)} version(s) not complete: "
            f"{version_ranges([v.version for v in damaged])}"
            " (newest first; versions with the same damage are grouped)"
        )
        for group in _same_damage_groups(damaged)[:20]:
            yield from _version_lines(group)
    for problem in report.problems:
        yield f"! {problem}"
    for v in report.versions:
        for problem in v.problems if v.is_complete else ():
            yield f"! version {v.version}: {problem}"
    yield (
        f"\nOrphan files: {report.orphan_files} ({report.orphan_bytes:,} bytes) that no "
        "retained version references."
    )
    yield f"\nNext step: {recovery_advice(report)}"
    restore = restore_command(report)
    if restore:
        yield f"  {restore}"


def _damage(v: VersionHealth) -> tuple[Any, ...]:
    return (
        v.status,
        v.missing_files,
        v.size_mismatches,
        v.unreadable_files,
        v.missing_count,
        v.size_mismatch_count,
        v.problems,
    )


def _same_damage_groups(damaged: Sequence[VersionHealth]) -> list[list[VersionHealth]]:
    """Runs of consecutive versions with identical damage, newest run first."""
    groups: list[list[VersionHealth]] = []
    for v in damaged:
        prev = groups[-1][-1] if groups else None
        if prev is not None and prev.version + 1 == v.version and _damage(prev) == _damage(v):
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups[::-1]


def _version_lines(group: list[VersionHealth]) -> Iterator[str]:
    v = group[-1]
    label = (
        f"version {v.version}" if len(group) == 1 else f"versions {group[0].version}..{v.version}"
    )
    counts = f"{v.missing_count} missing, {v.size_mismatch_count} wrong size" + (
        f", {v.unreadable_count} unreadable" if v.unreadable_count else ""
    )
    yield f"  {label:<22} {v.status.upper():<11} {counts if v.status != 'unreadable' else ''}"
    for problem in v.problems:
        yield f"      ! {problem}"
    for path in v.missing_files:
        yield f"      missing        {path}"
    for issue in (*v.size_mismatches, *v.unreadable_files):
        yield f"      {issue.state:<14} {issue.path}  ({issue.detail})"
    shown = len(v.missing_files) + len(v.size_mismatches) + len(v.unreadable_files)
    total = v.missing_count + v.size_mismatch_count + v.unreadable_count
    if total > shown:
        yield f"      ... and {total - shown} more files (the list is capped by max_listed_files)"
