"""``restore`` (a guarded RESTORE) and ``audit``. The CLI collects input; the backend decides.

Refusals that need no plan (no way to confirm, no reason, not at ``--expect-version``)
come before any Spark work (:func:`inspector.restore.check_intent`); the rest are
decided by :func:`inspector.restore.execute_restore` on a :class:`RestoreRequest`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import (
    open_table,
    spark_args,
    table_arg,
)
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result, plan_context, render
from inspector.delta.errors import ExitCode
from inspector.delta.text import counted, format_moment, format_time
from inspector.restore import (
    Override,
    RestoreIntent,
    RestorePlan,
    RestoreRequest,
    RestoreResult,
    check_intent,
    execute_restore,
    plan_restore,
)
from inspector.restore.target import describe_name_source
from inspector.restore.trail import AuditTrail, audit_trail
from inspector.settings import Settings
from inspector.table.timetravel import parse_timestamp
from inspector.table.versions import parse_version


@dataclass(frozen=True, kw_only=True)
class PlanResult(Result):
    """A restore plan and its guards (printed before any confirmation; a dry run's result)."""

    plan: RestorePlan
    dry_run: bool = False
    overrides: frozenset[Override] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return plan_context(self.plan)

    def text(self) -> Iterator[str]:
        yield from _plan_lines(self.plan)
        if self.dry_run:
            refused = " A restore would be REFUSED." if self.exit_code else ""
            yield f"\nDry run: nothing was written.{refused}"


@dataclass(frozen=True, kw_only=True)
class RestoreDone(Result):
    """A committed restore and its verification."""

    result: RestoreResult

    def to_json(self) -> dict[str, Any]:
        verification = self.result.verification
        return {
            **plan_context(self.result.plan),
            "committedVersion": self.result.committed_version,
            "verification": verification.to_json() if verification else None,
            "result": self.result.to_json(),
        }

    def text(self) -> Iterator[str]:
        return _result_lines(self.result)


def _restore_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
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
        "--allow-protocol-downgrade",
        action="store_true",
        help="Write the target version's protocol even where it is lower than the current one.",
    )
    parser.add_argument(
        "--yes", action="store_true", help="Commit without the typed confirmation (for scripts)."
    )
    spark_args(parser)


@command(
    "restore",
    "Guarded RESTORE to an older version: plan, guards, typed confirmation, "
    "atomic commit, verification. Exit 3 when refused.",
)
@arguments(_restore_args)
def restore_command(args: argparse.Namespace, settings: Settings) -> Result:
    table = open_table(args, settings, write=not args.dry_run)  # its name and options too
    log = table.log
    target = (
        parse_version(args.to_version, log) if args.to_version is not None else args.to_timestamp
    )
    interactive = sys.stdin.isatty() and not args.yes
    intent = RestoreIntent(
        table=table,
        current_version=log.latest_version,
        target=target,
        reason=args.reason or "",
        interactive=interactive,
        confirmed_in_advance=args.yes,
        dry_run=args.dry_run,
        expected_version=args.expect_version,
    )
    check_intent(intent, settings=settings)  # before Spark: refuse what needs no plan
    # The table was opened just now: the plan does not list its log again.
    plan = plan_restore(table, target, settings=settings, refresh=False)
    overrides = _overrides(args)
    blocked = bool(plan.blocking_guards(overrides))
    shown = PlanResult(
        plan=plan,
        dry_run=args.dry_run,
        overrides=overrides,
        exit_code=ExitCode.RESTORE_REFUSED if blocked else ExitCode.OK,
    )
    if args.dry_run:
        return shown
    if not args.json:
        render(shown, as_json=False)  # the operator sees the plan before confirming
    request = _request(args, plan, overrides, ask=interactive and not blocked)
    result = execute_restore(request, settings=settings)
    verified = result.verification is not None and result.verification.ok
    return RestoreDone(result=result, exit_code=ExitCode.OK if verified else ExitCode.UNEXPECTED)


def _overrides(args: argparse.Namespace) -> frozenset[Override]:
    chosen = {
        Override.ALLOW_MISSING_FILES: args.allow_missing_files,
        Override.ALLOW_PROTOCOL_DOWNGRADE: args.allow_protocol_downgrade,
    }
    return frozenset(o for o, on in chosen.items() if on)


def _request(
    args: argparse.Namespace, plan: RestorePlan, overrides: frozenset[Override], *, ask: bool
) -> RestoreRequest:
    """The request as typed on the terminal, or as confirmed by ``--yes``."""
    if args.yes:
        name, version = plan.table_name, str(plan.target_version)
    elif ask:
        source = describe_name_source(plan)
        name = input(f"\nType the table name ({plan.table_name}, {source}) to confirm: ").strip()
        version = input(f"Type the target version ({plan.target_version}) to confirm: ").strip()
    else:
        name = version = ""
    reason = args.reason or ""
    if ask and not reason:
        reason = input("Reason (recorded in the commit and the audit log): ").strip()
    return RestoreRequest(
        plan=plan,
        typed_table_name=name,
        typed_version=version,
        reason=reason,
        overrides=overrides,
        expected_version=args.expect_version,
    )


