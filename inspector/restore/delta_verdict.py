"""What Delta Lake's own ``RESTORE TABLE`` would do with a plan, said before anything is written.

Delta 4.4's ``RestoreTableCommand`` checks less than the plan's guards, and refuses
some restores for its own reasons:

- it refuses when a data file it would re-add does not exist
  (``checkSnapshotFilesAvailability``, unless ``spark.sql.files.ignoreMissingFiles``):
  ``DELTA_RESTORE_FILES_MISSING`` / a ``FileNotFound`` naming the first file;
- it refuses a target that is not older than the current version, or cannot be
  reconstructed (log expired, damaged);
- it refuses a change of the column mapping mode other than none to name
  (``changeColumnMappingModeNotSupported``), as the column mapping guard does;
- it checks only that data files *exist*: a data file of another size (truncated) or
  a missing deletion-vector file is re-added without a word, and the restored version
  is unreadable. The plan's ``files_available`` guard refuses those; Delta would not.

The verdict is for people (``restore --json``'s ``deltaRestore``); the guards still
decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.files.filecheck import FileIssue, FileRole, FileState
from inspector.restore.guards import GuardName, GuardResult


class DeltaOutcome(StrEnum):
    """What Delta's RESTORE would do."""

    COMMITS = "commits"  # the commit the plan describes
    REFUSES = "refuses"  # fails before writing
    COMMITS_UNREADABLE = "commits-unreadable"  # commits, and the restored version is unreadable


@dataclass(frozen=True, kw_only=True)
class DeltaVerdict:
    """Delta's RESTORE on this plan: its outcome, why, and the files that decide it."""

    outcome: DeltaOutcome
    reason: str
    paths: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"outcome", "reason", "paths"}``."""
        return {"outcome": str(self.outcome), "reason": self.reason, "paths": list(self.paths)}


_REFUSING_GUARDS = {
    GuardName.TARGET_VERSION: "the target is not an older version it can reconstruct",
    GuardName.COLUMN_MAPPING: "it does not allow this change of the column mapping mode",
}


def deltas_restore(guards: Sequence[GuardResult], problems: Sequence[FileIssue]) -> DeltaVerdict:
    """What Delta's own RESTORE would do with a plan, from its guards and the file problems
    of the files to re-add (see the module docstring)."""
    for guard in guards:
        if not guard.passed and guard.name in _REFUSING_GUARDS:
            return DeltaVerdict(
                outcome=DeltaOutcome.REFUSES,
                reason=f"Delta's RESTORE refuses: {_REFUSING_GUARDS[guard.name]}.",
            )
    missing = [
        p.path for p in problems if p.role is FileRole.DATA_FILE and p.state is FileState.MISSING
    ]
    if missing:
        return DeltaVerdict(
            outcome=DeltaOutcome.REFUSES,
            reason=f"Delta's RESTORE refuses: {len(missing)} data files it would re-add do not "
            "exist (it stops at the first, before writing).",
            paths=tuple(missing),
        )
    if problems:
        return DeltaVerdict(
            outcome=DeltaOutcome.COMMITS_UNREADABLE,
            reason=f"Delta's RESTORE would commit: it checks only that data files exist, so "
            f"{len(problems)} files of another size or missing deletion vectors would be "
            "re-added and the restored version could not be read.",
            paths=tuple(p.path for p in problems),
        )
    return DeltaVerdict(
        outcome=DeltaOutcome.COMMITS, reason="Delta's RESTORE would commit this plan."
    )
