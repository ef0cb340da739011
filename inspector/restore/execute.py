"""Guarded RESTORE: plan (a dry run), execute (one atomic commit), verify, undo.

Nothing is written to a table unless the operator confirmed, gave a reason, and
every guard passed (or an explicit override covers it). The commit is one new
commit file created only if absent (see :mod:`inspector.log.commit_writer`), so a
restore either lands whole at ``read_version + 1`` or not at all. Every attempt
is recorded in the audit log.

Typical use::

    # settings: the caller's (the CLI and the app read them from the environment)
    plan = plan_restore(DeltaLog.open(path), 12, settings=settings)
    result = execute_restore(plan, confirmed=True, reason="bad load at 13", settings=settings)
    undo = plan_undo(result, settings=settings)  # a guarded restore back, also confirmed
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.delta import properties
from inspector.delta.errors import ConcurrentModification, InspectorError, RestoreRefused
from inspector.log.commit_writer import write_commit
from inspector.log.deltalog import DeltaLog
from inspector.restore.actions import restore_actions
from inspector.restore.audit import current_user, record_attempt
from inspector.restore.guards import GuardName, GuardResult, Override, unchanged_guard
from inspector.restore.plan import RestoreMetrics, RestorePlan, plan_restore
from inspector.restore.verify import Verification, verify_restore
from inspector.settings import Settings
from inspector.views.filecheck import check_files

__all__ = [
    "RestorePlan",
    "RestoreResult",
    "execute_restore",
    "plan_restore",
    "plan_undo",
    "verify_restore",
]


@dataclass(frozen=True, kw_only=True)
class RestoreResult:
    """A committed restore.

    Attributes:
        plan: The plan that was executed.
        committed_version: The new version (``plan.read_version + 1``).
        pre_restore_version: The version before the restore (undo restores it).
        metrics: What was committed (Delta's metrics).
        reason: The operator's reason (the commit's ``userMetadata``).
        operator: Who restored.
        allow_missing_files: Whether missing files were left out (a partial table).
        allow_protocol_downgrade: Whether the target's protocol was written as is.
        skipped_files: Paths of re-added files left out because they were missing.
        engine: ``delta-inspector`` (our commit) or ``delta-spark`` (Delta's RESTORE).
        commit_file: The commit file written (None when Delta's RESTORE wrote it).
        verification: The checks run after the commit.
    """

    plan: RestorePlan
    committed_version: int
    pre_restore_version: int
    metrics: RestoreMetrics
    reason: str
    operator: str
    allow_missing_files: bool = False
    allow_protocol_downgrade: bool = False
    skipped_files: tuple[str, ...] = ()
    engine: str = "delta-inspector"
    commit_file: str | None = None
    verification: Verification | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (CLI ``restore --json``)."""
        return {
            "committedVersion": self.committed_version,
            "preRestoreVersion": self.pre_restore_version,
            "metrics": self.metrics.to_json(),
            "reason": self.reason,
            "operator": self.operator,
            "partial": bool(self.skipped_files),
            "skippedFiles": list(self.skipped_files),
            "engine": self.engine,
            "verification": self.verification.to_json() if self.verification else None,
        }


def execute_restore(
    plan: RestorePlan,
    *,
    confirmed: bool,
    reason: str,
    allow_missing_files: bool = False,
    allow_protocol_downgrade: bool = False,
    operator: str | None = None,
    settings: Settings,
    spark: Any = None,
) -> RestoreResult:
    """Commit a planned restore, then verify it.

    Args:
        plan: A plan from :func:`plan_restore`, made on the table's latest version.
        confirmed: The operator confirmed this exact plan (typed the table and version).
        reason: Why (required; recorded as the commit's ``userMetadata`` and in the audit log).
        allow_missing_files: Proceed although files to re-add are missing or truncated;
            they are left out and the result is a PARTIAL table.
        allow_protocol_downgrade: Write the target's protocol even if lower than the current.
        operator: Who is restoring (default: the OS user).
        settings: For the audit log and file checks.
        spark: The session for Delta's RESTORE (when its jars are present) and verification.

    Returns:
        The result, with its verification.

    Raises:
        RestoreRefused: Not confirmed, no reason, or a guard refused; nothing was written.
        ConcurrentModification: The table moved after the plan; nothing was written.
    """
    user = current_user(operator)
    audit: dict[str, Any] = {
        "table": plan.table_root,
        "from_version": plan.read_version,
        "to_version": plan.target_version,
        "reason": reason,
        "operator": user,
    }
    try:
        _check_request(plan, confirmed, reason, allow_missing_files, allow_protocol_downgrade)
        result = _commit(
            plan,
            reason.strip(),
            user,
            allow_missing_files,
            allow_protocol_downgrade,
            settings,
            spark,
        )
    except RestoreRefused as exc:
        record_attempt(settings.audit_log, outcome="refused", error=str(exc), **audit)
        raise
    except BaseException as exc:
        record_attempt(
            settings.audit_log, outcome="failed", error=f"{type(exc).__name__}: {exc}", **audit
        )
        raise
    verification = verify_restore(result, spark=spark, settings=settings)
    result = dataclasses.replace(result, verification=verification)
    record_attempt(
        settings.audit_log,
        outcome="committed",
        committed_version=result.committed_version,
        details={
            **result.metrics.to_json(),
            "partial": bool(result.skipped_files),
            "verified": verification.ok,
            "engine": result.engine,
            "failedChecks": [c.name for c in verification.failures],
        },
        **audit,
    )
    return result


def _check_request(
    plan: RestorePlan,
    confirmed: bool,
    reason: str,
    allow_missing_files: bool,
    allow_protocol_downgrade: bool,
) -> None:
    overrides = [
        name
        for name, on in (
            (Override.ALLOW_MISSING_FILES, allow_missing_files),
            (Override.ALLOW_PROTOCOL_DOWNGRADE, allow_protocol_downgrade),
        )
        if on
    ]
    blocking = plan.blocking_guards(overrides)
    if blocking:
        raise RestoreRefused(
            "The restore was refused: " + " ".join(g.message for g in blocking), _hint(blocking)
        )
    if confirmed is not True:
        raise RestoreRefused(
            "The restore was not confirmed; nothing was written.",
            "Confirm by typing the table name and the target version "
            "(or pass --yes on the command line).",
        )
    if not (reason or "").strip():
        raise RestoreRefused(
            "A reason is required for every restore; nothing was written.",
            "Say why you are restoring (it is recorded in the commit and the audit log).",
        )


def _hint(blocking: Sequence[GuardResult]) -> str:
    names = {g.name for g in blocking}
    if GuardName.TABLE_UNCHANGED in names:
        return "Make a new plan on the table's latest version."
    if names == {GuardName.FILES_AVAILABLE}:
        return (
            "Restore the missing files from a backup, pick another version, or accept a partial "
            "table with allow_missing_files (--allow-missing-files)."
        )
    return "Nothing was written. Resolve the problems above or pick another version."


def _commit(
    plan: RestorePlan,
    reason: str,
    user: str,
    allow_missing_files: bool,
    allow_protocol_downgrade: bool,
    settings: Settings,
    spark: Any,
) -> RestoreResult:
    log = DeltaLog.open(plan.table_root)
    _recheck(plan, log, allow_missing_files, settings)
    if plan.delta_jars:
        from inspector.restore.native import restore_with_delta
        from inspector.rows.session import get_spark

        version = restore_with_delta(
            spark or get_spark(settings),
            plan,
            reason,
            allow_missing_files,
            allow_protocol_downgrade,
        )
        return _result(
            plan,
            version,
            reason,
            user,
            allow_missing_files,
            allow_protocol_downgrade,
            "delta-spark",
            None,
        )
    version = plan.read_version + 1
    actions = restore_actions(
        plan,
        commit_version=version,
        now_ms=int(time.time() * 1000),
        previous_timestamp_ms=_previous_timestamp(log, plan.read_version),
        reason=reason,
        user=user,
        allow_missing_files=allow_missing_files,
        allow_protocol_downgrade=allow_protocol_downgrade,
    )
    path = write_commit(log.storage, version, actions)
    return _result(
        plan,
        version,
        reason,
        user,
        allow_missing_files,
        allow_protocol_downgrade,
        "delta-inspector",
        path,
    )


def _recheck(
    plan: RestorePlan, log: DeltaLog, allow_missing_files: bool, settings: Settings
) -> None:
    """The guards that can change between plan and commit, checked again just before writing."""
    guard = unchanged_guard(plan.read_version, log.latest_version)
    if not guard.passed:
        raise ConcurrentModification(guard.message, "Make a new plan; the other commit was kept.")
    problems = check_files(plan.table_root, plan.files_to_add, workers=settings.check_workers)
    new = [p for p in problems if p.key not in plan.problem_paths]
    if new or (problems and not allow_missing_files):
        raise RestoreRefused(
            f"{len(new) or len(problems)} files to re-add went missing or changed size after the "
            f"plan was made (e.g. {(new or problems)[0].path}); nothing was written.",
            "Make a new plan to see what is still available.",
        )


def _previous_timestamp(log: DeltaLog, version: int) -> int:
    """The read version's timestamp: its in-commit timestamp when enabled, else its file time."""
    try:
        commit = log.commit(version)
    except InspectorError:
        return 0
    config = log.snapshot(version).metadata.configuration
    ict = commit.commit_info.in_commit_timestamp
    if properties.enabled(config, properties.ENABLE_IN_COMMIT_TIMESTAMPS) and ict is not None:
        return ict
    return commit.file.modification_time


def _result(
    plan: RestorePlan,
    version: int,
    reason: str,
    user: str,
    allow_missing_files: bool,
    allow_protocol_downgrade: bool,
    engine: str,
    path: str | None,
) -> RestoreResult:
    skipped = (
        tuple(a.path for a in plan.files_to_add if a.key in plan.problem_paths)
        if allow_missing_files
        else ()
    )
    return RestoreResult(
        plan=plan,
        committed_version=version,
        pre_restore_version=plan.read_version,
        metrics=plan.effective_metrics(allow_missing_files=allow_missing_files),
        reason=reason,
        operator=user,
        allow_missing_files=allow_missing_files,
        allow_protocol_downgrade=allow_protocol_downgrade,
        skipped_files=skipped,
        engine=engine,
        commit_file=path,
    )


def plan_undo(result: RestoreResult, *, settings: Settings, spark: Any = None) -> RestorePlan:
    """Plan the undo of a restore: a guarded restore back to the pre-restore version.

    Args:
        result: The restore to undo.
        settings: As for :func:`plan_restore`.
        spark: As for :func:`plan_restore`.

    Returns:
        A plan to execute with :func:`execute_restore` (confirmation and reason required).
    """
    return plan_restore(
        DeltaLog.open(result.plan.table_root),
        result.pre_restore_version,
        settings=settings,
        spark=spark,
    )
