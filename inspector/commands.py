"""The CLI's subcommands. Each renders what a backend function returns; no logic here."""

from __future__ import annotations

import argparse
import sys

from inspector.cli import arguments, command, emit_json
from inspector.history import build_history, history_record, iso
from inspector.log import DeltaLog, table_problems
from inspector.settings import Settings
from inspector.versions import file_action_record, parse_version


def _table_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="Table root (the folder holding _delta_log) or file:// URI.")


def _history_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    parser.add_argument("--limit", type=int, default=None, help="Show only the newest N versions.")


@command("history", "Print the table's history, newest first (like DESCRIBE HISTORY).")
@arguments(_history_args)
def history_command(args: argparse.Namespace, settings: Settings) -> int:
    log = DeltaLog.open(args.table)
    entries = list(reversed(build_history(log, settings)))
    if args.limit is not None:
        entries = entries[: max(args.limit, 0)]
    if args.json:
        emit_json([history_record(e) for e in entries])
        return 0
    for problem in table_problems(log):
        print(f"! {problem}", file=sys.stderr)
    print(f"{'version':>8}  {'timestamp (UTC)':<24}  {'operation':<22} {'+files':>7} {'-files':>7} "
          f"{'+bytes':>12} {'-bytes':>12}")
    for e in entries:
        print(f"{e.version:>8}  {iso(e.timestamps.history):<24}  {e.operation[:22]:<22} "
              f"{e.num_added_files:>7} {e.num_removed_files:>7} {e.added_bytes:>12} {e.removed_bytes:>12}")
        for problem in e.problems:
            print(f"{'':>10}! {problem}")
    return 0


def _files_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    parser.add_argument("--version", required=True, help="The version whose commit to show.")


@command("files", "Print the add and remove actions of one version's commit.")
@arguments(_files_args)
def files_command(args: argparse.Namespace, settings: Settings) -> int:
    log = DeltaLog.open(args.table)
    commit = log.commit(parse_version(args.version, log))
    added = [file_action_record(a) for a in commit.adds]
    removed = [file_action_record(r) for r in commit.removes]
    if args.json:
        emit_json({"version": commit.version, "added": added, "removed": removed,
                   "problems": list(commit.problems)})
        return 0
    print(f"version {commit.version}: {commit.commit_info.operation}, "
          f"{len(added)} added, {len(removed)} removed")
    for sign, items in (("+", added), ("-", removed)):
        for item in items:
            parts = ", ".join(f"{k}={v}" for k, v in (item["partitionValues"] or {}).items())
            print(f"{sign} {item['path']}  {item['size']} bytes  {parts}")
    return 0


def _demo_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=None,
                        help="Where to write the demo table (default: the demo_path setting).")
    parser.add_argument("--force", action="store_true", help="Replace an existing demo table.")


@command("demo", "Write the built-in demo table (a realistic history with a checkpoint).")
@arguments(_demo_args)
def demo_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.demo import write_demo_table

    path = write_demo_table(args.path or settings.demo_path, force=args.force)
    if args.json:
        emit_json({"path": path})
    else:
        print(f"Demo table written to {path}")
    return 0
