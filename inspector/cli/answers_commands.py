"""Answers about one version: ``insights`` (its layout, from the log), and on Spark
``explain`` (which files a filter reads) and ``blame`` (who wrote a row).

``explain`` and ``blame`` take a SQL filter (``--where``), parsed by Spark SQL, the one
grammar; a filter that does not parse or names a column the version lacks is one line, exit 2.
"""

from __future__ import annotations

import argparse
from functools import partial

from inspector.cli.args import spark_args, table_arg, table_version, where_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import InvalidInput
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings


def _where_version_args(parser: argparse.ArgumentParser, what: str) -> None:
    table_arg(parser)
    where_arg(parser, required=True)
    parser.add_argument("--version", default=None, help=f"The version {what} (default: latest).")


def _asked(args: argparse.Namespace, settings: Settings) -> tuple[DeltaLog, int, str]:
    """The table's log, the version ``--version`` names, and the filter (``--where``)."""
    where = (args.where or "").strip()
    if not where:
        raise InvalidInput("--where is empty.", 'Give a SQL filter, e.g. --where "id = 42".')
    return (*table_version(args, settings), where)


def _insights_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", help="The version (default: the latest).")


@command(
    "insights",
    "Layout insights from the log: file sizes, small files per partition, what OPTIMIZE "
    "would compact, statistics coverage and deletion-vector load.",
)
@arguments(_insights_args)
def insights_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.present.text.log import insights_lines
    from inspector.table.history import build_history
    from inspector.table.insights import layout_insights

    log, version = table_version(args, settings)
    found = layout_insights(log.snapshot(version), build_history(log, settings))
    cap = settings.max_listed_files
    return Result(
        json=found.to_json,
        lines=lambda: insights_lines(found.to_json(), max_listed=cap),
        warnings=found.problems,
    )


def _explain_args(parser: argparse.ArgumentParser) -> None:
    _where_version_args(parser, "to plan the read of")
    parser.add_argument("--offset", type=int, default=0, help="First file to list (paging).")
    parser.add_argument("--limit", type=int, default=50, help="Files to list (default 50).")
    spark_args(parser)


@command("explain", "Which files a filtered read of a version reads, and what pruned the rest.")
@arguments(_explain_args)
def explain_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.present.text.answers import explain_lines
    from inspector.rows.explain import explain_read

    found = explain_read(*_asked(args, settings), settings=settings)
    lines = partial(explain_lines, found, offset=max(args.offset, 0), limit=max(args.limit, 0))
    return Result(json=found.to_json, lines=lines)


def _blame_args(parser: argparse.ArgumentParser) -> None:
    _where_version_args(parser, "whose rows to trace back")
    parser.add_argument(
        "--max-rows",
        type=int,
        default=100,
        help="Refuse when more rows than this match (default 100): narrow --where.",
    )
    spark_args(parser)


@command("blame", "Every version that wrote the rows a filter matches: when, how, before, after.")
@arguments(_blame_args)
def blame_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.present.text.answers import blame_lines
    from inspector.rows.blame import blame_rows

    blame = blame_rows(*_asked(args, settings), settings=settings, max_rows=args.max_rows)
    return Result(json=blame.to_json, lines=partial(blame_lines, blame))
