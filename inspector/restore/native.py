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
        ConcurrentModification: The new version is not Delta's restore of this plan.
    """
    if allow_missing_files:
        raise RestoreRefused(
            "Delta's RESTORE cannot leave missing files out; nothing was written.",
            "Restore the missing files first, or pick another version.",
        )
    path = plan.table_root.replace("`", "``")
    spark.conf.set(_USER_METADATA, reason)
    if allow_protocol_downgrade:
        spark.conf.set(_ALLOW_DOWNGRADE, "true")
    try:
        spark.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF {int(plan.target_version)}")
    finally:
        spark.conf.unset(_USER_METADATA)
        spark.conf.unset(_ALLOW_DOWNGRADE)
    log = plan.table.latest_log()  # Delta's commit landed after the plan read the log
    version = plan.read_version + 1
    if log.commit(version).commit_info.operation != "RESTORE":
        raise ConcurrentModification(
            f"Version {version} is not this restore; another writer committed.",
            "Check the history before doing anything else.",
        )
    return version
