"""A history filtered by operation, user, engine and time (``history --operation ... --since``).

The entries kept are those of the whole history, newest first. ``--since`` and ``--until``
bound the versions read where the listing gives every history timestamp (file times only);
with in-commit timestamps from the first version, versions are read newest first down to
the first before ``--since``; else every commit is read, as for ``--operation``,
``--user`` and ``--engine`` (nothing indexes a ``commitInfo``).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from inspector.delta import properties
from inspector.delta.errors import InspectorError, InvalidInput
from inspector.log.deltalog import DeltaLog
from inspector.log.tablemeta import metadata_at
from inspector.settings import Settings
from inspector.table.history import HistoryPager, newest_first
from inspector.table.history_entry import HistoryEntry, fix_times
from inspector.table.history_time import TimestampSource, monotonic

NO_USER_NAMES = (
    "No version records a userName: open-source Delta Lake writes none (Databricks does); "
    "filter by --engine or --operation instead."
)


@dataclass(frozen=True, kw_only=True)
class HistoryFilter:
    """Which versions a filtered history keeps (an empty field keeps all): ``operations``
    match exactly, ``users`` and ``engines`` a part of ``userName`` and ``engineInfo`` (case
    aside); ``since`` and ``until`` bound the history timestamp, both ends included."""

    operations: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise InvalidInput(
                "--since is after --until.", "Give a --since at or before the --until."
            )

    @property
    def any(self) -> bool:
        """Whether anything is filtered."""
        return bool(self.operations or self.users or self.engines or self.since or self.until)

    def keeps(self, entry: HistoryEntry) -> bool:
        """Whether an entry passes every filter."""
        when = entry.timestamps.history
        return (
            (not self.operations or entry.operation.upper() in {o.upper() for o in self.operations})
            and _part_of(self.users, entry.user)
            and _part_of(self.engines, entry.engine_info)
            and (self.since is None or when >= _ms(self.since))
            and (self.until is None or when <= _ms(self.until))
        )


class FilteredHistory:
    """The entries a filter keeps, given as they are read; counts what it saw for the note."""

    def __init__(self, entries: Iterable[HistoryEntry], keep: HistoryFilter) -> None:
        self._entries, self.keep = entries, keep
        self.kept = 0
        self.users_seen = False

    def __iter__(self) -> Iterator[HistoryEntry]:
        for entry in self._entries:
            self.users_seen = self.users_seen or entry.user is not None
            if self.keep.keeps(entry):
                self.kept += 1
                yield entry

    def note(self) -> str | None:
        """Why a user filter found nothing, when it is because no commit records a user."""
        if self.keep.users and not self.kept and not self.users_seen:
            return NO_USER_NAMES
        return None


def filtered_history(
    log: DeltaLog, settings: Settings, keep: HistoryFilter, *, lead: Sequence[HistoryEntry] = ()
) -> FilteredHistory:
    """The whole history's entries that ``keep`` keeps, newest first, reading only what the
    time range needs; ``lead`` (a catalog-managed table's staged commits, newer than the
    published log) is filtered as the rest."""
    return FilteredHistory(itertools.chain(lead, _in_range(log, settings, keep)), keep)


def _in_range(log: DeltaLog, settings: Settings, keep: HistoryFilter) -> Iterable[HistoryEntry]:
    rule = None if keep.since is None and keep.until is None else _time_rule(log)
    if rule == "file":
        return _file_time_span(log, settings, keep)
    entries = newest_first(HistoryPager(log, settings))
    if rule == "in-commit" and keep.since is not None:
        entries = _down_to(entries, _ms(keep.since))
    return entries


def _time_rule(log: DeltaLog) -> str | None:
    """``file`` when every history timestamp is a file time, ``in-commit`` when every one is
    an in-commit timestamp (enabled from the first version), else None (read everything)."""
    try:
        config = metadata_at(log, log.latest_version).configuration
    except InspectorError:  # the state is unreadable: the whole history says why
        return None
    if properties.ENABLE_IN_COMMIT_TIMESTAMPS not in config:
        return "file"
    enabled = properties.enabled(config, properties.ENABLE_IN_COMMIT_TIMESTAMPS)
    if enabled and properties.ICT_ENABLEMENT_VERSION not in config:
        return "in-commit"
    return None


def _file_time_span(log: DeltaLog, settings: Settings, keep: HistoryFilter) -> list[HistoryEntry]:
    """The entries of the versions in the time range, newest first, from the listing's times:
    only their commits are read, judged as the whole history judges them."""
    listing = log.listing
    versions = sorted({*listing.commits, *listing.checkpoints})
    times: list[int] = []
    previous: int | None = None
    for version in versions:  # the file-time rule, as the history applies it
        file = listing.commits.get(version) or listing.checkpoints[version][0].files[0]
        previous = monotonic(file.modification_time, previous)
        times.append(previous)
    lo = 0 if keep.since is None else bisect.bisect_left(times, _ms(keep.since))
    hi = len(times) if keep.until is None else bisect.bisect_right(times, _ms(keep.until))
    if lo >= hi:
        return []
    pager = HistoryPager(
        log, settings, newest=versions[hi - 1], first=hi - lo, alone=True, judge_whole=True
    )
    pager.read_older()
    entries = list(pager.entries)
    if lo > 0:  # the rule runs on from the version before, as in the whole history
        fix_times(entries, times[lo - 1])
    return entries[::-1]


def _down_to(entries: Iterator[HistoryEntry], since_ms: float) -> Iterator[HistoryEntry]:
    """Entries newest first until the first in-commit timestamp before ``since_ms`` (the
    older ones are older still: in-commit timestamps increase)."""
    for entry in entries:
        stamped = entry.timestamps.source == TimestampSource.IN_COMMIT_TIMESTAMP
        if stamped and entry.timestamps.history < since_ms:
            return
        yield entry


def _part_of(wanted: tuple[str, ...], value: str | None) -> bool:
    if not wanted:
        return True
    return value is not None and any(w.casefold() in value.casefold() for w in wanted)


def _ms(moment: datetime) -> float:
    return moment.timestamp() * 1000
