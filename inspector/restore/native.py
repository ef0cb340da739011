"""RESTORE through Delta Lake's own command: ``RESTORE TABLE delta.`path` TO VERSION AS OF n``.

Used when :func:`inspector.restore.engine.choose_engines` picks Delta to commit (a local
table, Delta's jars loaded). Delta Inspector's plan and guards run first (typed
confirmation, expected version, missing files, protocol, reason); Delta's
``RestoreTableCommand`` then writes the commit, with the reason as ``userMetadata``, and
the verification and audit follow as for the own writer.
"""

from __future__ import annotations

from typing import Any

from inspector.delta.errors import ConcurrentModification, RestoreRefused
from inspector.log.deltalog import DeltaLog
from inspector.restore.planrecord import RestorePlan

_USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata"
_ALLOW_DOWNGRADE = "spark.databricks.delta.restore.protocolDowngradeAllowed"


def restore_with_delta(
    spark: Any,
    plan: RestorePlan,
    *,
    reason: str,
    allow_missing_files: bool,
    allow_protocol_downgrade: bool,
) -> int:
    """Run ``RESTORE TABLE delta.`path` TO VERSION AS OF n`` and return the new version.

    Raises:
        RestoreRefused: ``allow_missing_files`` was asked for (Delta would re-add
            missing files instead of leaving them out).
        ConcurrentModification: No RESTORE of this plan follows the version it read.
    """
    if allow_missing_files:
        raise RestoreRefused(
            "Delta's RESTORE cannot leave missing files out; nothing was written.",
            "Restore the missing files first, or pick another version.",
        )
    path = plan.table_root.replace("`", "``")
    # Delta takes the reason and the downgrade only from SQL conf (RESTORE has no options):
    # a session of its own (same SparkContext, own SQL conf) keeps them out of the shared one.
    session = spark.newSession()
    session.conf.set(_USER_METADATA, reason)
    session.conf.set(_ALLOW_DOWNGRADE, str(allow_protocol_downgrade).lower())
    session.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF {int(plan.target_version)}")
    log = plan.table.latest_log()  # Delta's commit landed after the plan read the log
    version = _restore_commit(log, plan.read_version, reason)
    if version is None:
        raise ConcurrentModification(
            f"No RESTORE with this reason follows version {plan.read_version}; another "
            "writer committed.",
            "Check the history before doing anything else.",
        )
    # Past read_version + 1 another writer committed between the last check and Delta's
    # commit, and Delta's conflict checker let the RESTORE through (a blind append does
    # not conflict with it): the restore did commit, so its version is returned and the
    # verification reports the other writer's files it kept.
    return version


def _restore_commit(log: DeltaLog, read_version: int, reason: str) -> int | None:
    """The version of Delta's RESTORE commit with this reason after ``read_version``."""
    for version in range(read_version + 1, log.latest_version + 1):
        info = log.commit(version).commit_info
        if info.operation == "RESTORE" and info.raw.get("userMetadata") == reason:
            return version
    return None
