"""Operators' commands: ``vacuum-plan`` (what a VACUUM would break) and ``replica`` (a DR drill).

Both are read-only and render what a backend function returns.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from inspector.cli.args import open_table, storage_arg, storage_settings, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import emit_json
from inspector.delta.errors import InvalidInput
from inspector.health import version_ranges
from inspector.settings import Settings
from inspector.table.history import iso

if TYPE_CHECKING:
    from inspector.health.replica import ReplicaReport


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


@command(
    "vacuum-plan",
    "Plan a VACUUM without running it: the files it would delete and the versions that "
    "would stop being readable. Nothing is deleted.",
)
@arguments(_vacuum_args)
def vacuum_plan_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.health.vacuum import VacuumMode, plan_vacuum

    hours = _hours(args.retain_hours)
    plan = plan_vacuum(
        open_table(args, settings),
        retain_hours=hours,
        mode=VacuumMode.FULL if args.full else VacuumMode.LITE,
    )
    if args.json:
        emit_json(plan.to_json())
        return 0
    print(
        f"VACUUM {plan.mode.upper()} plan for {plan.table_root}, retaining {plan.retain_hours:g} "
        f"hours (deletes files removed or written before {iso(plan.cutoff)})\n"
    )
    for warning in plan.warnings:
        print(f"! {warning}")
    print(f"Files to delete: {len(plan.files):,} ({plan.bytes_to_delete:,} bytes)")
    for f in plan.files[: settings.max_listed_files]:
        print(f"  {f.path}  {f.size:,} bytes  ({f.reason})")
    if len(plan.files) > settings.max_listed_files:
        print(f"  … and {len(plan.files) - settings.max_listed_files:,} more (use --json)")
    lost = plan.versions_lost
    print(f"\nVersions that stop being readable: {version_ranges(lost) or 'none'}")
    for restore in plan.restore_undos_lost:
        print(f"  the RESTORE at version {restore} could no longer be undone")
    print(f"Oldest readable version now: {_or_none(plan.oldest_readable_before)}")
    print(f"Oldest readable version after: {_or_none(plan.oldest_readable_after)}")
    if plan.earliest_log_version > 0:
        print(f"Versions 0..{plan.earliest_log_version - 1} already expired from the log.")
    return 0


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


@command(
    "replica",
    "Compare a disaster-recovery replica with its primary: what is still to copy, the "
    "replica's last consistent version and the data-loss window. Exit code 4 when the "
    "replica's latest version is not consistent.",
)
@arguments(_replica_args)
def replica_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.catalog import resolve_table
    from inspector.health.replica import compare_replica

    settings = storage_settings(args, settings)
    options = settings.storage_option_pairs()
    primary = resolve_table(args.primary, settings)
    replica = resolve_table(args.replica, settings)
    report = compare_replica(
        primary.location,
        replica.location,
        settings=settings,
        primary_options={**options, **primary.storage_options},
        replica_options={**options, **replica.storage_options},
    )
    if args.json:
        emit_json(report.to_json())
    else:
        _print_replica(report, settings.max_listed_files)
    return 0 if report.replica_consistent else 4


def _print_replica(report: ReplicaReport, cap: int) -> None:
    window = report.window
    print(f"Primary {report.primary_root}: latest version {report.primary_latest_version}")
    print(
        f"Replica {report.replica_root}: latest version {report.replica_latest_version}, "
        f"{'consistent' if report.replica_consistent else 'NOT CONSISTENT'}; last consistent "
        f"version {_or_none(report.replica_last_consistent_version)}\n"
    )
    missing = [f.version for f in report.missing_commits]
    print(f"Commits still to copy: {version_ranges(missing) or 'none'}")
    for title, files in (
        ("Files missing", report.missing_files),
        ("Files with another size", report.size_mismatches),
    ):
        print(f"{title}: {len(files):,}")
        for f in files[:cap]:
            print(f"  v{f.version}  {f.path}  {f.size:,} bytes")
    print(f"Bytes still to copy: {report.bytes_to_copy:,}")
    print(f"Files only on the replica: {len(report.extra_paths):,}")
    seconds = "unknown" if window.seconds is None else f"{window.seconds:,.0f} s"
    print(
        f"\nData-loss window of a failover now: {window.versions} version(s), {seconds}, "
        f"{_or_unknown(window.rows_added)} rows added and {_or_unknown(window.rows_removed)} "
        "removed on the primary since."
    )


def _or_unknown(count: int | None) -> str:
    return "unknown" if count is None else f"{count:,}"
