"""The health check's records: one verdict per version, the report (with its JSON), and what
to do about it (the recovery reason, the restore command, the advice)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.jsonvalue import camel_json
from inspector.delta.text import version_ranges
from inspector.files.filecheck import FileIssue


class VersionStatus(StrEnum):
    """Whether a reader gets every row of a version."""

    COMPLETE = "complete"
    INCOMPLETE = "incomplete"
    UNREADABLE = "unreadable"


class ProblemKind(StrEnum):
    """What kind of problem the health check found at a version (grouping uses it, not prose)."""

    COMMIT_MISSING = "commit_missing"
    COMMIT_DAMAGED = "commit_damaged"
    REPLAY_BROKEN = "replay_broken"  # an earlier commit is unreadable; no checkpoint bridges it
    SNAPSHOT_UNREADABLE = "snapshot_unreadable"  # a version to start over from cannot be read
    CHECKPOINT = "checkpoint"  # a checkpoint (or the _last_checkpoint hint) of this version
    CHECKSUM_MISMATCH = "checksum_mismatch"  # the version's .crc disagrees with its replay
    CHECKSUM_UNREADABLE = "checksum_unreadable"  # the version's .crc cannot be parsed


class OrphanScope(StrEnum):
    """Which references tell an orphan file from a file the table still needs: the latest
    snapshot's (the fast check's, as Delta's VACUUM reads them) or every retained version's."""

    LATEST_SNAPSHOT = "latestSnapshot"
    RETAINED_VERSIONS = "retainedVersions"

    @property
    def meaning(self) -> str:
        """What an orphan is under this scope, for the text output and the app."""
        if self is OrphanScope.LATEST_SNAPSHOT:
            return (
                "that neither the latest version's files nor its tombstones reference (as "
                "VACUUM reads the log; check --all-versions also spares older versions' files)"
            )
        return "that no retained version references"


@dataclass(frozen=True, kw_only=True)
class HealthProblem:
    """One problem at a version: its kind, and the message shown to users (and in JSON)."""

    kind: ProblemKind
    message: str

    def __str__(self) -> str:
        return self.message


class ChecksumStatus(StrEnum):
    """What a version's ``.crc`` file says of its replayed state."""

    MATCHES = "matches"
    DIFFERS = "differs"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, kw_only=True)
class ChecksumCheck:
    """A version's ``.crc`` (Delta's version checksum) compared with its replayed state:
    ``fields`` names the fields that disagree as the file names them; ``detail`` says why an
    unreadable one cannot be parsed, or what a differing one records against the replay."""

    version: int
    status: ChecksumStatus
    fields: tuple[str, ...] = ()
    detail: str = ""

    @property
    def problem(self) -> HealthProblem | None:
        """The health problem this is (None when the checksum matches)."""
        if self.status is ChecksumStatus.MATCHES:
            return None
        if self.status is ChecksumStatus.UNREADABLE:
            message = f"Its checksum file ({self.version:020d}.crc) cannot be parsed: {self.detail}"
            return HealthProblem(kind=ProblemKind.CHECKSUM_UNREADABLE, message=message)
        message = (
            f"Its checksum file ({self.version:020d}.crc) disagrees with the replayed log on "
            f"{', '.join(self.fields)}: {self.detail}. The log or its files were changed after "
            "the writer recorded this version (a partial copy, a hand edit) or the writer erred."
        )
        return HealthProblem(kind=ProblemKind.CHECKSUM_MISMATCH, message=message)

    def to_json(self) -> dict[str, Any]:
        return camel_json(self, "status", "fields", "detail")


