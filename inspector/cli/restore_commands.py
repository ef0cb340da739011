"""``restore`` (a guarded RESTORE) and ``audit``. The CLI collects input; the backend decides.

Refusals that need no plan (no way to confirm, no reason, not at ``--expect-version``)
come before any Spark work (:func:`inspector.restore.check_intent`); the rest are
decided by :func:`inspector.restore.execute_restore` on a :class:`RestoreRequest`.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

from inspector.cli.args import spark_args, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result, plan_context, render
from inspector.delta.errors import ExitCode
from inspector.present.text.restore import audit_lines, result_lines, shown_plan_lines
from inspector.restore import (
    Override,
    RestoreIntent,
    RestorePlan,
    RestoreRequest,
    check_intent,
    execute_restore,
    plan_restore,
)
from inspector.restore.audit import audit_trail
from inspector.restore.request import describe_name_source
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.versions import parse_version


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
        help="Refuse unless the table is at this version now.",
    )
    parser.add_argument(
        "--reason",
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
    table = open_table(args.table, settings)  # a commit asks again, for READ_WRITE
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
    # Each override keyword is also the name of its flag (--allow-missing-files).
    overrides = frozenset(o for o in Override if getattr(args, o.value))
    blocked = bool(plan.blocking_guards(overrides))
    # The plan and its guards: printed before any confirmation; a dry run's result.
    shown = Result(
        json=lambda: plan_context(plan),
        lines=lambda: shown_plan_lines(plan, dry_run=args.dry_run, refused=blocked),
        exit_code=ExitCode.RESTORE_REFUSED if blocked else ExitCode.OK,
    )
    if args.dry_run:
        return shown
    if not args.json:
        render(shown, as_json=False)  # the operator sees the plan before confirming
    request = _request(args, plan, overrides, ask=interactive and not blocked)
    result = execute_restore(request, settings=settings)
    verification = result.verification
    return Result(
        json=lambda: {
            **plan_context(result.plan),
            "committedVersion": result.committed_version,
            "verification": verification.to_json() if verification else None,
            "result": result.to_json(),
        },
        lines=lambda: result_lines(result),
        exit_code=ExitCode.OK
        if verification is not None and verification.ok
        else ExitCode.UNEXPECTED,
    )


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


@command("audit", "List every restore attempt on a table recorded in the audit log.")
@arguments(table_arg)
def audit_command(args: argparse.Namespace, settings: Settings) -> Result:
    trail = audit_trail(settings.audit_log, open_table(args.table, settings).root)
    return Result(json=trail.to_json, lines=partial(audit_lines, trail))
