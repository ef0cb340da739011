"""The restore audit log: one JSON line per attempt, and a table's trail read back from it.

The file (setting ``audit_log``) is only ever appended to, each line with a single
``write`` in append mode, so lines from several processes do not interleave on a local
filesystem.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

from inspector.connection import redact_text
from inspector.delta.jsonvalue import camel_fields, camel_json
from inspector.log.deltalog import DeltaLog


class AttemptStatus(StrEnum):
    """What became of one restore attempt. An audit line's ``outcome`` is one of the first
    four; the trail shows a committed attempt as ``verified`` when its verification passed
    (``committed`` when it failed), and ``undone`` when a later restore went back to the
    version it started from."""

    PLANNED = "planned"
    REFUSED = "refused"
    FAILED = "failed"
    COMMITTED = "committed"
    VERIFIED = "verified"
    UNDONE = "undone"


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    """One restore attempt, as recorded in the audit log. ``to_timestamp`` is the time asked
    for, if any: Delta's ``RESTORE ... TO VERSION AS OF`` records only the version."""

    # In the order of the JSON object (the audit log's lines).
    when: str
    who: str
    table: str
    name: str | None = None
    from_version: int | None
    to_version: int | None
    to_timestamp: str | None = None
    reason: str | None
    outcome: AttemptStatus
    committed_version: int | None = None
    error: str | None = None
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The entry as the JSON object written to the log (camelCase keys)."""
        return {**camel_json(self), "details": dict(self.details)}


def current_user(operator: str | None = None) -> str:
    """Who is acting: the operator's name when given, else the OS user."""
    if operator and operator.strip():
        return operator.strip()
    try:
        return getpass.getuser()
    except Exception:  # no login name (containers without passwd entries)
        return "unknown"


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """What every audit line of one restore attempt repeats: which table, from and to what,
    why, and who (``operator``; the OS user when None). See :class:`AuditEntry`."""

    table: str
    from_version: int | None
    to_version: int | None
    name: str | None = None
    to_timestamp: str | None = None
    reason: str | None = None
    operator: str | None = None


def record_attempt(
    path: str,
    attempt: Attempt,
    *,
    outcome: AttemptStatus,
    committed_version: int | None = None,
    error: str | None = None,
    details: Mapping[str, Any] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> AuditEntry:
    """Append what one attempt came to to the audit log at ``path`` and return the entry.

    The line is redacted (:func:`inspector.connection.redact_text`) first: no secret storage
    option (``secrets``), SAS token or URL signature reaches the file.
    """
    facts = dataclasses.asdict(attempt)
    entry = AuditEntry(
        when=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        who=current_user(facts.pop("operator")),
        outcome=AttemptStatus(outcome),
        committed_version=committed_version,
        error=error,
        details=dict(details or {}),
        **facts,
    )
    line = redact_text(json.dumps(entry.to_json(), default=str, ensure_ascii=False), secrets)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)
    return entry


def read_audit(path: str) -> list[AuditEntry]:
    """Every entry of the audit log at ``path``, oldest first (none when it is missing;
    unparsable lines and unknown outcomes are skipped)."""
    if not os.path.exists(path):
        return []
    entries = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                obj = json.loads(line)
                outcome = AttemptStatus(obj.get("outcome"))
            except (ValueError, AttributeError):
                continue
            if outcome in (AttemptStatus.VERIFIED, AttemptStatus.UNDONE):
                continue  # the trail's readings of an entry, never an outcome
            fields = camel_fields(AuditEntry, obj) | {"outcome": outcome}
            entries.append(AuditEntry(**fields | {"details": obj.get("details") or {}}))
    return entries


@dataclass(frozen=True, kw_only=True)
class AuditRecord:
    """One attempt of the trail: the log's entry, its status, and the undo when there was one."""

    entry: AuditEntry
    status: AttemptStatus
    undone_by: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {**self.entry.to_json(), **camel_json(self, "status", "undone_by")}

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
        return {
            **camel_json(self, "table", "audit_log"),
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
    done = [(i, e) for i, e in enumerate(entries) if e.outcome == AttemptStatus.COMMITTED]
    for n, (i, e) in enumerate(done):
        for _, later in done[n + 1 :]:
            if (
                later.to_version == e.from_version
                and later.from_version is not None
                and e.committed_version is not None
                and later.from_version >= e.committed_version
                and later.committed_version is not None
            ):
                found[i] = later.committed_version
                break
    return found


def _status(entry: AuditEntry, undone: bool) -> AttemptStatus:
    if entry.outcome != AttemptStatus.COMMITTED:
        return entry.outcome
    if undone:
        return AttemptStatus.UNDONE
    return AttemptStatus.VERIFIED if entry.details.get("verified") else AttemptStatus.COMMITTED


@dataclass(frozen=True, kw_only=True)
class UndoOffer:
    """What undoing a committed restore would do: restore ``back_to``, the version it started
    from, reverting ``later_commits`` too; ``refusal`` says why the guards would refuse it
    (a recovery that left missing files out cannot go back to a version that needs them)."""

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
        done = record.status in (AttemptStatus.COMMITTED, AttemptStatus.VERIFIED)
        if not done or e.committed_version is None or e.from_version is None:
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
