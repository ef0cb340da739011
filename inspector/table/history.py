"""The table's history (like DESCRIBE HISTORY): one pager reads it newest first, a page at a time.

Every history question is a use of :class:`HistoryPager`, each commit file read once: the
whole history (:func:`build_history`, :func:`newest_first`) is every page joined;
``history --limit`` and one version's entry (:func:`history_page`) are one page read alone;
the app's Timeline (``ui/history_load.py``) reads older pages as the user moves to them.
The pager alone lists the versions and finds gaps and checkpoint problems.
"""

from __future__ import annotations

import bisect
import gc
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace

from inspector.delta.errors import InspectorError
from inspector.log.commit import parse_commit
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import LogListing, list_log_from
from inspector.settings import Settings
from inspector.table.history_entry import (
    Edge,
    HistoryEntry,
    chain_from_before,
    gap_problems,
    history_entries,
    joined,
    last_edge,
)
from inspector.table.history_scan import scan_commits
from inspector.table.history_store import HistoryStore, KeptEntries
from inspector.table.history_time import TimestampSource, is_copy_problem
from inspector.table.rowcounts import rows_along

_FILE_TIME = TimestampSource.FILE_MODIFICATION_TIME
PAGE_SIZE = 2000  # versions per page, at least (the Timeline's window)


