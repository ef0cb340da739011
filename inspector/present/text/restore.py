"""What ``restore`` and ``audit`` print without ``--json``: the plan and its guards, the
committed result with its undo command, and the audit trail."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from inspector.delta.text import counted, format_moment, format_time
from inspector.present.values import count_text
from inspector.restore import RestorePlan, RestoreResult
from inspector.restore.audit import AuditTrail
from inspector.table.timetravel import parse_timestamp


def shown_plan_lines(plan: RestorePlan, *, dry_run: bool, refused: bool) -> Iterator[str]:
    """A restore plan as ``restore`` shows it before any confirmation: what it re-adds and
    removes, rows, engines, missing files, guards, warnings (a dry run says so); a refused
    plan that would change nothing is its refusal alone."""
    from inspector.delta.protocol import describe_protocol

    m = plan.metrics
    when = f" ({format_time(plan.target_timestamp)})" if plan.target_timestamp else ""
    if plan.is_refusal:  # nothing to add, remove, list or warn of: the refusal alone
        yield (
            f"No restore of {plan.table_root} (table '{plan.table_name}') to version "
            f"{plan.target_version}{when}: the table is at version {plan.read_version}."
        )
    else:
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
            f"  rows (from stats): {count_text(plan.rows_before)} -> {count_text(plan.rows_after)} "
            f"(+{count_text(plan.rows_added)} re-added, -{count_text(plan.rows_removed)} removed)"
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
    if dry_run:
        refusal = " A restore would be REFUSED." if refused else ""
        yield f"\nDry run: nothing was written.{refusal}"


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


def result_lines(result: RestoreResult) -> Iterator[str]:
    """A committed restore: the new version, its verification, and the command to undo it."""
    m = result.metrics
    partial = " as a PARTIAL table" if result.skipped_files else ""
    yield (
        f"\nCommitted version {result.committed_version}: the table now has version "
        f"{result.plan.target_version}'s data{partial} "
        f"({counted(m.num_of_files_after_restore, 'file')}, "
        f"{counted(m.table_size_after_restore, 'byte')})."
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
        f"{shlex.quote(result.plan.catalog_name or result.plan.table_root)} --to-version {result.pre_restore_version} "
        f"--expect-version {result.committed_version} --reason 'undo restore'"
    )


def audit_lines(trail: AuditTrail) -> Iterator[str]:
    """``audit``: every restore attempt on the table, oldest first."""
    records = trail.records
    yield f"Restore attempts on {trail.table} ({len(records)}; log {trail.audit_log}):"
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
