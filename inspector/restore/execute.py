"""Executing a confirmed restore: decide, commit once, verify, audit; and plan its undo.

The commit is one file created only if absent (:mod:`inspector.log.commit_writer`), or
Delta's own ``RESTORE TABLE``, so a restore lands whole at ``read_version + 1`` or not at all.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

from inspector.delta.errors import (
    ConcurrentModification,
    InspectorError,
    RefusalReason,
    RestoreRefused,
)
from inspector.delta.jsonvalue import camel_json
from inspector.files.filecheck import check_files
from inspector.log.commit_writer import write_commit
from inspector.log.deltalog import DeltaLog
from inspector.restore.actions import restore_actions
from inspector.restore.audit import AttemptStatus, current_user, record_attempt
from inspector.restore.guards import Overridden, Override, unchanged_guard
from inspector.restore.plan import plan_restore
from inspector.restore.planrecord import Engine, RestoreMetrics, RestorePlan
from inspector.restore.request import RestoreRequest, audit_refusal, refuse, request_refusals
from inspector.restore.verify import Verification, verify_restore
from inspector.settings import Settings
from inspector.table.handle import for_commit
from inspector.table.history_time import history_timestamp


@dataclass(frozen=True, kw_only=True)
class RestoreResult(Overridden):
    """A committed restore of ``plan``, by ``engine``."""

    plan: RestorePlan
    committed_version: int
    reason: str
    operator: str
    overrides: frozenset[Override] = frozenset()
    engine: Engine = Engine.OWN
    verification: Verification | None = None

    @property
    def pre_restore_version(self) -> int:
        """The version before the restore (undo restores it)."""
        return self.plan.read_version

    @property
    def metrics(self) -> RestoreMetrics:
        return self.plan.effective_metrics(allow_missing_files=self.allow_missing_files)

    @property
    def skipped_files(self) -> tuple[str, ...]:
        """Paths of re-added files left out because they were missing."""
        return tuple(a.path for a in self.plan.problem_adds) if self.allow_missing_files else ()

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "committed_version", "pre_restore_version"),
            "metrics": self.metrics.to_json(),
            **camel_json(self, "reason", "operator"),
            "partial": bool(self.skipped_files),
            **camel_json(self, "skipped_files", "engine"),
            "verification": self.verification.to_json() if self.verification else None,
        }


def execute_restore(
    request: RestoreRequest, *, settings: Settings, spark: Any = None
) -> RestoreResult:
    """Decide a confirmed request, commit it, then verify it; audit every outcome.

    Refused (and audited) on any of :func:`request_refusals`, and again just before
    writing when the table moved or files to re-add changed since the plan. A table opened
    by name asks its catalog again for credentials, for ``READ_WRITE``.

    Raises:
        RestoreRefused: Nothing was written; ``reasons`` and ``plan`` say why and what.
        ConcurrentModification: The table moved after the plan; nothing was written.
    """
    plan = request.plan
    user = current_user(request.operator)
    attempt = plan.attempt(reason=request.reason, operator=user)
    secrets = plan.table.storage_options
    if refusals := request_refusals(request):
        blocking = plan.blocking_guards(request.overrides)
        refuse(refusals, attempt, plan=plan, blocking=blocking, settings=settings, secrets=secrets)
    try:
        writing = _writing(plan, settings)  # credentials for READ_WRITE, asked for now
        secrets = writing.table.storage_options  # the ones the commit uses
        result = _commit(dataclasses.replace(request, plan=writing), user, settings, spark)
    except RestoreRefused as exc:
        exc.plan = exc.plan or plan
        audit_refusal(attempt, str(exc), exc.reasons, settings=settings, secrets=secrets)
        raise
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}"
        record_attempt(
            settings.audit_log, attempt, outcome=AttemptStatus.FAILED, error=error, secrets=secrets
        )
        raise
    version = result.committed_version
    verification = verify_restore(writing, version, result, settings=settings, spark=spark)
    result = dataclasses.replace(result, verification=verification)
    record_attempt(
        settings.audit_log,
        attempt,
        outcome=AttemptStatus.COMMITTED,
        committed_version=version,
        details={
            **result.metrics.to_json(),
            "partial": bool(result.skipped_files),
            "verified": verification.ok,
            "engine": str(result.engine),
            "failedChecks": [c.name for c in verification.failures],
            "overrides": sorted(o.value for o in result.overrides),
        },
        secrets=secrets,
    )
    return result


def _commit(request: RestoreRequest, user: str, settings: Settings, spark: Any) -> RestoreResult:
    plan, reason = request.plan, request.reason.strip()
    log = plan.table.latest_log()  # the guards below must see commits made since the plan
    _recheck(plan, log, request.allow_missing_files, settings)
    engine = plan.engines(allow_missing_files=request.allow_missing_files).commit
    if engine is Engine.DELTA:  # else OWN (a CATALOG plan was refused: not_catalog_managed)
        from inspector.rows.session import get_spark

        version = _restore_with_delta(spark or get_spark(settings), request, reason)
    else:
        version = plan.read_version + 1
        actions = restore_actions(
            plan,
            commit_version=version,
            now_ms=int(time.time() * 1000),
            previous_timestamp_ms=_previous_timestamp(log, plan.read_version),
            reason=reason,
            user=user,
            allow_missing_files=request.allow_missing_files,
            allow_protocol_downgrade=request.allow_protocol_downgrade,
        )
        write_commit(log.storage, version, actions)
    return RestoreResult(
        plan=plan,
        committed_version=version,
        reason=reason,
        operator=user,
        overrides=request.overrides,
        engine=engine,
    )


def _restore_with_delta(spark: Any, request: RestoreRequest, reason: str) -> int:
    """Run ``RESTORE TABLE delta.`path` TO VERSION AS OF n`` and return the new version
    (never for a restore that leaves missing files out: :meth:`RestorePlan.engines`).

    Raises:
        ConcurrentModification: No RESTORE of this plan follows the version it read.
    """
    plan, downgrade = request.plan, request.allow_protocol_downgrade
    path = plan.table_root.replace("`", "``")
    # Delta takes the reason and the downgrade only from SQL conf (RESTORE has no options):
    # a session of its own (same SparkContext, own SQL conf) keeps them out of the shared one.
    session = spark.newSession()
    session.conf.set("spark.databricks.delta.commitInfo.userMetadata", reason)
    session.conf.set(
        "spark.databricks.delta.restore.protocolDowngradeAllowed", str(downgrade).lower()
    )
    session.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF {int(plan.target_version)}")
    log = plan.table.latest_log()  # Delta's commit landed after the plan read the log
    # Past read_version + 1 another writer committed between the last check and Delta's
    # commit, and Delta's conflict checker let the RESTORE through (a blind append does
    # not conflict with it): the restore did commit, so its version is returned and the
    # verification reports the other writer's files it kept.
    for version in range(plan.read_version + 1, log.latest_version + 1):
        info = log.commit(version).commit_info
        if info.operation == "RESTORE" and info.raw.get("userMetadata") == reason:
            return version
    raise ConcurrentModification(
        f"No RESTORE with this reason follows version {plan.read_version}; another "
        "writer committed.",
        "Check the history before doing anything else.",
    )


def _writing(plan: RestorePlan, settings: Settings) -> RestorePlan:
    """The plan on the handle the commit writes through (:func:`for_commit`): a table opened
    by name gets credentials for ``READ_WRITE`` now, and must still be where it was planned."""
    table = for_commit(plan.table, settings)
    if table.root.rstrip("/") != plan.table_root.rstrip("/"):
        raise ConcurrentModification(
            f"{plan.catalog_name} now points to {table.root}, not to {plan.table_root} as when "
            "the plan was made; nothing was written.",
            "Make a new plan on the table the name points to now.",
            reasons=[RefusalReason.TABLE_MOVED],
            plan=plan,
        )
    return dataclasses.replace(plan, table=table)


def _recheck(
    plan: RestorePlan, log: DeltaLog, allow_missing_files: bool, settings: Settings
) -> None:
    """The guards that can change between plan and commit, checked again just before writing."""
    guard = unchanged_guard(plan.read_version, log.latest_version)
    if not guard.passed:
        raise ConcurrentModification(
            guard.message,
            "Make a new plan; the other commit was kept.",
            reasons=[RefusalReason.TABLE_MOVED],
            plan=plan,
        )
    problems = check_files(
        plan.table_root, plan.files_to_add, workers=settings.check_workers, storage=log.storage
    )
    new = [p for p in problems if p.key not in plan.problem_paths]
    if new or (problems and not allow_missing_files):
        raise RestoreRefused(
            f"{len(new) or len(problems)} files to re-add went missing or changed size after the "
            f"plan was made (e.g. {(new or problems)[0].path}); nothing was written.",
            "Make a new plan to see what is still available.",
            reasons=[RefusalReason.FILES_CHANGED],
            plan=plan,
        )


def _previous_timestamp(log: DeltaLog, version: int) -> int:
    """The read version's timestamp as Delta's snapshot has it (the history's rule, without
    the monotonic correction a history applies to file times)."""
    try:
        commit = log.commit(version)
    except InspectorError:
        return 0
    config = log.snapshot(version).metadata.configuration
    return history_timestamp(commit, config, None)[0]


def plan_undo(result: RestoreResult, *, settings: Settings) -> RestorePlan:
    """Plan the undo of a restore: a guarded restore back to the pre-restore version, on the
    same handle (an undo is confirmed by the same name)."""
    return plan_restore(result.plan.table, result.pre_restore_version, settings=settings)
