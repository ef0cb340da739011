"""``check``: the health check (which versions have all their files; how to recover).

Exit code 4 (:attr:`ExitCode.INCONSISTENT`) when the latest version is not consistent.
"""

from __future__ import annotations

import argparse
import sys

from inspector.cli.args import table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Printed
from inspector.delta.errors import ExitCode
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.staged import staged_commits


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
def check_command(args: argparse.Namespace, settings: Settings) -> Printed:
    from inspector.health import check_table
    from inspector.health.replica import data_loss_window
    from inspector.health.runs import grouped_record
    from inspector.present.text.health import check_lines

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
    return Printed(
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
