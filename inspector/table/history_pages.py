"""The whole history read newest first, a page at a time, each commit file read once.

The app's Timeline draws the newest page at once and reads older pages when the user
moves to them or in the background (:class:`HistoryPager`). Joined, the pages are the
history :func:`~inspector.table.history.build_history` gives (a test holds them equal).

Three of the history's figures depend on versions before a page, so they are computed
forward within each page and finished when the page before it arrives, from what was
already read (nothing is read again):

* the file-time rule (:func:`~inspector.table.history_time.monotonic`): a version's
  file-time timestamp is at least one millisecond after its predecessor's. A page's first
  versions are fixed forward from the older page's last timestamp, up to the first
  version the fix leaves unchanged (from there the chain is the same);
* the schema, properties and protocol changes: the first metadata and protocol of a page
  are compared with the last ones of the older page;
* the row figures, where a commit removed a file without counting its rows: the files
  live before the page come from the snapshot just before it, read only when a count
  needs it. Page boundaries fall on checkpoints where the log has them, so that snapshot
  is one checkpoint (read once, by the page after it), not a replay of the older page's
  commits (the log keeps the commits it replays, so even then none is read twice).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from inspector.delta.actions import Metadata, Protocol
from inspector.log.commit import Commit, parse_commit
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import LogListing, list_log_from
from inspector.settings import Settings
from inspector.table.history import (
    Change,
    HistoryEntry,
    configuration_at,
    gap_problems,
    history_entries,
)
from inspector.table.history_scan import collector_paused, scan_commits
from inspector.table.history_time import TimestampSource, is_copy_problem, monotonic
from inspector.table.rowcounts import RowChange, rows_along

_FILE_TIME = TimestampSource.FILE_MODIFICATION_TIME
PAGE_SIZE = 2000  # versions per page, at least (the Timeline's window)


@dataclass(frozen=True, kw_only=True)
class _Edge:
    """What a page's neighbours need of it: its first and last metadata and protocol."""

    first_metadata: tuple[int, Metadata] | None = None
    first_protocol: tuple[int, Protocol] | None = None
    last_metadata: Metadata | None = None
    last_protocol: Protocol | None = None


