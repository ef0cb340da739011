"""The restore audit log: one JSON line per attempt (planned, refused, committed, failed).

The file (setting ``audit_log``) is only ever appended to. Each line is written
with a single ``write`` on a file opened in append mode, so lines from several
processes do not interleave on a local filesystem.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from inspector.connection import redact_text
from inspector.delta.jsonvalue import camel_fields, camel_json


class AuditOutcome(StrEnum):
    """What an audited restore attempt came to."""

    PLANNED = "planned"
    REFUSED = "refused"
    COMMITTED = "committed"
    FAILED = "failed"


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    """One restore attempt, as recorded in the audit log.

    ``from_version`` is the version the table was at; ``to_version`` the target;
    ``to_timestamp`` the time the operator asked for, when the target was asked by time
    (Delta's ``RESTORE ... TO VERSION AS OF`` records only the version it was given);
    ``committed_version`` the new version when the outcome is ``committed``.
    """

    # In the order of the JSON object (the audit log's lines).
    when: str
    who: str
    table: str
    name: str | None = None
    from_version: int | None
    to_version: int | None
    to_timestamp: str | None = None
    reason: str | None
    outcome: AuditOutcome
    committed_version: int | None = None
    error: str | None = None
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The entry as the JSON object written to the log (camelCase keys)."""
        fields = camel_json(self)
        return {**fields, "outcome": str(self.outcome), "details": dict(self.details)}


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
    outcome: AuditOutcome,
    committed_version: int | None = None,
    error: str | None = None,
    details: Mapping[str, Any] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> AuditEntry:
    """Append what one attempt came to to the audit log and return the entry.

    The line is redacted (:func:`inspector.connection.redact_text`) before it is written:
    no secret storage option, SAS token or URL signature reaches the file.

    Args:
        path: The audit log file (created with its folder when missing).
        attempt: The table, versions, reason and operator.
        outcome: What the attempt came to.
        committed_version: The new version, for ``committed``.
        error: Why it was refused or failed.
        details: Extra facts (metrics, overrides used, verification summary).
        secrets: The storage options in use (their secret values are masked).

    Raises:
        ValueError: If ``outcome`` is not a known outcome (a programming error).
    """
    facts = {f.name: getattr(attempt, f.name) for f in dataclasses.fields(attempt)}
    entry = AuditEntry(
        when=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        who=current_user(facts.pop("operator")),
        outcome=AuditOutcome(outcome),
        committed_version=committed_version,
        error=error,
        details=dict(details or {}),
        **facts,
    )
    line = json.dumps(entry.to_json(), default=str, ensure_ascii=False)
    _append_line(path, redact_text(line, secrets))
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
                outcome = AuditOutcome(obj.get("outcome"))
            except (ValueError, AttributeError):
                continue
            fields = camel_fields(AuditEntry, obj) | {"outcome": outcome}
            entries.append(AuditEntry(**fields | {"details": obj.get("details") or {}}))
    return entries


def _append_line(path: str, line: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)
