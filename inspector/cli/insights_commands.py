"""``insights``: a version's layout (file sizes, partitions, small files, stats, DVs) from the log."""

from __future__ import annotations

import argparse

from inspector.cli.args import table_arg, table_version
from inspector.cli.registry import arguments, command
from inspector.cli.render import Printed
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.insights import layout_insights


def _insights_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", help="The version (default: the latest).")


@command(
    "insights",
    "Layout insights from the log: file sizes, small files per partition, what OPTIMIZE "
    "would compact, statistics coverage and deletion-vector load.",
)
@arguments(_insights_args)
def insights_command(args: argparse.Namespace, settings: Settings) -> Printed:
    from inspector.present.text.log import insights_lines

    log, version = table_version(args, settings)
    found = layout_insights(log.snapshot(version), build_history(log, settings))
    cap = settings.max_listed_files
    return Printed(
        json=found.to_json,
        lines=lambda: insights_lines(found.to_json(), max_listed=cap),
        warnings=found.problems,
    )
