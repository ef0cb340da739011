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
from inspector.health import HealthReport
from inspector.log.staged import StagedCommit
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.staged import staged_commits


@dataclass(frozen=True, kw_only=True)
class CheckResult(Result):
    """``check``: the health report, and whether every version was asked for."""

    report: HealthReport
    asked_all: bool
    data_loss_window: dict[str, Any]  # health.replica.DataLossWindow.to_json()
    staged: Sequence[StagedCommit] = ()  # a catalog-managed table's unpublished commits

    def to_json(self) -> dict[str, Any]:
        from inspector.health.runs import grouped_record

        return {
            **self.report.to_json(),
            "dataLossWindow": self.data_loss_window,
            **grouped_record(self.report),
            "stagedCommits": [s.to_json() for s in self.staged],
        }

    def text(self) -> Iterator[str]:
        from inspector.present.text.health import check_lines

        return check_lines(self.report, self.staged, asked_all=self.asked_all)


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
    from inspector.health import check_table

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
    from inspector.health.replica import data_loss_window

    window = data_loss_window(log, report.last_consistent_version, report.latest_version)
    code = ExitCode.OK if report.is_consistent else ExitCode.INCONSISTENT
    return CheckResult(
        report=report,
        asked_all=args.all_versions,
        data_loss_window=window.to_json(),
        staged=staged_commits(table, settings),
        exit_code=code,
    )


def _print_progress(done: int, total: int) -> None:
    print(f"\rexamining files: {done}/{total}", end="", file=sys.stderr, flush=True)
