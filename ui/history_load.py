"""The app's history of one log generation, read newest first: the newest page at once,
older pages when a page asks for them (a window moved, a version picked) or in the background.

One :class:`HistoryLoad` per table and log generation is shared by every session
(``ui.tables.history_load`` caches it); its lock lets one reader at a time page through the
log (:class:`~inspector.table.history.HistoryPager`), so nothing is read twice. The
Timeline draws what has been read and says how far the background reading has got; the
pages that need the whole history (Health, Insights, Overview...) wait for it
(:meth:`HistoryLoad.whole`), as they always did. On a later open of a table on an object
store, or of a long log in a folder, the newest page is the kept history's newest entries,
while the log is the one they came from (:meth:`HistoryLoad._kept_newest`); the whole kept
history is read next.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import PAGE_SIZE, HistoryPager, collector_paused, selectable
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_store import HistoryStore

# The newest page on an object store, where each commit is a request: the first screen draws
# these and the Timeline's window fills from the background reading. Locally a whole window
# (PAGE_SIZE) is read in well under the first screen's budget.
REMOTE_FIRST_PAGE = 250
#: A whole history of this many versions is moved out of the cyclic collector's generations
#: once read (:meth:`HistoryLoad._frozen_when_whole`).
FREEZE_FROM = 20_000
#: A folder's kept whole history of this many versions is not the first screen: decoding it
#: takes 2-3 s at 100,000 versions. A later open draws the kept newest page first, as an
#: object store's does (:meth:`HistoryLoad._kept_newest`), else the newest page read afresh
#: (1 s); the kept whole history is read next.
NEWEST_FIRST_FROM = 20_000
#: The newest entries of a kept whole history kept apart too, for a later open's first
#: screen (a window of the Timeline).
KEPT_NEWEST = PAGE_SIZE


class HistoryLoad:
    """The history read so far, and the reading of the rest.

    Args:
        log: The table's log (at the generation this load belongs to).
        settings: For the history's timestamp tolerance.
        size: Versions per page.
        first: Versions of the newest page (default: ``size`` for a local table, at most
            :data:`REMOTE_FIRST_PAGE` on an object store).
    """

    def __init__(
        self, log: DeltaLog, settings: Settings, *, size: int = PAGE_SIZE, first: int | None = None
    ) -> None:
        local = log.storage.local_path() is not None
        if first is None:
            first = size if local else min(size, REMOTE_FIRST_PAGE)
        long_folder = local and log.latest_version >= NEWEST_FIRST_FROM
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._failure: Exception | None = None
        self._versions: tuple[tuple[bool, int] | None, tuple[int, ...]] = (None, ())
        self._frozen = False
        self._store = HistoryStore.of(log, settings)  # as the pager's
        #: The kept newest page (:meth:`_kept_newest`), until the pager has read: on an object
        #: store and for a long log in a folder (a shorter one's whole kept history is drawn
        #: at once). The pager then reads the whole kept history, else a long folder's newest
        #: page first.
        self._newest = self._kept_newest(log) if long_folder or not local else None
        newest_first = long_folder and self._newest is None
        self._pager = HistoryPager(log, settings, size=size, first=first, newest_first=newest_first)
        #: The pager's entries and whether they are whole, as of its last finished read: what
        #: a page is given while the next read runs (the pager's own may be a kept history
        #: not yet decoded, which a page asking would decode a second time, beside it).
        self._read_so_far: tuple[tuple[HistoryEntry, ...], bool] = ((), False)
        self._tail = log.tail  # its listing
        self._kept_apart = self._newest is not None  # whether the newest page is kept apart
        if self._newest is None:  # the newest page (a later open: the whole kept history)
            with self._lock:
                self._read(self._pager.read_older)

    def _kept_newest(self, log: DeltaLog) -> tuple[HistoryEntry, ...] | None:
        """A later open's newest page: the newest entries of the kept whole history, kept
        apart (:meth:`~inspector.table.history_store.HistoryStore.keep_newest`), when the
        whole listing is still the one it was computed from (its record's digest: the
        refresh's listing and the log's first page, without classifying 100,000 files) and
        has no newer version. The pager reads the whole kept history next, in the background."""
        store = self._store
        if store is None or not store.kept():
            return None
        record = log.whole_key()  # None: Azure, a small folder (listed whole, no record)
        if record is None:
            return None
        with collector_paused():  # 2,000 entries made and kept: no collection walks them
            return store.newest(record, log.latest_version)

    def _read(self, read: Callable[[], object]) -> None:
        """Read with the pager (under the lock): its entries replace the kept newest page;
        a whole history kept now gets its newest page kept apart for a later open."""
        pager = self._pager
        with collector_paused():  # as the pager's own reading: the entries are all kept
            read()
            # Decoded here (kept entries are when first asked for), not in a rerun.
            self._read_so_far = (pager.entries, pager.done)
            # Frozen before the collector runs again: its first collection would otherwise
            # walk every entry just made (0.2 s at 100,000 versions).
            self._frozen_when_whole()
        self._newest = None
        if pager.done and pager.kept is not None and not self._kept_apart:
            self._kept_apart = True
            pager.kept.keep_newest(pager.entries[-KEPT_NEWEST:])

    @property
    def entries(self) -> tuple[HistoryEntry, ...]:
        """The newest versions read so far, oldest first (never waits)."""
        newest = self._newest
        return newest if newest is not None else self._read_so_far[0]

    @property
    def done(self) -> bool:
        """Whether the whole history has been read."""
        return self._newest is None and self._read_so_far[1]

    def progress(self) -> tuple[int, int | None]:
        """Versions read, and of how many (None until the whole log has been listed)."""
        pager, newest = self._pager, self._newest
        if newest is not None:
            return len(newest), None
        return len(self._read_so_far[0]), len(pager.versions) if pager.listed else None

    def known_versions(self) -> tuple[int, ...]:
        """The selectable versions listed so far, ascending: all of them once the log has been
        listed, else the newest page's listing (never waits)."""
        return self._selectable()

    def has_commit(self, version: int) -> bool:
        """Whether a version read so far has a commit file (else only a checkpoint)."""
        if self._newest is not None:
            return version in self._tail.commits
        return self._pager.has_commit(version)

    def all_versions(self) -> tuple[int, ...]:
        """Every selectable version, ascending: commit versions and versions with a usable
        checkpoint (lists the whole log first when it has not been)."""
        if not self._pager.listed:
            self.read_down_to(self.entries[0].version - 1 if self.entries else 0)
        return self._selectable()

    def _selectable(self) -> tuple[int, ...]:
        pager, newest = self._pager, self._newest
        key = (pager.listed, -1 if newest is not None else len(self._read_so_far[0]))
        if self._versions[0] != key:  # the kept newest page's: the refresh's listing's
            versions = selectable(self._tail) if newest is not None else pager.selectable()
            self._versions = (key, versions)
        return self._versions[1]

    def read_down_to(self, version: int) -> None:
        """Read older pages until ``version`` (or the oldest version) has been read.

        Raises:
            InspectorError: If the log cannot be read (the background reading's failure too).
        """
        with self._lock:
            if self._failure is not None:
                raise self._failure
            self._read(lambda: self._pager.read_down_to(version))

    def read_count(self, count: int) -> None:
        """Read older pages until ``count`` versions (or all) have been read.

        Raises:
            InspectorError: If the log cannot be read.
        """
        with self._lock:
            if self._failure is not None:
                raise self._failure
            while len(self.entries) < count and not self.done:
                self._read(self._pager.read_older)

    def whole(self) -> tuple[HistoryEntry, ...]:
        """The whole history, oldest first (reads what is left first)."""
        self.read_down_to(-1)
        return self._pager.entries

    def start_background(
        self, then: Callable[[tuple[HistoryEntry, ...]], object] | None = None
    ) -> None:
        """Read the older pages in a background thread (once), newest first.

        Args:
            then: Run in that thread with the whole history once it is read (after
                :attr:`done` turns true, so that the page drawn again for it, whose refresh
                waits on the store, meanwhile finds what ``then`` derives: the Timeline's
                frame). Not run when the reading fails or this thread was started already.
        """
        with self._lock:
            if self._thread is not None or self.done:
                return
            self._thread = threading.Thread(
                target=self._read_rest, args=(then,), name="history-pages", daemon=True
            )
        self._thread.start()

    def _read_rest(self, then: Callable[[tuple[HistoryEntry, ...]], object] | None) -> None:
        more = True
        while more:
            with self._lock:  # a page at a time: a page that asks for a window gets its turn
                try:
                    self._read(self._pager.read_older)
                    more = not self._pager.done
                except Exception as exc:  # raised to the next page that asks for more
                    self._failure, more = exc, False
        if then is not None and self._failure is None:
            try:
                then(self._pager.entries)
            except Exception:  # noqa: BLE001, S110 - the page derives it again and meets this itself
                pass

    def _frozen_when_whole(self) -> None:
        """Once a long history is read whole, move what the process holds (its entries among
        it) out of the cyclic collector's generations (:func:`gc.freeze`), under the lock.

        The app keeps the entries as long as it caches this load, and they hold no reference
        cycle. Left in the oldest generation, the next full collection walks every one of
        them: 0.5-1 s of a later open's first screen at 100,000 versions. Frozen objects are
        still freed by reference counting; what a cycle held at that moment stays.
        """
        if self._frozen or not self._pager.done or len(self._pager.entries) < FREEZE_FROM:
            return
        self._frozen = True
        gc.freeze()
