"""Health check: which versions of a table are complete, and the newest consistent one.

After a region failover, a replicated table's log can reference data files that
have not arrived (replication copies files in no guaranteed order, large files
last). The check answers, per retained version, "can a reader get every row?":

Two questions, one way each (:mod:`.check`). The latest version (:mod:`.latest`) is read
from its snapshot's file table. Every retained version (:mod:`.allversions`), asked with
``--all-versions`` or when the latest is not complete: :mod:`.trace` reads the whole log
once, damage and all (a commit missing or damaged ends a replay; a checkpoint after it
starts the next), :mod:`.intervals` derives each file key's live intervals from one table
of the replayed actions, and only the bad files' keys are replayed through a tally. Both
judge each distinct file once against one walk of the table folder, by one hash look-up
and the shared rule (:mod:`.judge`, :mod:`.examine`); only the problems become records.
A deep check takes the same ways and reads every data file's footer.
What the log says of itself (commits, checkpoints, the hint) is :mod:`.problems`'.

:mod:`.records` holds the report and its JSON; :mod:`.advice` what to do about it.

The package owns every question of a table's health: the check above, its runs of
versions (:mod:`.runs`), retention (:mod:`.retention`), the data-loss window
(:mod:`.dataloss`), a replica against its source (:mod:`.replica`) and the VACUUM plan
(:mod:`.vacuum`); the last two ask the full check's trace which versions name which
files. May import ``inspector.table``, ``inspector.files``, ``inspector.log``,
``inspector.storage``, ``inspector.settings`` and ``inspector.delta``; independent of
``inspector.diff``.
"""

from inspector.health.advice import recovery_advice, recovery_reason, restore_command
from inspector.health.check import check_table
from inspector.health.records import (
    HealthReport,
    ProblemKind,
    VersionStatus,
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
