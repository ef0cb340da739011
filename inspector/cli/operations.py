"""Operators' commands: ``vacuum-plan`` (what a VACUUM would break) and ``replica`` (a DR drill).

Both are read-only; each returns a record (:class:`VacuumPlanResult`, :class:`ReplicaResult`)
to the one renderer (:mod:`inspector.cli.render`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.cli.args import open_table, storage_arg, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import ExitCode, InvalidInput
from inspector.delta.text import counted, format_time
from inspector.health import version_ranges
from inspector.settings import Settings

if TYPE_CHECKING:
    from inspector.health.replica import ReplicaReport
    from inspector.health.vacuum import VacuumPlan


def _vacuum_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--retain-hours",
        default=None,
        help="The retention in hours (default: the table's delta.deletedFileRetentionDuration, "
        "else 168 = 7 days).",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="Plan a full VACUUM: also files no version references, not only expired tombstones.",
    )


@dataclass(frozen=True, kw_only=True)
class VacuumPlanResult(Result):
    """``vacuum-plan``: the plan, and how many files its text lists."""

    plan: VacuumPlan
    cap: int

    def to_json(self) -> dict[str, Any]:
        return self.plan.to_json()

    def text(self) -> Iterator[str]:
        plan, cap = self.plan, self.cap
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


@command(
    "vacuum-plan",
    "Plan a VACUUM without running it: the files it would delete and the versions that "
    "would stop being readable. Nothing is deleted.",
)
@arguments(_vacuum_args)
def vacuum_plan_command(args: argparse.Namespace, settings: Settings) -> VacuumPlanResult:
    from inspector.health.vacuum import VacuumMode, plan_vacuum

    hours = _hours(args.retain_hours)
    plan = plan_vacuum(
        open_table(args, settings).log,
        retain_hours=hours,
        mode=VacuumMode.FULL if args.full else VacuumMode.LITE,
    )
    return VacuumPlanResult(plan=plan, cap=settings.max_listed_files)


def _hours(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(
            f"--retain-hours '{text}' is not a number of hours.",
            "Give the retention in hours, e.g. --retain-hours 168 for 7 days.",
        ) from None


def _or_none(version: int | None) -> str:
    return "none" if version is None else str(version)


def _replica_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("primary", help="The primary table's location or catalog name.")
    parser.add_argument("replica", help="The replica's location or catalog name.")
    storage_arg(parser)  # the same options reach both (one store, or a local replica)


@dataclass(frozen=True, kw_only=True)
class ReplicaResult(Result):
    """``replica``: the comparison; exit code 4 when the replica's latest version is not whole."""

    report: ReplicaReport
    cap: int

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def text(self) -> Iterator[str]:
        report, window = self.report, self.report.window
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
            for f in files[: self.cap]:
                yield f"  v{f.version}  {f.path}  {f.size:,} bytes"
        yield f"Bytes still to copy: {report.bytes_to_copy:,}"
        yield f"Files only on the replica: {len(report.extra_paths):,}"
        seconds = "unknown" if window.seconds is None else f"{window.seconds:,.0f} s"
        yield ""
        yield (
            f"Data-loss window of a failover now: {counted(window.versions, 'version')}, {seconds}, "
            f"{_or_unknown(window.rows_added)} rows added and "
            f"{_or_unknown(window.rows_removed)} removed on the primary since."
        )


@command(
    "replica",
    "Compare a disaster-recovery replica with its primary: what is still to copy, the "
    "replica's last consistent version and the data-loss window. Exit code 4 when the "
    "replica's latest version is not consistent.",
)
@arguments(_replica_args)
def replica_command(args: argparse.Namespace, settings: Settings) -> ReplicaResult:
    from inspector.health.replica import compare_replica

    # The same options reach both (one store, or a local replica); each has its own handle.
    primary = open_table(args, settings, location=args.primary, role="primary")
    replica = open_table(args, settings, location=args.replica, role="replica")
    report = compare_replica(primary, replica, settings=settings)
    return ReplicaResult(
        report=report,
        cap=settings.max_listed_files,
        exit_code=ExitCode.OK if report.replica_consistent else ExitCode.INCONSISTENT,
    )


def _or_unknown(count: int | None) -> str:
    return "unknown" if count is None else f"{count:,}"
