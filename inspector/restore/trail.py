"""The audit trail of a table: every restore attempt, with what became of it.

Reads the audit log (:mod:`inspector.restore.audit`) and gives each attempt a status
people can filter on: ``planned``, ``refused``, ``failed``, ``committed`` (its
verification failed), ``verified`` and ``undone`` (a later restore went back to the
version it started from).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

from inspector.log.deltalog import DeltaLog
from inspector.restore.audit import AuditEntry, AuditOutcome, read_audit


class AttemptStatus(StrEnum):
    """What became of one restore attempt."""

    PLANNED = "planned"
    REFUSED = "refused"
    FAILED = "failed"
    COMMITTED = "committed"
    VERIFIED = "verified"
    UNDONE = "undone"


@dataclass(frozen=True, kw_only=True)
class AuditRecord:
    """One attempt of the trail: the log's entry, its status, and the undo when there was one."""

    entry: AuditEntry
    status: AttemptStatus
    undone_by: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry's JSON (camelCase keys) with ``status`` and ``undoneBy``."""
        return {**self.entry.to_json(), "status": self.status.value, "undoneBy": self.undone_by}

    def row(self) -> dict[str, Any]:
        """A flat row for a table or a CSV file (no nested details)."""
        e = self.entry
        return {
            "when": e.when,
            "who": e.who,
            "status": self.status.value,
            "from version": e.from_version,
            "to version": e.to_version,
            "committed version": e.committed_version,
            "undone by": self.undone_by,
            "reason": e.reason or "",
            "error": e.error or "",
        }


@dataclass(frozen=True, kw_only=True)
class AuditTrail:
    """Every restore attempt on one table, oldest first."""

    table: str
    audit_log: str
    records: tuple[AuditRecord, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"table", "auditLog", "records": [...]}``."""
        return {
            "table": self.table,
            "auditLog": self.audit_log,
            "records": [r.to_json() for r in self.records],
        }


def audit_trail(audit_log: str, table_root: str) -> AuditTrail:
    """The restore attempts on the table at ``table_root`` recorded in ``audit_log`` (setting
    ``audit_log``; missing means none), oldest first, each with its status."""
    wanted = _normalise(table_root)
    entries = [e for e in read_audit(audit_log) if _normalise(e.table or "") == wanted]
    undone = _undone_by(entries)
    records = tuple(
        AuditRecord(entry=e, status=_status(e, i in undone), undone_by=undone.get(i))
        for i, e in enumerate(entries)
    )
    return AuditTrail(table=table_root, audit_log=audit_log, records=records)


def _normalise(root: str) -> str:
    return root.rstrip("/").removeprefix("file://") if root else root


def _undone_by(entries: list[AuditEntry]) -> dict[int, int]:
    """Committed attempts a later commit restored back from: index → the undoing version."""
    found: dict[int, int] = {}
    for i, e in enumerate(entries):
        if e.outcome != AuditOutcome.COMMITTED:
            continue
        for later in entries[i + 1 :]:
            if (
                later.outcome == AuditOutcome.COMMITTED
                and later.to_version == e.from_version
                and later.from_version is not None
                and e.committed_version is not None
                and later.from_version >= e.committed_version
                and later.committed_version is not None
            ):
                found[i] = later.committed_version
                break
    return found


def _status(entry: AuditEntry, undone: bool) -> AttemptStatus:
    if entry.outcome != AuditOutcome.COMMITTED:
        return AttemptStatus(entry.outcome)
    if undone:
        return AttemptStatus.UNDONE
    return AttemptStatus.VERIFIED if entry.details.get("verified") else AttemptStatus.COMMITTED


@dataclass(frozen=True, kw_only=True)
class UndoOffer:
    """What undoing a committed restore would do: a guarded restore back to the version it
    started from, and everything that asks of the operator.

    Attributes:
        restore_version: The version the restore committed.
        back_to: The version it started from (an undo restores it).
        later_commits: Versions committed after the restore: an undo reverts them too.
        refusal: Why the guards would refuse the undo (None: they need not): a recovery
            that left missing files out cannot go back to a version that needs them.
    """

    restore_version: int
    back_to: int
    later_commits: tuple[int, ...] = ()
    refusal: str | None = None

    def text(self) -> str:
        """One paragraph for people: what the undo restores, and what else it reverts."""
        text = f"Undo the restore committed as version {self.restore_version}: restore version {self.back_to}."
        if self.later_commits:
            first, last = self.later_commits[0], self.later_commits[-1]
            which = f"version {first}" if first == last else f"versions {first} to {last}"
            text += f" It would also revert {which}, committed after the restore."
        return text


def undo_offer(
    *,
    restore_version: int,
    back_to: int,
    latest_version: int,
    partial: bool,
    still_missing: bool = True,
) -> UndoOffer:
    """What undoing a restore would do (the one rule for the Restore and Audit pages).

    ``partial``: the restore left missing files out (a recovery); ``still_missing``: one of
    them is still missing (see :func:`left_out_missing`); once every one is back, the undo's
    guards pass.
    """
    refusal = None
    if partial and still_missing:
        refusal = (
            f"No undo: version {back_to} needs the files this recovery left out because they "
            "were missing, so the guards would refuse a restore back to it."
        )
    later = tuple(range(restore_version + 1, latest_version + 1))
    return UndoOffer(
        restore_version=restore_version, back_to=back_to, later_commits=later, refusal=refusal
    )


def left_out_missing(log: DeltaLog, paths: Sequence[str]) -> bool:
    """Whether any file a recovery left out (its path as the log writes it, URL-encoded and
    relative to the table root) is still missing."""
    return any(log.storage.head(unquote(path)) is None for path in paths)


def undo_offers(trail: AuditTrail, latest_version: int) -> list[UndoOffer]:
    """The undo of every committed restore not undone yet, newest first."""
    offers = []
    for record in reversed(trail.records):
        e = record.entry
        if record.status not in (AttemptStatus.COMMITTED, AttemptStatus.VERIFIED):
            continue
        if e.committed_version is None or e.from_version is None:
            continue
        if e.committed_version > latest_version:  # an entry of another table's life
            continue
        offers.append(
            undo_offer(
                restore_version=e.committed_version,
                back_to=e.from_version,
                latest_version=latest_version,
                partial=bool(e.details.get("partial")),
            )
        )
    return offers
