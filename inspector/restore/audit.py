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
from inspector.delta.jsonvalue import camel_json


class AuditOutcome(StrEnum):
    """What an audited restore attempt came to."""

    PLANNED = "planned"
    REFUSED = "refused"
    COMMITTED = "committed"
    FAILED = "failed"


#: An entry's fields in the order of its JSON object (the audit log's lines).
_JSON_ORDER = (
    "when",
    "who",
    "table",
    "name",
    "from_version",
    "to_version",
    "to_timestamp",
    "reason",
    "outcome",
    "committed_version",
    "error",
    "details",
)


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    """One restore attempt, as recorded in the audit log.

    ``from_version`` is the version the table was at; ``to_version`` the target;
    ``to_timestamp`` the time the operator asked for, when the target was asked by time
    (Delta's ``RESTORE ... TO VERSION AS OF`` records only the version it was given);
    ``committed_version`` the new version when the outcome is ``committed``.
    """

    when: str
    who: str
    table: str
    from_version: int | None
    to_version: int | None
    reason: str | None
    outcome: AuditOutcome
    name: str | None = None
    to_timestamp: str | None = None
    committed_version: int | None = None
    error: str | None = None
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The entry as the JSON object written to the log (camelCase keys)."""
        fields = camel_json(self, *_JSON_ORDER)
        return {**fields, "outcome": str(self.outcome), "details": dict(self.details)}


def current_user(operator: str | None = None) -> str:
    """Who is acting: the operator's name when given, else the OS user."""
    if operator and operator.strip():
        return operator.strip()
    try:
        return getpass.getuser()
    except Exception:  # no login name (containers without passwd entries)
        return "unknown"


def record_attempt(
    path: str,
    *,
    table: str,
    outcome: AuditOutcome,
    from_version: int | None,
    to_version: int | None,
    name: str | None = None,
    to_timestamp: str | None = None,
    reason: str | None = None,
    operator: str | None = None,
    committed_version: int | None = None,
    error: str | None = None,
    details: Mapping[str, Any] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> AuditEntry:
    """Append one attempt to the audit log and return it.

    The line is redacted (:func:`inspector.storage.options.redact_text`) before it is
    written: no secret storage option, SAS token or URL signature reaches the file.

    Args:
        path: The audit log file (created with its folder when missing).
        table: The table root (for a table opened by name: the location it resolved to).
        name: The table's name in a catalog, when it was opened by name.
        outcome: What the attempt came to.
        from_version: The table's version when the attempt was made.
        to_version: The target version.
        to_timestamp: The time the target was asked by, if it was asked by time.
        reason: The operator's reason.
        operator: Who acted; defaults to the OS user.
        committed_version: The new version, for ``committed``.
        error: Why it was refused or failed.
        details: Extra facts (metrics, overrides used, verification summary).
        secrets: The storage options in use (their secret values are masked).

    Returns:
        The entry that was written.

    Raises:
        ValueError: If ``outcome`` is not a known outcome (a programming error).
    """
    outcome = AuditOutcome(outcome)  # ValueError for an unknown outcome
    entry = AuditEntry(
        when=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        who=current_user(operator),
        table=table,
        name=name,
        from_version=from_version,
        to_version=to_version,
        to_timestamp=to_timestamp,
        reason=reason,
        outcome=outcome,
        committed_version=committed_version,
        error=error,
        details=dict(details or {}),
    )
    line = json.dumps(entry.to_json(), default=str, ensure_ascii=False)
    _append_line(path, redact_text(line, secrets))
    return entry


def read_audit(path: str) -> list[AuditEntry]:
    """Every entry of the audit log, oldest first (unparsable lines and unknown outcomes are
    skipped).

    Args:
        path: The audit log file; a missing file gives an empty list.
    """
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
            entries.append(
                AuditEntry(
                    when=obj.get("when"),
                    who=obj.get("who"),
                    table=obj.get("table"),
                    name=obj.get("name"),
                    from_version=obj.get("fromVersion"),
                    to_version=obj.get("toVersion"),
                    to_timestamp=obj.get("toTimestamp"),
                    reason=obj.get("reason"),
                    outcome=outcome,
                    committed_version=obj.get("committedVersion"),
                    error=obj.get("error"),
                    details=obj.get("details") or {},
                )
            )
    return entries


def _append_line(path: str, line: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)
