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


def _diff_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    parser.add_argument("--from", dest="from_version", required=True,
                        help="The version to diff from (may be newer than --to).")
    parser.add_argument("--to", dest="to_version", required=True, help="The version to diff to.")
    parser.add_argument("--rows", action="store_true",
                        help="Also compare rows (starts Spark; reads only the changed files).")
    parser.add_argument("--key", default="",
                        help="Key columns (COL[,COL...]): report keys added, removed and changed. Implies --rows.")
    parser.add_argument("--offset", type=int, default=0, help="First sample row to show (paging).")


@command("diff", "What changed between two versions: schema, properties, files, partitions and rows.")
@arguments(_diff_args)
def diff_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.filediff import diff_files
    from inspector.report import diff_record

    log = DeltaLog.open(args.table)
    diff = diff_files(log, parse_version(args.from_version, log), parse_version(args.to_version, log))
    rows = None
    key = tuple(k for k in args.key.split(",") if k.strip())
    if args.rows or key:
        from inspector.rowdiff import diff_rows

        rows = diff_rows(log, diff.from_version, diff.to_version, key=key, offset=args.offset,
                         file_diff=diff, settings=settings)
    record = diff_record(diff, rows, table=log.table_root)
    if args.json:
        emit_json(record)
        return 0
    _print_diff(record)
    return 0


def _print_diff(record: dict) -> None:
    files, sides = record["files"], record["sides"]
    print(f"version {record['from']} -> {record['to']}: {files['filesAdded']} files added "
          f"({files['bytesAdded']} bytes), {files['filesRemoved']} removed ({files['bytesRemoved']} bytes); "
          f"{sides['from']['numFiles']} -> {sides['to']['numFiles']} files")
    for c in record["commits"]:
        print(f"  commit {c['version']:>6} {c['operation'][:22]:<22} +{c['filesAdded']} -{c['filesRemoved']} files")
    schema = record["schema"]
    for name in schema["added"]:
        print(f"+ column {name}")
    for name in schema["removed"]:
        print(f"- column {name}")
    for change in schema["changed"]:
        print(f"~ column {change['name']}: {'; '.join(change['changes'])}")
    for kind in ("properties", "protocol", "tableFields"):
        for v in record[kind]:
            print(f"~ {kind} {v['key']}: {v['before']} -> {v['after']}")
    for p in record["partitions"]:
        label = "/".join(f"{k}={v}" for k, v in p["partitionValues"].items()) or "(unpartitioned)"
        print(f"  partition {label}: +{p['filesAdded']} -{p['filesRemoved']} files, "
              f"+{p['recordsAdded']} -{p['recordsRemoved']} records")
    for sign, paths in (("+", files["added"]), ("-", files["removed"])):
        for path in paths:
            print(f"{sign} {path}")
    rows = record.get("rows")
    if rows is not None:
        changed = f", {rows['changed']} changed" if "changed" in rows else ""
        print(f"rows: {rows['added']} added, {rows['removed']} removed{changed} "
              f"(read {rows['filesRead']} changed files)")
        for sign, sample in (("+", rows["samples"]["added"]), ("-", rows["samples"]["removed"])):
            for row in sample:
                print(f"{sign} {row}")
        for c in rows["samples"]["changed"]:
            print(f"~ {c['key']}: {c['changes']}")


def _check_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    parser.add_argument("--all-versions", action="store_true",
                        help="Check every retained version, not only the latest.")
    parser.add_argument("--deep", action="store_true",
                        help="Also read each data file's Parquet footer and compare its row count.")


@command("check", "Health check: which versions have all their files, and the last consistent version. "
                  "Exit code 4 when the latest version is not consistent.")
@arguments(_check_args)
def check_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.health import check_table, health_record

    log = DeltaLog.open(args.table)
    show = sys.stderr.isatty() and not args.json
    report = check_table(log, all_versions=args.all_versions, deep=args.deep, settings=settings,
                         progress=_print_progress if show else None)
    if show:
        print(file=sys.stderr)
    if args.json:
        emit_json(health_record(report))
    else:
        _print_health(report, args.all_versions)
    return 0 if report.is_consistent else 4


def _print_progress(done: int, total: int) -> None:
    print(f"\rexamining files: {done}/{total}", end="", file=sys.stderr, flush=True)


def _print_health(report, asked_all: bool) -> None:
    from inspector.health import recovery_advice, restore_command, version_ranges

    first, last = report.versions[0].version, report.latest_version
    scope = f"every retained version ({first}..{last})" if report.all_versions else f"the latest version ({last})"
    if report.all_versions and not asked_all:
        scope += ", because the latest was not consistent"
    print(f"Health check of {report.table_root}\nchecked {scope}; {report.files_examined} files examined"
          f"{' with Parquet footers' if report.deep else ''}\n")
    if report.is_consistent:
        print(f"OK: the latest version {last} is consistent (every file present with its recorded size).")
    else:
        print(f"NOT CONSISTENT: the latest version {last} is {report.latest.status.upper()}.")
    consistent = report.last_consistent_version
    print(f"Last consistent version: {consistent if consistent is not None else 'none'}")
    damaged = report.damaged_versions
    if damaged:
        print(f"\n{len(damaged)} version(s) not complete: {version_ranges([v.version for v in damaged])}"
              " (newest first; versions with the same damage are grouped)")
        for group in _same_damage_groups(damaged)[:20]:
            _print_version(group)
    for problem in report.problems:
        print(f"! {problem}")
    for v in report.versions:
        for problem in v.problems if v.is_complete else ():
            print(f"! version {v.version}: {problem}")
    print(f"\nOrphan files: {report.orphan_files} ({report.orphan_bytes:,} bytes) that no retained "
          "version references.")
    print(f"\nNext step: {recovery_advice(report)}")
    command = restore_command(report)
    if command:
        print(f"  {command}")


def _same_damage_groups(damaged) -> list[list]:
    """Runs of consecutive versions with identical damage, newest run first."""
    groups: list[list] = []
    for v in damaged:
        prev = groups[-1][-1] if groups else None
        same = prev is not None and prev.version + 1 == v.version and \
            (prev.status, prev.missing_files, prev.size_mismatches, prev.unreadable_files,
             prev.missing_count, prev.size_mismatch_count, prev.problems) == \
            (v.status, v.missing_files, v.size_mismatches, v.unreadable_files,
             v.missing_count, v.size_mismatch_count, v.problems)
        if same:
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups[::-1]


def _print_version(group: list) -> None:
    v = group[-1]
    label = f"version {v.version}" if len(group) == 1 else f"versions {group[0].version}..{v.version}"
    counts = f"{v.missing_count} missing, {v.size_mismatch_count} wrong size" + (
        f", {v.unreadable_count} unreadable" if v.unreadable_count else "")
    print(f"  {label:<22} {v.status.upper():<11} {counts if v.status != 'unreadable' else ''}")
    for problem in v.problems:
        print(f"      ! {problem}")
    for path in v.missing_files:
        print(f"      missing        {path}")
    for issue in (*v.size_mismatches, *v.unreadable_files):
        print(f"      {issue.problem:<14} {issue.path}  ({issue.detail})")
    shown = len(v.missing_files) + len(v.size_mismatches) + len(v.unreadable_files)
    total = v.missing_count + v.size_mismatch_count + v.unreadable_count
    if total > shown:
        print(f"      ... and {total - shown} more files (the list is capped by max_listed_files)")