class HistoryPager:
    """A table's history, read newest first a page at a time, joined as it goes.

    The first page is listed from its oldest version on (a start-after listing); the whole
    ``_delta_log`` is listed when the second page is read. Not thread-safe: one reader at a
    time (the app holds a lock around :meth:`read_older`).

    Args:
        log: An opened log.
        settings: For ``timestamp_tolerance_seconds``.
        size: Versions per page, at least (a page reaches down to just after a checkpoint
            when one lies within another ``size`` versions).
        first: Versions of the newest page (default: ``size``): a screen that must come
            quickly reads a short newest page.
    """

    def __init__(
        self, log: DeltaLog, settings: Settings, *, size: int = PAGE_SIZE, first: int | None = None
    ) -> None:
        self.log, self.settings, self.size = log, settings, max(1, size)
        self.first = max(1, first) if first is not None else self.size
        self._listing: LogListing | None = None  # the whole folder's, once listed
        self._newest: LogListing | None = None  # the first page's
        self.versions: tuple[int, ...] = ()  # the listed versions, ascending
        self._checkpoints: list[int] = []
        self._gaps: Mapping[int, list[str]] = {}
        self._checkpoint_problems: Mapping[int, list[str]] = {}
        self._first: dict[int, tuple[list[str], list[str]]] = {}  # the first page's problems
        self._entries: tuple[HistoryEntry, ...] = ()
        self._edge = _Edge()
        self._next = -1  # versions[:_next] are still to read (-1: nothing read yet)

    @property
    def entries(self) -> tuple[HistoryEntry, ...]:
        """The versions read so far (the newest ones), oldest first."""
        return self._entries

    @property
    def listed(self) -> bool:
        """Whether the whole ``_delta_log`` has been listed (:attr:`versions` is every version)."""
        return self._listing is not None

    @property
    def done(self) -> bool:
        """Whether every version has been read."""
        return self._next == 0

    def selectable(self) -> tuple[int, ...]:
        """The versions a user can pick, ascending: commit versions and versions with a usable
        checkpoint (of the whole listing once read, else the newest page's)."""
        listing = self._listing or self._newest
        if listing is None:
            return ()
        checkpointed = {cp.version for cp in listing.usable_checkpoints()}
        return tuple(sorted({*listing.commits, *checkpointed}))

    def has_commit(self, version: int) -> bool:
        """Whether a listed version has a commit file (else only a checkpoint)."""
        listing = self._listing or self._newest
        return listing is not None and version in listing.commits

    def read_older(self) -> bool:
        """Read the next page (older than everything read so far) and join it.

        Returns:
            Whether a page was read (False when the whole history has been).
        """
        if self.done:
            return False
        with collector_paused():
            self._read_page()
        return True

    def _read_page(self) -> None:
        """Read the newest page, or the page older than those read, and join it."""
        if self._next < 0:
            self._read_newest()
            return
        if self._listing is None:
            self._list_whole()
        start = self._boundary(self._next, self.size)
        versions = list(self.versions[start : self._next])
        entries, edge = self._page(versions, self._gaps, self._checkpoint_problems)
        self._entries = (*entries, *self._joined(entries, edge))
        self._edge = _Edge(
            first_metadata=edge.first_metadata or self._edge.first_metadata,
            first_protocol=edge.first_protocol or self._edge.first_protocol,
        )
        self._next = start

    def settled(self) -> int:
        """Where the entries no older page can change begin (an index into :attr:`entries`).

        Joining an older page (:meth:`_joined`) changes the newer pages' first metadata and
        protocol changes, and their file-time timestamps up to the first in-commit
        timestamp (the file-time rule chains from the previous version, so any older page
        can shift them); the first page's gaps change when the whole folder is listed.
        """
        entries = self._entries
        if self.done:
            return 0
        if self._listing is None:
            return len(entries)
        versions = [e.version for e in entries]
        stamped = (i for i, e in enumerate(entries) if e.timestamps.source != _FILE_TIME)
        settled = next(stamped, len(entries))
        for first in (self._edge.first_metadata, self._edge.first_protocol):
            if first is not None:
                settled = max(settled, bisect.bisect_right(versions, first[0]))
        return settled

    def read_down_to(self, version: int) -> None:
        """Read older pages until ``version`` (or the oldest version) has been read."""
        while not self.done and (not self._entries or self._entries[0].version > version):
            self.read_older()

    def _read_newest(self) -> None:
        """The newest page, from a listing of its versions only (the whole one if it is short)."""
        log = self.log
        oldest = log.latest_version - 2 * self.first
        listing = (  # a short log: the whole listing, kept by the log for every other reader
            log.listing
            if oldest <= 0
            else list_log_from(log.storage, oldest, last=log.tail.last_checkpoint)
        )
        self._newest = listing
        if listing.is_whole:
            self._listing = listing
        self.versions = tuple(sorted({*listing.commits, *listing.checkpoints}))
        self._checkpoints = sorted(cp.version for cp in listing.usable_checkpoints())
        end = len(self.versions)
        start = self._boundary(end, self.first) if listing.is_whole or end > self.first else 0
        versions = list(self.versions[start:end])
        gaps = gap_problems(log, versions, whole=listing.is_whole and start == 0)
        found = log.replay_problems()
        if listing.is_whole:
            gaps, found = gap_problems(log, list(self.versions)), log.checkpoint_problems()
            self._gaps, self._checkpoint_problems = gaps, found
        self._first = {v: (gaps.get(v, []), found.get(v, [])) for v in versions}
        entries, self._edge = self._page(versions, gaps, found)
        self._entries = tuple(entries)
        self._next = start if listing.is_whole else 1

    def _list_whole(self) -> None:
        """List the whole folder, and refit the first page's gaps and checkpoint problems."""
        log = self.log
        self._listing = listing = log.listing
        first = self._entries[0].version if self._entries else log.latest_version + 1
        self.versions = tuple(sorted({*listing.commits, *listing.checkpoints}))
        self._checkpoints = sorted(cp.version for cp in listing.usable_checkpoints())
        self._gaps = gap_problems(log, list(self.versions))
        self._checkpoint_problems = log.checkpoint_problems()
        self._next = bisect.bisect_left(self.versions, first)
        self._entries = tuple(self._refit(e) for e in self._entries)

    def _refit(self, entry: HistoryEntry) -> HistoryEntry:
        """An entry of the first page with the whole log's gaps and checkpoint problems."""
        old_gaps, old_found = self._first.get(entry.version, ([], []))
        gaps = self._gaps.get(entry.version, [])
        found = self._checkpoint_problems.get(entry.version, [])
        if (old_gaps, old_found) == (gaps, found):
            return entry
        problems = entry.problems
        timed = 1 if problems and is_copy_problem(problems[-1]) else 0
        own = problems[len(old_gaps) : len(problems) - timed - len(old_found)]
        return replace(entry, problems=(*gaps, *own, *found, *problems[len(problems) - timed :]))

    def _boundary(self, end: int, size: int) -> int:
        """Where the page that ends before ``versions[end]`` starts: ``size`` versions back,
        or further back, to just after a checkpoint within another ``size`` versions."""
        start = max(0, end - size)
        if start == 0:
            return 0
        floor = self.versions[start]
        at = bisect.bisect_left(self._checkpoints, floor) - 1  # the newest checkpoint below
        if at >= 0 and self._checkpoints[at] >= floor - size:
            return bisect.bisect_right(self.versions, self._checkpoints[at])
        return start

    def _page(
        self, versions: list[int], gaps: Mapping[int, list[str]], found: Mapping[int, list[str]]
    ) -> tuple[list[HistoryEntry], _Edge]:
        """One page's entries, computed forward within it, and its edge."""
        log = self.log
        if self._listing is not None:  # the whole folder listed: its commits read in bulk
            counted = list(scan_commits(log, versions))  # held for this page only
        else:
            counted = list(rows_along(log, iter(self._commits(versions))))
        config: Mapping[str, str] = {}
        if any(c.commit_info.in_commit_timestamp is not None for c, _ in counted):
            config = configuration_at(log, versions[-1])
        edge: list[_Edge] = [_Edge()]
        pairs = _tapped(iter(counted), edge)
        entries = history_entries(log, versions, pairs, config, gaps, found, self.settings)
        return entries, edge[0]

    def _commits(self, versions: list[int]) -> list[Commit]:
        """The page's commits, read together (from the first page's own listing until the
        whole folder is listed, so that the first page never lists it)."""
        log, listing = self.log, self._newest
        if self._listing is not None or listing is None:
            return list(log.stream_commits(versions))  # the log's cached commits reused
        # The commits after the newest checkpoint are the latest snapshot's: read through the
        # log, which keeps them for it (and for the check of that checkpoint).
        tail = [v for v in versions if v > log.tail.from_version]
        older = [v for v in versions if v <= log.tail.from_version]
        files = [(v, f) for v in older if (f := listing.commits.get(v)) is not None]
        contents = log.storage.read_many([f.path for _, f in files])
        parsed = [parse_commit(v, f, d) for (v, f), d in zip(files, contents, strict=True)]
        return [*parsed, *log.read_commits(tail)]

    def _joined(self, older: list[HistoryEntry], edge: _Edge) -> list[HistoryEntry]:
        """The entries read before, finished with what the older page says of its end."""
        newer = list(self._entries)
        if not older or not newer:
            return newer
        _fix_times(newer, older[-1].timestamps.history)
        for at, change in self._boundary_changes(edge):
            i = bisect.bisect_left(newer, at, key=lambda e: e.version)
            merged = sorted({*newer[i].changes, change}, key=list(Change).index)
            newer[i] = replace(newer[i], changes=tuple(merged))
        return newer

    def _boundary_changes(self, older: _Edge) -> Iterator[tuple[int, Change]]:
        """The changes of the newer pages' first metadata and protocol, against the older
        page's last (:func:`~inspector.table.history.commit_changes`' rule)."""
        first, before = self._edge.first_metadata, older.last_metadata
        if first is not None and before is not None:
            if before.schema_string != first[1].schema_string:
                yield first[0], Change.SCHEMA
            if dict(before.configuration) != dict(first[1].configuration):
                yield first[0], Change.PROPERTIES
        protocol = self._edge.first_protocol
        if protocol is not None and older.last_protocol not in (None, protocol[1]):
            yield protocol[0], Change.PROTOCOL