@dataclass(frozen=True, kw_only=True)
class VersionHealth:
    """The verdict for one version; the lists of bad files are capped at
    ``max_listed_files``, the counts are exact."""

    version: int
    status: VersionStatus
    missing_files: tuple[str, ...] = ()
    missing_count: int = 0
    size_mismatches: tuple[FileIssue, ...] = ()
    size_mismatch_count: int = 0
    unreadable_files: tuple[FileIssue, ...] = ()
    unreadable_count: int = 0
    problems: tuple[HealthProblem, ...] = ()
    checksum: ChecksumCheck | None = None  # None: no .crc for this version, or not read

    @property
    def is_complete(self) -> bool:
        return self.status is VersionStatus.COMPLETE

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self),
            "sizeMismatches": [i.to_json() for i in self.size_mismatches],
            "unreadableFiles": [i.to_json() for i in self.unreadable_files],
            "problems": [p.message for p in self.problems],
            "checksum": self.checksum.to_json() if self.checksum is not None else None,
        }


@dataclass(frozen=True, kw_only=True)
class HealthReport:
    """The result of :func:`~inspector.health.check_table`: ``versions`` oldest first (only
    the latest when the fast check found it complete); the orphans are the files under the
    root that nothing in ``orphan_scope`` references."""

    table_root: str
    latest_version: int
    last_consistent_version: int | None
    versions: tuple[VersionHealth, ...]
    orphan_files: int
    orphan_bytes: int
    files_examined: int
    problems: tuple[str, ...]
    all_versions: bool = False
    deep: bool = False
    orphan_paths: tuple[str, ...] = ()
    orphan_scope: OrphanScope = OrphanScope.RETAINED_VERSIONS

    @property
    def latest(self) -> VersionHealth:
        return self.versions[-1]

    @property
    def is_consistent(self) -> bool:
        return self.latest.is_complete

    @property
    def damaged_versions(self) -> list[VersionHealth]:
        return [v for v in self.versions if not v.is_complete]

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract for a report (see docs/json-contracts.md, "check")."""
        return {
            "table": self.table_root,
            **camel_json(self, "latest_version", "last_consistent_version", "all_versions", "deep"),
            "versions": [v.to_json() for v in self.versions],
            **camel_json(self, "orphan_files", "orphan_bytes", "orphan_scope", "files_examined"),
            "problems": list(self.problems),
        }


def recovery_reason(report: HealthReport) -> str:
    """The reason recorded with a restore to the last consistent version (audit log, userMetadata)."""
    target, latest = report.last_consistent_version, report.latest
    after = [v.version for v in report.damaged_versions if target is None or v.version > target]
    return (
        f"Recovery to the last consistent version {target}: the health check found version(s) "
        f"{version_ranges(after)} incomplete; the latest version {latest.version} references "
        f"{latest.missing_count} missing and {latest.size_mismatch_count + latest.unreadable_count} "
        f"damaged file(s), which the restore removes from the log."
    )


def restore_command(report: HealthReport) -> str | None:
    """The CLI command that restores to the last consistent version, or None when there is none."""
    target = report.last_consistent_version
    if target is None or report.is_consistent or report.latest.status is VersionStatus.UNREADABLE:
        return None
    return (
        f"python -m inspector restore {shlex.quote(report.table_root)} --to-version {target} "
        f"--expect-version {report.latest_version} --reason {shlex.quote(recovery_reason(report))}"
    )


def recovery_advice(report: HealthReport) -> str:
    """What an operator should do next, in one paragraph."""
    target = report.last_consistent_version
    if report.is_consistent:
        return "The latest version is consistent; no recovery is needed."
    if report.latest.status is VersionStatus.UNREADABLE:
        return (
            "The log itself is damaged at the latest version, so no restore can be committed on it. "
            "Copy the missing or damaged commit files from the source (or wait for replication "
            "to finish), then run the check again."
        )
    if target is None:
        return (
            "No retained version is complete. Wait for replication to finish or copy the missing "
            "files from the source, then run the check again."
        )
    return (
        f"If replication is still running, wait for it and check again. If the missing files are "
        f"lost, restore to version {target}, the last consistent version: the restore removes the "
        f"missing files from the log and re-adds only files that exist."
    )