def _plan_lines(plan: RestorePlan) -> Iterator[str]:
    from inspector.delta.protocol import describe_protocol

    m = plan.metrics
    when = f" ({format_time(plan.target_timestamp)})" if plan.target_timestamp else ""
    if plan.is_refusal:  # nothing would be added or removed: the refusal alone
        yield (
            f"No restore of {plan.table_root} (table '{plan.table_name}') to version "
            f"{plan.target_version}{when}: the table is at version {plan.read_version}."
        )
        yield f"  engines: {plan.engines().describe()}"
        yield from _guard_lines(plan)
        return
    yield (
        f"Restore plan for {plan.table_root} (table '{plan.table_name}'): "
        f"version {plan.read_version} -> version {plan.target_version}{when}"
    )
    yield (
        f"  re-add {counted(m.num_restored_files, 'file')} ({counted(m.restored_files_size, 'byte')}), "
        f"remove {counted(m.num_removed_files, 'file')} ({counted(m.removed_files_size, 'byte')}); "
        f"afterwards {counted(m.num_of_files_after_restore, 'file')}, "
        f"{counted(m.table_size_after_restore, 'byte')}"
    )
    yield (
        f"  rows (from stats): {_n(plan.rows_before)} -> {_n(plan.rows_after)} "
        f"(+{_n(plan.rows_added)} re-added, -{_n(plan.rows_removed)} removed)"
    )
    if plan.rows_in_problem_files:
        yield (
            f"  {plan.rows_in_problem_files:,} of those rows are in missing or damaged files: "
            f"{counted(plan.effective_rows_after(allow_missing_files=True), 'row')} if they are "
            "left out"
        )
    yield f"  engines: {plan.engines().describe()}"
    if plan.merged_protocol is not None:
        yield f"  protocol after the restore: {describe_protocol(plan.merged_protocol)}"
    if plan.num_partitions_touched:
        yield f"  partitions touched: {plan.num_partitions_touched}"
    for problem in plan.file_problems:
        found = problem.actual_size if problem.actual_size is not None else "nothing"
        yield (
            f"  {problem.state:<13} {problem.path}  (log: {problem.expected_size} bytes, "
            f"found: {found})"
        )
    yield from _guard_lines(plan)
    for warning in plan.warnings:
        yield f"  ! {warning}"


def _guard_lines(plan: RestorePlan) -> Iterator[str]:
    yield "Guards:"
    for guard in plan.guards:
        mark = "ok  " if guard.passed else "FAIL"
        extra = (
            f" (override: --{guard.override.replace('_', '-')})"
            if not guard.passed and guard.override
            else ""
        )
        yield f"  {mark} {guard.name:<24} {guard.message}{extra}"


def _result_lines(result: RestoreResult) -> Iterator[str]:
    m = result.metrics
    partial = " as a PARTIAL table" if result.skipped_files else ""
    yield (
        f"\nCommitted version {result.committed_version}: the table now has version "
        f"{result.plan.target_version}'s data{partial} ({m.num_of_files_after_restore} files, "
        f"{m.table_size_after_restore} bytes)."
    )
    for check in result.verification.checks if result.verification else ():
        yield f"  {check.status:<7} {check.name:<15} {check.message}"
    if result.verification is not None and not result.verification.ok:
        yield (
            "VERIFICATION FAILED: inspect the table before anything else; undo with the "
            "command below."
        )
    yield (
        "Undo (a guarded restore back):\n  python -m inspector restore "
        f"{shlex.quote(_typed_table(result.plan))} --to-version {result.pre_restore_version} "
        f"--expect-version {result.committed_version} --reason 'undo restore'"
    )


def _typed_table(plan: RestorePlan) -> str:
    """The table as the user names it on the command line: its catalog name, or its root."""
    return plan.catalog_name or plan.table_root


@dataclass(frozen=True, kw_only=True)
class AuditResult(Result):
    """Every restore attempt on a table, from the audit log."""

    trail: AuditTrail

    def to_json(self) -> dict[str, Any]:
        return self.trail.to_json()

    def text(self) -> Iterator[str]:
        records = self.trail.records
        yield f"Restore attempts on {self.trail.table} ({len(records)}; log {self.trail.audit_log}):"
        if not records:
            yield "  none recorded."
        for r in records:
            e = r.entry
            target = f"v{e.from_version} -> v{e.to_version}"
            new = f" = v{e.committed_version}" if e.committed_version is not None else ""
            undo = f" (undone by v{r.undone_by})" if r.undone_by is not None else ""
            why = f"  reason: {e.reason}" if e.reason else ""
            error = f"  error: {e.error}" if e.error else ""
            when = format_moment(parse_timestamp(e.when))
            yield f"  {when}  {e.who:<12} {r.status.value:<9} {target}{new}{undo}{why}{error}"


def _n(value: int | None) -> str:
    """A count with separators; ``?`` where the log cannot know it (a file without stats)."""
    return "?" if value is None else f"{value:,}"


@command("audit", "List every restore attempt on a table recorded in the audit log.")
@arguments(table_arg)
def audit_command(args: argparse.Namespace, settings: Settings) -> AuditResult:
    root = open_table(args, settings).root
    return AuditResult(trail=audit_trail(settings.audit_log, root))
