"""``insights``: a version's layout (file sizes, partitions, small files, stats, DVs) from the log."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import build_history
from inspector.table.insights import LayoutInsights, layout_insights
from inspector.table.versions import parse_version


@dataclass(frozen=True, kw_only=True)
class InsightsResult(Result):
    """``insights``: the layout record of one version."""

    insights: LayoutInsights
    max_listed: int = 20

    def to_json(self) -> dict[str, Any]:
        return self.insights.to_json()

    def notes(self) -> Iterator[str]:
        return (f"! {p}" for p in self.insights.problems)

    def text(self) -> Iterator[str]:
        from inspector.present.text.log import insights_lines

        return insights_lines(self.to_json(), max_listed=self.max_listed)


def _insights_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", help="The version (default: the latest).")


@command(
    "insights",
    "Layout insights from the log: file sizes, small files per partition, what OPTIMIZE "
    "would compact, statistics coverage and deletion-vector load.",
)
@arguments(_insights_args)
def insights_command(args: argparse.Namespace, settings: Settings) -> InsightsResult:
    log = open_table(args.table, settings).log
    version = log.latest_version if args.version is None else parse_version(args.version, log)
    snapshot = log.snapshot(version)
    found = layout_insights(snapshot, build_history(log, settings))
    return InsightsResult(insights=found, max_listed=settings.max_listed_files)
