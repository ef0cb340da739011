"""Health check: which versions of a table are complete, and the newest consistent one.

After a region failover, a replicated table's log can reference data files that
have not arrived (replication copies files in no guaranteed order, large files
last). The check answers, per retained version, "can a reader get every row?":

The fast check (the latest version only) is Arrow-native (:mod:`.latest`): the latest
snapshot's file table, one walk of the table folder as (path, size) columns, and hash
look-ups between them; only the problems become records. When the latest version is
not complete (or ``--all-versions`` is asked) the check goes on to every version. On a
plain log (every commit after the earliest version present and readable) that is
Arrow-native too (:mod:`.allversions`): :mod:`.trace_arrow` derives each file key's live
intervals from one table of the commits' actions, each distinct file is judged once
against one walk, and only the bad files' keys are replayed through the tally below.
Any other log (a commit missing or damaged, versions to rebase at checkpoints) and the
deep check take the traced path, in three passes:

1. Trace (:mod:`.trace`, log only): replay the commits forward once from the earliest
   snapshot, recording each version's effective file changes and every distinct file
   (data file or deletion-vector file) any retained version references.
2. Examine (:mod:`.evaluate`): stat each distinct file exactly once, in parallel, by
   the shared rule of :mod:`inspector.files.filecheck`; a deep check also reads
   Parquet footers.
3. Evaluate (:mod:`.evaluate`): walk the versions again keeping only a count of bad
   files in the live set.

:mod:`.records` holds the report and its JSON; :mod:`.advice` what to do about it.

The package owns every question of a table's health: the check above, its runs of
versions (:mod:`.runs`), retention (:mod:`.retention`), the data-loss window
(:mod:`.dataloss`), a replica against its source (:mod:`.replica`) and the VACUUM plan
(:mod:`.vacuum`). May import ``inspector.table``, ``inspector.files``, ``inspector.log``,
``inspector.storage``, ``inspector.settings`` and ``inspector.delta``; independent of
``inspector.diff``.
"""

from inspector.delta.text import version_ranges
from inspector.files.filecheck import FileIssue, FileRole, FileState
from inspector.health.advice import recovery_advice, recovery_reason, restore_command
from inspector.health.check import check_table
from inspector.health.evaluate import Progress
from inspector.health.records import (
    COMPLETE,
    INCOMPLETE,
    UNREADABLE,
    HealthProblem,
    HealthReport,
    ProblemKind,
    VersionHealth,
    VersionStatus,
    health_record,
)

DATA_FILE, DELETION_VECTOR = FileRole.DATA_FILE, FileRole.DELETION_VECTOR

__all__ = [
    "COMPLETE",
    "DATA_FILE",
    "DELETION_VECTOR",
    "INCOMPLETE",
    "UNREADABLE",
    "FileIssue",
    "FileRole",
    "FileState",
    "HealthProblem",
    "HealthReport",
    "ProblemKind",
    "Progress",
    "VersionHealth",
    "VersionStatus",
    "check_table",
    "health_record",
    "recovery_advice",
    "recovery_reason",
    "restore_command",
    "version_ranges",
]
