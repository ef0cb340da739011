"""A version's history timestamp: Delta's rule, the timestamps beside it, and how to show them.

Delta's history timestamp is the in-commit timestamp where the table has them enabled,
else the commit file's modification time, made monotonic (a commit never appears older
than the one before it: :func:`monotonic`, the one place that rule is written). Copied
or replicated tables break that: all file times change, so the commitInfo time is
reported beside it and versions where the sources disagree are flagged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum

from inspector.delta import properties
from inspector.delta.errors import InspectorError
from inspector.delta.text import format_time
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.log.filetimes import commit_times
from inspector.log.tablemeta import metadata_at


class TimestampSource(StrEnum):
    """Where a version's history timestamp comes from (Delta's rule, by table property)."""

    IN_COMMIT_TIMESTAMP = "inCommitTimestamp"
    FILE_MODIFICATION_TIME = "fileModificationTime"


@dataclass(frozen=True, kw_only=True)
class VersionTimestamps:
    """All timestamps known for a version, in ms since the epoch (UTC); ``history`` is the
    one Delta uses for DESCRIBE HISTORY and time travel, ``source`` says where it came from."""

    commit_info: int | None
    in_commit: int | None
    file_modification: int
    history: int
    source: TimestampSource


_SOURCE_WORDS = {True: "in-commit timestamp", False: "file modification time"}
COPY_PROBLEM = "the table was probably copied or replicated"  # in a version's timestamp problem

# Which time every page shows, said once (the Timeline's copy banner, docs/time-travel.md).
TIME_RULE = (
    "Every page shows each version's history timestamp, the one Delta uses for history and "
    "time travel (the in-commit timestamp where enabled, else the commit file's modification "
    "time); on a copied table that is the time of the copy. The writer's commitInfo time is "
    "shown beside it (the Timeline's hover, its commitInfo axis, the History table and the "
    "Version page), never instead of it."
)


def is_copy_problem(problem: str) -> bool:
    """Whether a version's problem is the commit-time/file-time mismatch of a copied table."""
    return COPY_PROBLEM in problem


def iso(ms: int | None) -> str | None:
    """Milliseconds since the epoch to ISO 8601 in UTC (``2024-10-08T05:42:52.123Z``).

    The date of each day is formatted once (a history formats four times per version).
    """
    if ms is None:
        return None
    day, in_day = divmod(ms, _DAY_MS)
    date = _DAYS.get(day)
    if date is None:
        if len(_DAYS) > 100_000:
            _DAYS.clear()
        date = _DAYS[day] = (_EPOCH_DAY + timedelta(days=day)).isoformat()
    seconds, milli = divmod(in_day, 1000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{date}T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}Z"


_DAY_MS = 86_400_000
_EPOCH_DAY = date(1970, 1, 1)
_DAYS: dict[int, str] = {}


def _ict_enabled(config: Mapping[str, str], version: int) -> bool:
    if not properties.enabled(config, properties.ENABLE_IN_COMMIT_TIMESTAMPS):
        return False
    try:
        enabled_from = int(config.get(properties.ICT_ENABLEMENT_VERSION) or 0)
    except ValueError:  # a garbage property: trust the commits that carry an in-commit timestamp
        enabled_from = 0
    return version >= enabled_from


def timestamps_of(
    commit: Commit, config: Mapping[str, str], previous: int | None, tolerance_ms: int
) -> tuple[VersionTimestamps, list[str]]:
    """A commit's timestamps and its timestamp problem (the copy's mismatch), if any, given
    the table properties in force, the history timestamp of the version before (None: not
    known) and how far the commit's own time and its file's time may differ."""
    info = commit.commit_info
    mtime, problems = commit.file.modification_time, []
    stamp, ict = info.timestamp, info.in_commit_timestamp
    history, source = _history_time(commit.version, ict, mtime, config, previous)
    in_commit = source is TimestampSource.IN_COMMIT_TIMESTAMP
    written = ict if in_commit else stamp
    if written is not None and abs(written - mtime) > tolerance_ms:
        problems.append(
            f"Its commit time ({format_time(written)}) and its file's modification time ({format_time(mtime)}) "
            f"differ by {_duration(abs(written - mtime))}: {COPY_PROBLEM}. "
            f"Time travel by timestamp uses the {_SOURCE_WORDS[in_commit]}."
        )
    return VersionTimestamps(
        commit_info=stamp,
        in_commit=ict,
        file_modification=mtime,
        history=history,
        source=source,
    ), problems


def history_timestamp(
    commit: Commit, config: Mapping[str, str], previous: int | None
) -> tuple[int, TimestampSource]:
    """Delta's history timestamp of a commit, and where it comes from: its in-commit
    timestamp where the properties ``config`` enable them from its version on, else its
    file's modification time made :func:`monotonic` after ``previous`` (None: as it is)."""
    ict, mtime = commit.commit_info.in_commit_timestamp, commit.file.modification_time
    return _history_time(commit.version, ict, mtime, config, previous)


def _history_time(
    version: int, ict: int | None, mtime: int, config: Mapping[str, str], previous: int | None
) -> tuple[int, TimestampSource]:
    """:func:`history_timestamp` of a commit's in-commit timestamp and file time (a history
    reads them once per version)."""
    if ict is not None and _ict_enabled(config, version):
        return ict, TimestampSource.IN_COMMIT_TIMESTAMP
    return monotonic(mtime, previous), TimestampSource.FILE_MODIFICATION_TIME


def monotonic(file_time: int, previous: int | None) -> int:
    """A file-time history timestamp: never at or before ``previous``, the history timestamp
    of the version before (None: none known), as Delta's ``DeltaHistoryManager`` makes it."""
    return previous + 1 if previous is not None and file_time <= previous else file_time


def file_time_before(log: DeltaLog, version: int) -> int | None:
    """The file-time history timestamp of the newest listed commit before ``version`` (None:
    none), chained over every listed commit's file time, so that a page of history starting
    at ``version`` gives each version the timestamp the whole history gives it."""
    times = commit_times(log, version)
    previous = None
    for v in sorted(times):
        previous = monotonic(times[v], previous)
    return previous


def _duration(ms: int) -> str:
    seconds = ms // 1000
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")) if n]
    return " ".join(parts[:2]) or f"{ms} ms"


class PropertiesBefore(Mapping[str, str]):
    """The table properties in force before a page of history starting at ``first`` (the
    one place the history reads them), read when first asked for; {} when unreadable.

    They say only from which version in-commit timestamps are the history time, so only a
    commit that carries one before the page's first metaData asks (a page of commits
    without either never reads them, nor looks at its commits twice).
    """

    def __init__(self, log: DeltaLog, first: int) -> None:
        self._log, self._first = log, first
        self._found: Mapping[str, str] | None = None

    def _properties(self) -> Mapping[str, str]:
        if self._found is None:
            self._found = {}
            for version in (self._first - 1, self._first) if self._first > 0 else ():
                try:
                    self._found = metadata_at(self._log, version).configuration
                    break
                except InspectorError:  # expired or unreadable: try the version itself
                    continue
        return self._found

    def __getitem__(self, key: str) -> str:
        return self._properties()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._properties())

    def __len__(self) -> int:
        return len(self._properties())
