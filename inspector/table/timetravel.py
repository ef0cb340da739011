"""Time travel: which version a table was at, at a given moment.

Delta's rule (``timestampAsOf``): the latest version whose history timestamp
(:mod:`inspector.table.history`) is at or before T; a T before the earliest readable
version, or after the latest version, is an error, as in Delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from inspector.delta.errors import InvalidInput, TimestampOutOfRange
from inspector.delta.text import format_moment, format_time
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_time import TimestampSource
from inspector.table.versions import parse_version

_EXAMPLES = (
    "2024-10-08, 2024-10-08 05:42, 2024-10-08 05:42:52.123 UTC, 2024-10-08T05:42:52Z "
    "or 2024-10-08 07:42:52+02:00"
)


def parse_timestamp(text: str) -> datetime:
    """Parse a timestamp as people type it into an aware UTC datetime (no zone means UTC):
    every form the outputs show (:func:`inspector.delta.text.format_time`, ISO 8601).

    Raises:
        InvalidInput: If the text is not one of those forms.
    """
    raw = (text or "").strip()
    if raw.upper().endswith("UTC"):
        raw = raw[:-3].rstrip() + "+00:00"
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInput(
            f"'{text}' is not a timestamp.", f"Write it like {_EXAMPLES} (no zone means UTC)."
        ) from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def version_at_timestamp(log: DeltaLog, ts: datetime, settings: Settings) -> int:
    """The latest readable version whose history timestamp is at or before ``ts`` (naive:
    UTC), by Delta's ``timestampAsOf`` rule.

    Raises:
        TimestampOutOfRange: If ``ts`` is outside the table's history (the message shows it).
    """
    ts = ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts
    wanted_ms = ts.timestamp() * 1000
    entries = [e for e in build_history(log, settings) if e.version >= log.earliest_version]
    if not entries:
        raise TimestampOutOfRange(
            "The table has no commit with a timestamp to travel to.",
            "Choose a version number instead.",
        )
    first, last = entries[0], entries[-1]
    span = (
        f"this table's versions {first.version} to {last.version} span "
        f"{format_time(first.timestamps.history)} to {format_time(last.timestamps.history)}"
    )
    shown = format_moment(ts)
    if wanted_ms > last.timestamps.history:
        raise TimestampOutOfRange(
            f"{shown} is after the latest version: {span}.",
            f"Give a time at or before {format_time(last.timestamps.history)}, or use the latest "
            "version.",
        )
    found = [
        e.version for e in _search_range(entries, wanted_ms) if e.timestamps.history <= wanted_ms
    ]
    if not found:
        raise TimestampOutOfRange(
            f"{shown} is before the earliest version that can be read: {span}.",
            f"Give a time at or after {format_time(first.timestamps.history)}.",
        )
    return int(max(found))


def _search_range(entries: list[Any], wanted_ms: float) -> list[Any]:
    """The versions Delta searches: where in-commit timestamps were enabled later, a time
    at or after the enablement searches the versions with them, an earlier time the versions
    before (whose file times may be later, e.g. in a copied table)."""
    with_ict = [e for e in entries if e.timestamps.source == TimestampSource.IN_COMMIT_TIMESTAMP]
    if not with_ict or with_ict[0] is entries[0]:
        return entries
    enabled = with_ict[0]
    if wanted_ms >= enabled.timestamps.history:
        return [e for e in entries if e.version >= enabled.version]
    return [e for e in entries if e.version < enabled.version]


@dataclass(frozen=True, kw_only=True)
class ResolvedVersion:
    """A version chosen by number or by timestamp; ``timestamp`` is the UTC moment typed."""

    version: int
    timestamp: datetime | None = None


def resolve_version(
    log: DeltaLog,
    *,
    version: str | int | None = None,
    timestamp: str | None = None,
    settings: Settings,
) -> ResolvedVersion:
    """Turn ``--version`` / ``--timestamp`` (or the app's inputs) into a readable version.

    Raises:
        InvalidInput: Both or a malformed value given.
        TimestampOutOfRange: The timestamp is outside the table's history.
        VersionNotFound: The version is not in the log.
    """
    if version is not None and timestamp:
        raise InvalidInput(
            "Give a version or a timestamp, not both.", "Drop one of --version and --timestamp."
        )
    if timestamp:
        moment = parse_timestamp(timestamp)
        return ResolvedVersion(
            version=version_at_timestamp(log, moment, settings), timestamp=moment
        )
    chosen = log.latest_version if version is None else parse_version(version, log)
    log.snapshot(chosen)  # raises VersionNotFound / CorruptLog with the table's range
    return ResolvedVersion(version=chosen)
