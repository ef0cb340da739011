"""Commands that may read rows on Spark: ``show``, ``diff`` (``--rows``) and ``changes``.

They take the shared ``--spark-master``/``--spark-conf`` (:func:`inspector.cli.args.spark_args`);
Spark starts only when rows are needed, after every check that needs no Spark.
"""

from __future__ import annotations

import argparse
from functools import partial

from inspector.cli.args import spark_args, table_arg, where_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import InvalidInput
from inspector.diff.rowkeys import default_key
from inspector.present.text.answers import changes_lines, show_lines
from inspector.present.text.diff import diff_lines
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.rowcounts import rows_between
from inspector.table.versions import parse_version


def _show_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--version", help="The version to read (default: the latest).")
    when.add_argument(
        "--timestamp",
        help="Read the version the table was at, at this time (UTC unless a zone is "
        "given): 2024-10-08, '2024-10-08 05:42:52', 2024-10-08T05:42:52+02:00.",
    )
    parser.add_argument(
        "--limit", type=int, help="Rows to print (default: the preview_rows setting)."
    )
    where_arg(parser)
    spark_args(parser)


@command("show", "Print a version's rows (or the version at a timestamp), read by Spark.")
@arguments(_show_args)
def show_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.rows.preview import build_preview
    from inspector.table.timetravel import resolve_version

    log = open_table(args.table, settings).log
    chosen = resolve_version(log, version=args.version, timestamp=args.timestamp, settings=settings)
    preview = build_preview(
        log, chosen.version, settings=settings, where=args.where, limit=args.limit
    )
    record = preview.to_json()
    if chosen.timestamp is not None:  # the --timestamp moment in UTC
        record["resolvedTimestamp"] = chosen.timestamp.isoformat().replace("+00:00", "Z")
    return Result(
        json=lambda: record, lines=lambda: show_lines(preview, chosen), warnings=preview.warnings
    )


def _diff_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--from",
        dest="from_version",
        required=True,
        help="The version to diff from (may be newer than --to).",
    )
    parser.add_argument("--to", dest="to_version", required=True, help="The version to diff to.")
    parser.add_argument(
        "--rows",
        action="store_true",
        help="Also compare rows (starts Spark; reads only the changed files).",
    )
    parser.add_argument(
        "--key",
        help="Key columns (COL[,COL...]): report keys added, removed and changed. Implies "
        "--rows. Without it, --rows matches rows on the key the app suggests too (an identity "
        "or id column), and says so.",
    )
    parser.add_argument(
        "--no-key",
        action="store_true",
        help="Compare whole rows: an update is one row removed and one added.",
    )
    parser.add_argument("--offset", type=int, default=0, help="First sample row to show (paging).")
    spark_args(parser)


@command(
    "diff", "What changed between two versions: schema, properties, files, partitions and rows."
)
@arguments(_diff_args)
def diff_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.diff.filediff import diff_files
    from inspector.present.report import diff_record

    log = open_table(args.table, settings).log
    diff = diff_files(
        log, parse_version(args.from_version, log), parse_version(args.to_version, log)
    )
    rows, suggestion = None, None
    key = tuple(k.strip() for k in (args.key or "").split(",") if k.strip())
    if (args.rows or key) and not key and not args.no_key:  # the app's default, the same way
        suggestion = default_key(log.snapshot(diff.to_version))
        key = suggestion.columns if suggestion is not None else ()
    if args.rows or key or args.no_key:
        from inspector.rows.rowdiff import diff_rows

        rows = diff_rows(
            log,
            diff.from_version,
            diff.to_version,
            key=key,
            offset=args.offset,
            file_diff=diff,
            settings=settings,
        )
    log_rows = rows_between(log, diff.from_version, diff.to_version)
    record = diff_record(diff, rows, table=log.table_root, log_rows=log_rows)
    if suggestion is not None:
        record["rows"]["keySuggestion"] = suggestion.to_json()
    return Result(json=lambda: record, lines=lambda: diff_lines(record, log_rows))


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
    where_arg(parser)
    spark_args(parser)


@command("changes", "Print the change data feed of a range of versions, read by Spark.")
@arguments(_changes_args)
def changes_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.rows.changefeed import build_changes
    from inspector.table.timetravel import resolve_version

    log = open_table(args.table, settings).log
    first, last = (
        resolve_version(log, version=v, timestamp=t, settings=settings).version
        for v, t in ((args.from_version, args.from_timestamp), (args.to_version, args.to_timestamp))
    )
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
    return Result(json=feed.to_json, lines=partial(changes_lines, feed))
