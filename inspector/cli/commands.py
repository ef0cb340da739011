"""The CLI's subcommands. Each renders what a backend function returns; no logic here."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from inspector.cli.main import arguments, command, emit_json
from inspector.delta.text import partition_label
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.settings import Settings
from inspector.views.history import build_history, history_record, iso
from inspector.views.versions import file_action_record, parse_version

if TYPE_CHECKING:  # imported lazily at run time: most commands need none of these
    from inspector.restore.execute import RestoreResult
    from inspector.restore.plan import RestorePlan
    from inspector.rows.preview import Preview, ResolvedVersion
    from inspector.views.health import HealthReport, VersionHealth


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
    print(
        f"{'version':>8}  {'timestamp (UTC)':<24}  {'operation':<22} {'+files':>7} {'-files':>7} "
        f"{'+bytes':>12} {'-bytes':>12}"
    )
    for e in entries:
        print(
            f"{e.version:>8}  {iso(e.timestamps.history):<24}  {e.operation[:22]:<22} "
            f"{e.num_added_files:>7} {e.num_removed_files:>7} {e.added_bytes:>12} {e.removed_bytes:>12}"
        )
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
        emit_json(
            {
                "version": commit.version,
                "added": added,
                "removed": removed,
                "problems": list(commit.problems),
            }
        )
        return 0
    print(
        f"version {commit.version}: {commit.commit_info.operation}, "
        f"{len(added)} added, {len(removed)} removed"
    )
    for sign, items in (("+", added), ("-", removed)):
        for item in items:
            parts = partition_label(item["partitionValues"] or {}, unpartitioned="")
            print(f"{sign} {item['path']}  {item['size']} bytes  {parts}")
    return 0


def _demo_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        help="Where to write the demo table (default: the demo_path setting).",
    )
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
        default="",
        help="Key columns (COL[,COL...]): report keys added, removed and changed. Implies --rows.",
    )
    parser.add_argument("--offset", type=int, default=0, help="First sample row to show (paging).")


@command(
    "diff", "What changed between two versions: schema, properties, files, partitions and rows."
)
@arguments(_diff_args)
def diff_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.present.report import diff_record
    from inspector.views.filediff import diff_files

    log = DeltaLog.open(args.table)
    diff = diff_files(
        log, parse_version(args.from_version, log), parse_version(args.to_version, log)
    )
    rows = None
    key = tuple(k for k in args.key.split(",") if k.strip())
    if args.rows or key:
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
    record = diff_record(diff, rows, table=log.table_root)
    if args.json:
        emit_json(record)
        return 0
    _print_diff(record)
    return 0


def _print_diff(record: dict) -> None:
    files, sides = record["files"], record["sides"]
    print(
        f"version {record['from']} -> {record['to']}: {files['filesAdded']} files added "
        f"({files['bytesAdded']} bytes), {files['filesRemoved']} removed ({files['bytesRemoved']} bytes); "
        f"{sides['from']['numFiles']} -> {sides['to']['numFiles']} files"
    )
    for c in record["commits"]:
        print(
            f"  commit {c['version']:>6} {c['operation'][:22]:<22} +{c['filesAdded']} -{c['filesRemoved']} files"
        )
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
        label = partition_label(p["partitionValues"])
        print(
            f"  partition {label}: +{p['filesAdded']} -{p['filesRemoved']} files, "
            f"+{p['recordsAdded']} -{p['recordsRemoved']} records"
        )
    for sign, paths in (("+", files["added"]), ("-", files["removed"])):
        for path in paths:
            print(f"{sign} {path}")
    rows = record.get("rows")
    if rows is not None:
        changed = f", {rows['changed']} changed" if "changed" in rows else ""
        print(
            f"rows: {rows['added']} added, {rows['removed']} removed{changed} "
            f"(read {rows['filesRead']} changed files)"
        )
        for sign, sample in (("+", rows["samples"]["added"]), ("-", rows["samples"]["removed"])):
            for row in sample:
                print(f"{sign} {row}")
        for c in rows["samples"]["changed"]:
            print(f"~ {c['key']}: {c['changes']}")


def _check_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
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
def check_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.views.health import check_table, health_record

    log = DeltaLog.open(args.table)
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
    if args.json:
        from inspector.views.dataloss import data_loss_window

        window = data_loss_window(log, report.last_consistent_version, report.latest_version)
        emit_json({**health_record(report), "dataLossWindow": window.to_json()})
    else:
        _print_health(report, args.all_versions)
    return 0 if report.is_consistent else 4


def _print_progress(done: int, total: int) -> None:
    print(f"\rexamining files: {done}/{total}", end="", file=sys.stderr, flush=True)


def _print_health(report: HealthReport, asked_all: bool) -> None:
    from inspector.delta.text import version_ranges
    from inspector.views.health import recovery_advice, restore_command

    first, last = report.versions[0].version, report.latest_version
    scope = (
        f"every retained version ({first}..{last})"
        if report.all_versions
        else f"the latest version ({last})"
    )
    if report.all_versions and not asked_all:
        scope += ", because the latest was not consistent"
    print(
        f"Health check of {report.table_root}\nchecked {scope}; {report.files_examined} files examined"
        f"{' with Parquet footers' if report.deep else ''}\n"
    )
    if report.is_consistent:
        print(
            f"OK: the latest version {last} is consistent (every file present with its recorded size)."
        )
    else:
        print(f"NOT CONSISTENT: the latest version {last} is {report.latest.status.upper()}.")
    consistent = report.last_consistent_version
    print(f"Last consistent version: {consistent if consistent is not None else 'none'}")
    damaged = report.damaged_versions
    if damaged:
        print(
            f"\n{len(damaged)} version(s) not complete: {version_ranges([v.version for v in damaged])}"
            " (newest first; versions with the same damage are grouped)"
        )
        for group in _same_damage_groups(damaged)[:20]:
            _print_version(group)
    for problem in report.problems:
        print(f"! {problem}")
    for v in report.versions:
        for problem in v.problems if v.is_complete else ():
            print(f"! version {v.version}: {problem}")
    print(
        f"\nOrphan files: {report.orphan_files} ({report.orphan_bytes:,} bytes) that no retained "
        "version references."
    )
    print(f"\nNext step: {recovery_advice(report)}")
    command = restore_command(report)
    if command:
        print(f"  {command}")


def _same_damage_groups(damaged: list[VersionHealth]) -> list[list[VersionHealth]]:
    """Runs of consecutive versions with identical damage, newest run first."""
    groups: list[list[VersionHealth]] = []
    for v in damaged:
        prev = groups[-1][-1] if groups else None
        same = (
            prev is not None
            and prev.version + 1 == v.version
            and (
                prev.status,
                prev.missing_files,
                prev.size_mismatches,
                prev.unreadable_files,
                prev.missing_count,
                prev.size_mismatch_count,
                prev.problems,
            )
            == (
                v.status,
                v.missing_files,
                v.size_mismatches,
                v.unreadable_files,
                v.missing_count,
                v.size_mismatch_count,
                v.problems,
            )
        )
        if same:
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups[::-1]


def _print_version(group: list) -> None:
    v = group[-1]
    label = (
        f"version {v.version}" if len(group) == 1 else f"versions {group[0].version}..{v.version}"
    )
    counts = f"{v.missing_count} missing, {v.size_mismatch_count} wrong size" + (
        f", {v.unreadable_count} unreadable" if v.unreadable_count else ""
    )
    print(f"  {label:<22} {v.status.upper():<11} {counts if v.status != 'unreadable' else ''}")
    for problem in v.problems:
        print(f"      ! {problem}")
    for path in v.missing_files:
        print(f"      missing        {path}")
    for issue in (*v.size_mismatches, *v.unreadable_files):
        print(f"      {issue.state:<14} {issue.path}  ({issue.detail})")
    shown = len(v.missing_files) + len(v.size_mismatches) + len(v.unreadable_files)
    total = v.missing_count + v.size_mismatch_count + v.unreadable_count
    if total > shown:
        print(f"      ... and {total - shown} more files (the list is capped by max_listed_files)")


def _restore_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--to-version", help="The version to restore.")
    target.add_argument(
        "--to-timestamp",
        help="Restore the version current at this time (ISO 8601; no zone means UTC).",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="Show the plan and every guard; write nothing."
    )
    parser.add_argument(
        "--expect-version",
        type=int,
        default=None,
        help="Refuse unless the table is at this version now.",
    )
    parser.add_argument(
        "--reason",
        default=None,
        help="Why you restore (required to commit; recorded in the commit and the audit log).",
    )
    parser.add_argument(
        "--allow-missing-files",
        action="store_true",
        help="Leave out files to re-add that are missing: the result is a PARTIAL table.",
    )
    parser.add_argument(
        "--yes", action="store_true", help="Commit without the typed confirmation (for scripts)."
    )


@command(
    "restore",
    "Guarded RESTORE to an older version: plan, guards, typed confirmation, "
    "atomic commit, verification. Exit 3 when refused.",
)
@arguments(_restore_args)
def restore_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.delta.errors import RestoreRefused
    from inspector.restore.execute import execute_restore, plan_restore

    log = DeltaLog.open(args.table)
    _expect_version(args, log.latest_version, log.table_root, settings)
    target = (
        parse_version(args.to_version, log) if args.to_version is not None else args.to_timestamp
    )
    plan = plan_restore(log, target, settings=settings)
    context = {
        "plan": plan.to_json(),
        "guards": [g.to_json() for g in plan.guards],
        "committedVersion": None,
    }
    if not args.json:
        _print_plan(plan)
    try:
        _expect_version(args, plan.read_version, plan.table_root, settings)
        overrides = ["allow_missing_files"] if args.allow_missing_files else []
        if args.dry_run:
            return _dry_run_result(args, plan, overrides, context)
        ready = not plan.blocking_guards(overrides)
        confirmed = ready and _confirm(args, plan, settings)
        reason = (_ask_reason(args) if ready else args.reason) or ""
        result = execute_restore(
            plan,
            confirmed=confirmed,
            reason=reason,
            allow_missing_files=args.allow_missing_files,
            settings=settings,
        )
    except RestoreRefused as exc:
        exc.json_context = context  # type: ignore[attr-defined]  # cli.main adds it to --json output
        raise
    verified = result.verification is not None and result.verification.ok
    if args.json:
        emit_json(
            {
                **context,
                "committedVersion": result.committed_version,
                "verification": result.verification.to_json() if result.verification else None,
                "result": result.to_json(),
            }
        )
    else:
        _print_result(result)
    return 0 if verified else 1


def _expect_version(args: argparse.Namespace, version: int, table: str, settings: Settings) -> None:
    from inspector.delta.errors import RestoreRefused
    from inspector.restore.audit import record_attempt

    if args.expect_version is None or args.expect_version == version:
        return
    message = (
        f"The table is at version {version}, not at version {args.expect_version} as expected "
        "(--expect-version); nothing was written."
    )
    record_attempt(
        settings.audit_log,
        table=table,
        outcome="refused",
        from_version=version,
        to_version=None,
        reason=args.reason,
        error=message,
    )
    raise RestoreRefused(
        message, "Look at what changed (history), then plan again with the new version."
    )


def _dry_run_result(
    args: argparse.Namespace, plan: RestorePlan, overrides: list[str], context: dict[str, Any]
) -> int:
    blocking = plan.blocking_guards(overrides)
    if args.json:
        emit_json(context)
    else:
        print(
            "\nDry run: nothing was written." + (" A restore would be REFUSED." if blocking else "")
        )
    return 3 if blocking else 0


def _confirm(args: argparse.Namespace, plan: RestorePlan, settings: Settings) -> bool:
    """--yes, or the table name and the target version typed on a terminal."""
    from inspector.delta.errors import RestoreRefused
    from inspector.restore.audit import record_attempt

    if args.yes:
        return True
    if not sys.stdin.isatty():
        message = "Refusing to restore without confirmation: there is no terminal to type it on."
        record_attempt(
            settings.audit_log,
            table=plan.table_root,
            outcome="refused",
            from_version=plan.read_version,
            to_version=plan.target_version,
            reason=args.reason,
            error=message,
        )
        raise RestoreRefused(
            message, "Pass --yes to confirm non-interactively (scripts), or run it on a terminal."
        )
    name = input(f"\nType the table name ({plan.table_name}) to confirm: ").strip()
    version = input(f"Type the target version ({plan.target_version}) to confirm: ").strip()
    return name == plan.table_name and version == str(plan.target_version)


def _ask_reason(args: argparse.Namespace) -> str:
    if args.reason or args.yes or not sys.stdin.isatty():
        return args.reason or ""
    return input("Reason (recorded in the commit and the audit log): ").strip()


def _print_plan(plan: RestorePlan) -> None:
    from inspector.delta.protocol import describe_protocol

    m = plan.metrics
    when = f" ({iso(plan.target_timestamp)})" if plan.target_timestamp else ""
    print(
        f"Restore plan for {plan.table_root} (table '{plan.table_name}'): "
        f"version {plan.read_version} -> version {plan.target_version}{when}"
    )
    print(
        f"  re-add {m.num_restored_files} files ({m.restored_files_size} bytes), remove "
        f"{m.num_removed_files} files ({m.removed_files_size} bytes); afterwards "
        f"{m.num_of_files_after_restore} files, {m.table_size_after_restore} bytes"
    )
    print(
        f"  rows (from stats): {plan.rows_before} -> {plan.rows_after} "
        f"(+{plan.rows_added} re-added, -{plan.rows_removed} removed)"
    )
    if plan.merged_protocol is not None:
        print(f"  protocol after the restore: {describe_protocol(plan.merged_protocol)}")
    if plan.num_partitions_touched:
        print(f"  partitions touched: {plan.num_partitions_touched}")
    for problem in plan.file_problems:
        print(
            f"  {problem.state:<13} {problem.path}  (log: {problem.expected_size} bytes, "
            f"found: {problem.actual_size if problem.actual_size is not None else 'nothing'})"
        )
    print("Guards:")
    for guard in plan.guards:
        mark = "ok  " if guard.passed else "FAIL"
        extra = (
            f" (override: --{guard.override.replace('_', '-')})"
            if not guard.passed and guard.override
            else ""
        )
        print(f"  {mark} {guard.name:<24} {guard.message}{extra}")
    for warning in plan.warnings:
        print(f"  ! {warning}")


def _print_result(result: RestoreResult) -> None:
    import shlex

    m = result.metrics
    partial = " as a PARTIAL table" if result.skipped_files else ""
    print(
        f"\nCommitted version {result.committed_version}: the table now has version "
        f"{result.plan.target_version}'s data{partial} ({m.num_of_files_after_restore} files, "
        f"{m.table_size_after_restore} bytes)."
    )
    for check in result.verification.checks if result.verification else ():
        print(f"  {check.status:<7} {check.name:<15} {check.message}")
    if result.verification is not None and not result.verification.ok:
        print(
            "VERIFICATION FAILED: inspect the table before anything else; undo with the command below."
        )
    print(
        "Undo (a guarded restore back):\n  python -m inspector restore "
        f"{shlex.quote(result.plan.table_root)} --to-version {result.pre_restore_version} "
        f"--expect-version {result.committed_version} --reason 'undo restore'"
    )


def _show_args(parser: argparse.ArgumentParser) -> None:
    _table_arg(parser)
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--version", default=None, help="The version to read (default: the latest).")
    when.add_argument(
        "--timestamp",
        default=None,
        help="Read the version the table was at, at this time (UTC unless a zone is "
        "given): 2024-10-08, '2024-10-08 05:42:52', 2024-10-08T05:42:52+02:00.",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="Rows to print (default: the preview_rows setting)."
    )
    parser.add_argument("--where", default=None, help="A SQL WHERE expression evaluated by Spark.")
    parser.add_argument(
        "--spark-master",
        default=None,
        help="Spark master URL (overrides DELTA_INSPECTOR_SPARK_MASTER), e.g. "
        "spark://host:7077, yarn, k8s://...",
    )
    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Extra Spark conf (repeatable; added to DELTA_INSPECTOR_SPARK_CONF).",
    )


@command("show", "Print a version's rows (or the version at a timestamp), read by Spark.")
@arguments(_show_args)
def show_command(args: argparse.Namespace, settings: Settings) -> int:
    from inspector.rows.preview import build_preview, preview_record, resolve_version
    from inspector.rows.session import with_spark_overrides

    settings = with_spark_overrides(settings, master=args.spark_master, conf=args.spark_conf)
    log = DeltaLog.open(args.table)
    chosen = resolve_version(log, version=args.version, timestamp=args.timestamp, settings=settings)
    preview = build_preview(
        log, chosen.version, settings=settings, where=args.where, limit=args.limit
    )
    if args.json:
        emit_json(preview_record(preview))
        return 0
    _print_preview(preview, chosen)
    return 0


def _print_preview(preview: Preview, chosen: ResolvedVersion) -> None:
    from inspector.rows.preview import json_value

    if chosen.timestamp is not None:
        print(
            f"{chosen.timestamp.isoformat().replace('+00:00', 'Z')} (UTC) -> version {preview.version}"
        )
    for warning in preview.warnings:
        print(f"! {warning}", file=sys.stderr)
    names = [c.name for c in preview.columns]
    print(
        f"version {preview.version}: {preview.num_rows:,} rows"
        f"{' matching ' + preview.where if preview.where else ''}; read {preview.files_read:,} files "
        f"({preview.bytes_read:,} bytes); showing {len(preview.rows):,}"
    )
    if preview.read_path:
        from inspector.rows.readpath import ReadPath

        print(f"read path: {preview.read_path} ({ReadPath(preview.read_path).describe()})")
    print("\t".join(f"{c.name} ({c.type})" for c in preview.columns))
    for row in preview.rows:
        print("\t".join("null" if row[n] is None else str(json_value(row[n])) for n in names))