def newest_first(pager: HistoryPager) -> Iterator[HistoryEntry]:
    """The whole history newest first, read a page at a time.

    Entries are given as soon as no older page can change them (:meth:`HistoryPager.settled`):
    on a log with in-commit timestamps, the newest pages come while older ones are read;
    on one with file times only, every entry waits for the oldest page.
    """
    given = 0  # the newest entries given so far
    while pager.read_older():
        entries = pager.entries
        settled = pager.settled()
        yield from reversed(entries[settled : len(entries) - given])
        given = max(given, len(entries) - settled)
    entries = pager.entries
    yield from reversed(entries[: len(entries) - given])


def _tapped(
    pairs: Iterator[tuple[Commit, RowChange]], edge: list[_Edge]
) -> Iterator[tuple[Commit, RowChange]]:
    """The commits unchanged, noting the page's first and last metadata and protocol."""
    for commit, rows in pairs:
        meta, protocol, seen = commit.metadata, commit.protocol, edge[0]
        if meta is not None or protocol is not None:
            edge[0] = _Edge(
                first_metadata=seen.first_metadata
                or (None if meta is None else (commit.version, meta)),
                first_protocol=seen.first_protocol
                or (None if protocol is None else (commit.version, protocol)),
                last_metadata=meta or seen.last_metadata,
                last_protocol=protocol or seen.last_protocol,
            )
        yield commit, rows


def _fix_times(newer: list[HistoryEntry], previous: int) -> None:
    """Apply the file-time rule across a page boundary, in place, until it changes nothing."""
    for i, entry in enumerate(newer):
        stamps = entry.timestamps
        if stamps.source != TimestampSource.FILE_MODIFICATION_TIME:
            return  # an in-commit timestamp starts the chain afresh
        history = monotonic(stamps.file_modification, previous)
        if history == stamps.history:
            return  # from here on the chain is what the newer page computed
        newer[i] = replace(entry, timestamps=replace(stamps, history=history))
        previous = history
