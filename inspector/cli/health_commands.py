"""The health commands: ``check`` (which versions have all their files; how to recover),
``vacuum-plan`` (what a VACUUM would break) and ``replica`` (a DR drill).

All are read-only. Exit code 4 (:attr:`ExitCode.INCONSISTENT`) when the latest version (of
the replica, for ``replica``) is not consistent.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

from inspector.cli.args import storage_arg, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import ExitCode, InvalidInput
from inspector.settings import Settings
from inspector.table import open_table


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
def check_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.health import check_table
    from inspector.health.replica import data_loss_window
    from inspector.health.runs import grouped_record
    from inspector.present.text.health import check_lines
    from inspector.table.staged import staged_commits

    table = open_table(args.table, settings)
    log = table.log
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
    window = data_loss_window(log, report.last_consistent_version, report.latest_version)
    staged = staged_commits(table, settings)  # a catalog-managed table's unpublished commits
    return Result(
        json=lambda: {
            **report.to_json(),
            "dataLossWindow": window.to_json(),
            **grouped_record(report),
            "stagedCommits": [s.to_json() for s in staged],
        },
        lines=lambda: check_lines(report, staged, asked_all=args.all_versions),
        exit_code=ExitCode.OK if report.is_consistent else ExitCode.INCONSISTENT,
    )


def _print_progress(done: int, total: int) -> None:
    print(f"\rexamining files: {done}/{total}", end="", file=sys.stderr, flush=True)


def _vacuum_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--retain-hours",
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
def vacuum_plan_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.health.vacuum import VacuumMode, plan_vacuum
    from inspector.present.text.health import vacuum_plan_lines

    hours = _hours(args.retain_hours)
    table = open_table(args.table, settings)
    plan = plan_vacuum(
        table.log,
        retain_hours=hours,
        mode=VacuumMode.FULL if args.full else VacuumMode.LITE,
        name=table.name,
    )
    cap = settings.max_listed_files
    return Result(json=plan.to_json, lines=partial(vacuum_plan_lines, plan, cap=cap))


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


def _replica_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("primary", help="The primary table's location or catalog name.")
    parser.add_argument("replica", help="The replica's location or catalog name.")
    storage_arg(parser)


@command(
    "replica",
    "Compare a disaster-recovery replica with its primary: what is still to copy, the "
    "replica's last consistent version and the data-loss window. Exit code 4 when the "
    "replica's latest version is not consistent.",
)
@arguments(_replica_args)
def replica_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.health.replica import compare_replica
    from inspector.present.text.health import replica_lines

    # The same options reach both (one store, or a local replica); each has its own handle.
    primary = open_table(args.primary, settings, role="primary")
    replica = open_table(args.replica, settings, role="replica")
    report = compare_replica(primary, replica, settings=settings)
    return Result(
        json=report.to_json,
        lines=partial(replica_lines, report, cap=settings.max_listed_files),
        exit_code=ExitCode.OK if report.replica_consistent else ExitCode.INCONSISTENT,
    )
