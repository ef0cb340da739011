"""``changes``: the change data feed of a range of versions, read on Spark."""

from __future__ import annotations

import argparse

from inspector.cli.args import spark_args, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Shown
from inspector.delta.errors import InvalidInput
from inspector.log.deltalog import DeltaLog
from inspector.present.text.rows import changes_lines
from inspector.rows.changefeed import ChangeFeed
from inspector.settings import Settings
from inspector.table import open_table


def _changes_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    start = parser.add_mutually_exclusive_group(required=True)
    start.add_argument("--from", dest="from_version", help="First version.")
    start.add_argument("--from-timestamp", help="First version at this time (UTC).")
    end = parser.add_mutually_exclusive_group()
    end.add_argument("--to", dest="to_version", help="Last version (default: latest).")
    end.add_argument("--to-timestamp", help="Last version at this time (UTC).")
    parser.add_argument("--limit", type=int, help="Rows to print (default: preview_rows).")
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="Rows to skip first, in the feed's stable order (version, change type, columns).",
    )
    parser.add_argument("--where", help="A SQL WHERE expression evaluated by Spark.")
    spark_args(parser)


def _bound(log: DeltaLog, version: str | None, timestamp: str | None, settings: Settings) -> int:
    from inspector.table.timetravel import resolve_version

    return resolve_version(log, version=version, timestamp=timestamp, settings=settings).version


@command("changes", "Print the change data feed of a range of versions, read by Spark.")
@arguments(_changes_args)
def changes_command(args: argparse.Namespace, settings: Settings) -> Shown[ChangeFeed]:
    from inspector.rows.changefeed import build_changes

    log = open_table(args.table, settings).log
    first = _bound(log, args.from_version, args.from_timestamp, settings)
    last = _bound(log, args.to_version, args.to_timestamp, settings)
    for name in ("limit", "offset"):
        if (getattr(args, name) or 0) < 0:
            raise InvalidInput(f"--{name} must not be negative.", "Give 0 or more.")
    feed = build_changes(
        log,
        first,
        last,
        settings=settings,
        where=args.where,
        offset=args.offset,
        limit=args.limit,
    )
    return Shown(record=feed, lines=changes_lines)