class HistoryPager:
    """A table's history, read newest first a page at a time, joined as it goes.

    The whole ``_delta_log`` is listed when the second page is read (the newest page's own
    listing: :meth:`_newest_listing`). Not thread-safe: one reader at a time (the app holds
    a lock around :meth:`read_older`).

    Args:
        log: An opened log.
        settings: For ``timestamp_tolerance_seconds``.
        size: Versions per page, at least (a page reaches down to just after a checkpoint
            when one lies within another ``size`` versions).
        first: Versions of the newest page (default: ``size``): a screen that must come
            quickly reads a short newest page.
        newest: The newest version read (default: the latest).
        alone: Read only the newest page, exactly ``first`` versions, judged alone: gaps
            within it and the checkpoint problems found so far (``history --limit``).
        judge_whole: Judge even a page read alone as the whole history does: the whole
            folder listed, its gaps and checkpoint problems (a filtered history's span).
        newest_first: Read the newest page before the whole history kept in the log index
            (then the kept one, in place of the older pages): a first screen that must not
            wait for the kept whole history to be validated and decoded.
    """

    def __init__(
        self,
        log: DeltaLog,
        settings: Settings,
        *,
        size: int = PAGE_SIZE,
        first: int | None = None,
        newest: int | None = None,
        alone: bool = False,
        judge_whole: bool = False,
        newest_first: bool = False,
    ) -> None:
        self.log, self.settings, self.size = log, settings, max(1, size)
        self._newest_first, self._store_due = newest_first, True
        self.first = max(1, first) if first is not None else self.size
        self.top = log.latest_version if newest is None else newest
        self.alone, self._judge_whole = alone, judge_whole
        self._listing: LogListing | None = None  # the whole folder's, once listed
        self._newest: LogListing | None = None  # the first page's
        self.versions: tuple[int, ...] = ()  # the listed versions, ascending
        self._checkpoints: list[int] = []
        self._gaps: Mapping[int, list[str]] = {}
        self._checkpoint_problems: Mapping[int, list[str]] = {}
        self._first: dict[int, tuple[list[str], list[str]]] = {}  # the first page's problems
        self._entries: tuple[HistoryEntry, ...] | KeptEntries = ()
        self._edge = Edge()
        self._next = -1  # versions[:_next] are still to read (-1: nothing read yet)
        kept = not alone and self.top == log.latest_version  # a whole history is kept
        self._store = HistoryStore.of(log, settings) if kept else None
        self.kept: HistoryStore | None = None  # the store whose kept history these entries are

    @property
    def entries(self) -> tuple[HistoryEntry, ...]:
        """The versions read so far (the newest ones), oldest first."""
        return tuple(self._entries)  # kept entries are decoded when first asked for

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
        return () if listing is None else selectable(listing)

    def has_commit(self, version: int) -> bool:
        """Whether a listed version has a commit file (else only a checkpoint)."""
        listing = self._listing or self._newest
        return listing is not None and version in listing.commits

    def read_older(self) -> bool:
        """Read the next page (older than everything read so far) and join it; False when
        the whole history has been read already."""
        if self.done:
            return False
        with collector_paused():  # the newest page (or all, when kept), or the next older one
            if not self._read_stored():
                self._read_next() if self._next >= 0 else self._read_newest()
            store, listing = self._store, self._listing
            if self.done and store is not None and listing is not None and self.kept is not store:
                self.kept = store.save(listing, self.entries, self._gaps, self._checkpoint_problems)
        return True

    def _read_stored(self) -> bool:
        """The whole history kept in the log index, and the versions after it joined; tried
        once: as the first page, or as the second when the newest page is read first."""
        if not self._store_due or (self._next < 0 and self._newest_first):
            return False
        self._store_due = False
        store = self._store
        if store is None or not store.kept():
            return False
        stored = store.load(listing := self.log.listing)
        if stored is None or stored.top > self.top:
            return False
        self._list(listing, whole=stored.top < self.top)
        if stored.top < self.top:
            if not stored.agrees(self._gaps, self._checkpoint_problems):
                return False
            try:  # the metadata and protocol in force, from the commits that made them
                before = last_edge(self.log, stored.entries)
            except (InspectorError, ValueError):  # one unreadable now (or the kept entries)
                return False
            versions = list(self.versions[bisect.bisect_right(self.versions, stored.top) :])
            entries, edge = self._page(versions, self._gaps, self._checkpoint_problems)
            self._entries = (*stored.entries, *joined(entries, [stored.entries[-1]], edge, before))
        else:
            self._listing, self._entries, self.kept = listing, stored.entries, store
        self._next = 0
        return True

    def _read_next(self) -> None:
        if self._listing is None:  # list the whole folder; refit the first page's problems
            first = self._entries[0].version if self._entries else self.top + 1
            self._list(self.log.listing, whole=True)
            self._next = bisect.bisect_left(self.versions, first)
            self._entries = tuple(self._refit(e) for e in self._entries)
        start = self._boundary(self._next, self.size)
        versions = list(self.versions[start : self._next])
        entries, edge = self._page(versions, self._gaps, self._checkpoint_problems)
        self._entries = (*entries, *joined(list(self._entries), entries, self._edge, edge))
        self._edge = Edge(
            first_metadata=edge.first_metadata or self._edge.first_metadata,
            first_protocol=edge.first_protocol or self._edge.first_protocol,
        )
        self._next = start

    def settled(self) -> int:
        """Where the entries no older page can change begin (an index into :attr:`entries`).

        Joining an older page changes the newer pages' first metadata and protocol changes,
        and their file-time timestamps up to the first in-commit timestamp; the first page's
        gaps change when the whole folder is listed.
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
        """The newest page, from a listing that reaches back far enough (the whole one if short)."""
        log = self.log
        listing = self._newest = self._newest_listing()
        whole = listing.is_whole and (self._judge_whole or not self.alone)
        self._list(listing, whole=whole)
        end = len(self.versions)
        start = max(0, end - self.first) if self.alone else self._boundary(end, self.first)
        versions = list(self.versions[start:end])
        if whole:
            gaps, found = self._gaps, self._checkpoint_problems
        else:
            gaps, found = gap_problems(log, versions, whole=False), log.replay_problems()
            self._first = {v: (gaps.get(v, []), found.get(v, [])) for v in versions}
        entries, self._edge = self._page(versions, gaps, found)
        if self.alone and entries and not whole:
            chain_from_before(self.log, entries)
        self._entries = tuple(entries)
        self._next = 0 if self.alone else start if whole else 1

    def _newest_listing(self) -> LogListing:
        """The whole folder's listing when the log has it already (or the page is judged
        whole), else the log's listing from its newest checkpoint on when that holds the
        newest page, else one from two pages back, else the whole folder's."""
        log, want = self.log, self.first
        if self._judge_whole or log.whole_listing is not None:
            return log.listing
        if log.tail.is_whole or len(_listed(log.tail, self.top)) >= want:
            return log.tail
        if self.top - 2 * want > 0:
            listing = list_log_from(log.storage, self.top - 2 * want, last=log.tail.last_checkpoint)
            if len(_listed(listing, self.top)) >= want:
                return listing
        return log.listing  # kept by the log for every other reader

    def _list(self, listing: LogListing, *, whole: bool) -> None:
        """Take a listing's versions; a whole one's gaps and checkpoint problems too."""
        self.versions = _listed(listing, self.top)
        self._checkpoints = sorted(cp.version for cp in listing.usable_checkpoints())
        if whole:
            self._listing = listing
            self._gaps = gap_problems(self.log, list(self.versions))
            # With every commit present the history never starts from a checkpoint: whether
            # the newest agrees with its commits is ``check``'s question, not the history's.
            needed = sum(1 for v in listing.commits if v <= self.top) <= self.top  # a commit gone
            self._checkpoint_problems = self.log.checkpoint_problems(newest=needed)

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
    ) -> tuple[list[HistoryEntry], Edge]:
        """One page's entries, computed forward within it, and its edge."""
        log = self.log
        if self._listing is not None:  # the whole folder listed: its commits read in bulk
            pairs = scan_commits(log, versions)  # a slice at a time, not kept
        else:  # a short question (``detail``, ``history --limit``) need not import pyarrow
            # Read from the newest page's own listing (the first page never lists the whole);
            # the commits after the newest checkpoint are the latest snapshot's: read through
            # the log, which keeps them for it (and for the check of that checkpoint).
            listing = self._newest or log.listing
            older = [v for v in versions if v <= log.tail.from_version]
            files = [(v, f) for v in older if (f := listing.commits.get(v)) is not None]
            contents = log.fetch_commits([f for _, f in files])
            parsed = [parse_commit(v, f, d) for (v, f), d in zip(files, contents, strict=True)]
            tail = log.read_commits([v for v in versions if v > log.tail.from_version])
            pairs = rows_along(log, iter([*parsed, *tail]))
        first = versions[0] if versions else 0
        return history_entries(log, versions, pairs, first, gaps, found, self.settings)


