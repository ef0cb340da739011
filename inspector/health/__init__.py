"""Health check: which versions of a table are complete, and the newest consistent one.

Two questions, one way each: the latest version from its snapshot (:mod:`.check`); every
retained version from one trace of the whole log, damage and all (:mod:`.allversions`,
:mod:`.trace`). Both judge each distinct file once against one walk of the table folder
(:mod:`.examine`). The package also owns the runs of versions, retention, the data-loss
window, a replica against its source and the VACUUM plan (docs/health.md,
docs/vacuum-and-replicas.md). May import ``inspector.table``, ``inspector.files``,
``inspector.log``, ``inspector.storage``, ``inspector.settings`` and ``inspector.delta``;
independent of ``inspector.diff``.
"""

from inspector.health.check import check_table
from inspector.health.records import (
    HealthReport,
    ProblemKind,
    VersionStatus,
    recovery_advice,
    recovery_reason,
    restore_command,
)

__all__ = [
    "HealthReport",
    "ProblemKind",
    "VersionStatus",
    "check_table",
    "recovery_advice",
    "recovery_reason",
    "restore_command",
]