def newest_first(pager: HistoryPager) -> Iterator[HistoryEntry]:
    """The whole history newest first, each entry given as soon as no older page can change
    it (:meth:`HistoryPager.settled`: with file times only, that is once the oldest is read)."""
    given = 0  # the newest entries given so far
    with collector_paused():  # while the entries are given too (they are all kept)
        while pager.read_older():
            entries = pager.entries
            settled = pager.settled()
            yield from reversed(entries[settled : len(entries) - given])
            given = max(given, len(entries) - settled)
        entries = pager.entries
        yield from reversed(entries[: len(entries) - given])


def selectable(listing: LogListing) -> tuple[int, ...]:
    """A listing's versions a user can pick, ascending: commits and usable checkpoints."""
    return tuple(sorted({*listing.commits, *(cp.version for cp in listing.usable_checkpoints())}))


def _listed(listing: LogListing, top: int) -> tuple[int, ...]:
    """A listing's versions at or below ``top``, ascending: commits and checkpoints."""
    return tuple(sorted(v for v in {*listing.commits, *listing.checkpoints} if v <= top))


def build_history(log: DeltaLog, settings: Settings) -> list[HistoryEntry]:
    """The history of every version with a commit file or a checkpoint, oldest first: one
    page of every version.

    A version whose commit expired but whose checkpoint remains gets an entry (operation
    ``UNKNOWN``) saying so: its state is readable, its changes are not.
    """
    pager = HistoryPager(log, settings, size=sys.maxsize)
    pager.read_older()
    return list(pager.entries)


def history_page(
    log: DeltaLog, settings: Settings, *, limit: int, newest: int | None = None
) -> list[HistoryEntry]:
    """The newest ``limit`` versions at or below ``newest`` (default: the latest), oldest first.

    Reads only those commits, as ``DESCRIBE HISTORY ... LIMIT n`` does: one page read alone
    (:class:`HistoryPager`'s ``alone``), with the checkpoint problems found so far.
    """
    if limit <= 0:
        return []
    pager = HistoryPager(log, settings, first=limit, newest=newest, alone=True)
    pager.read_older()
    return list(pager.entries)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a whole history is built: it makes a few
    objects per version, none in a cycle, and keeps them, so each collection would walk all
    of them again (a third of the CPU time of a 20,000-version history)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if not gc.get_freeze_count():
                # What was made meanwhile joins the oldest generation (freeze, then unfreeze:
                # Python's one way to move objects there), so that the next young collection
                # does not walk every entry just made. Not when something is frozen already
                # (the app freezes a whole history it keeps): unfreezing would undo that.
                gc.freeze()
                gc.unfreeze()
            gc.enable()
