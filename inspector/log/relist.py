"""Listing ``_delta_log``: from the newest checkpoint on at each refresh, and the whole folder
when needed, which a later open makes from the log index's record and only what is new.

Listing ``_delta_log`` whole costs a request per 1,000 entries on an object store (100 of them
for a log of 50,000 commits with their checksums). Once a whole listing is recorded in the log
index (:mod:`inspector.log.index.listed`), a later open lists

* from just before the newest recorded commit on (a start-after listing, :data:`OVERLAP`
  recorded entries back, which also picks up a checkpoint or checksum written late for a
  recent version): the refresh's listing, started there instead of at the newest checkpoint
  when that is older; the recorded commits it lists again must be unchanged; and
* the first page of the log (one request), which must equal what the record holds up to the
  last path it reaches: a table dropped and recreated at the same path rewrote commit 0, a
  log cleanup removed the oldest files, and either shows there.

The whole listing is then the first page, the record between the two, and the new part. Any
difference in what is checked falls back to a full listing (and records that), so an answer is
never built on a stale record. Commit files are immutable once written (put-if-absent), so
what lies between the two listings is what the record says. Only stores that list from a
start at less cost use it: S3 and GCS, whose servers answer a start-after listing, and a local
folder, which reads every name but stats only those it lists (one ``stat`` per file was the
cost of a later open: 100,000 of them). A folder's names are all compared with the record's
too, since they cost no ``stat``. Azure lists whole.
"""

from __future__ import annotations

from dataclasses import replace

from inspector.delta.paths import LOG_DIR
from inspector.log.columnlisting import listing_of_columns
from inspector.log.index import TableIndex
from inspector.log.index.listed import ListingRecord, read_listing, write_listing
from inspector.log.listing import (
    COMMIT_FILE,
    Checkpoint,
    LastCheckpoint,
    LogListing,
    classify,
    list_entry_columns,
    read_last_checkpoint,
)
from inspector.log.staged import STAGED_DIR
from inspector.storage import FileColumns, ObjectMeta, Storage

#: Entries per page of a first listing (an S3 or GCS page).
PAGE = 1000
#: Recorded entries listed again before the newest one (the start-after listing's margin).
OVERLAP = 200
#: Versions the refresh lists before the newest checkpoint: its listing then starts at the
#: oldest checkpoint among them, and holds the newest page of a history (the app's first
#: screen: 250 versions) where checkpoints are that close, so the page lists nothing more.
#: Without checksums that is one request (400 versions, up to 800 files with them). Only
#: where the server lists from a start (S3, GCS): a folder or Azure is listed whole anyway.
REACH = 400
#: Where a log file's name starts in its path (``_delta_log/<name>``).
_NAME_AT = len(LOG_DIR) + 1


class LogLister:
    """How one log lists its ``_delta_log``: from the newest checkpoint on at each refresh
    (:meth:`tail`), the whole folder when an older version is asked for (:meth:`whole`).

    With a listing record in the index, the refresh lists from just before the newest recorded
    commit (or the checkpoint, when older), so that the whole listing needs only the first page
    more. The record is read once and kept (another process's newer one is as good to start
    from). Not thread-safe: the log calls it under its lock.

    Args:
        storage: The table's storage.
        table: The table's part of the log index (None: none; Azure lists whole).
    """

    def __init__(self, storage: Storage, table: TableIndex | None) -> None:
        self.storage = storage
        self.index = table  # the table's part of the log index (checkpoints are kept there too)
        self._table = table if storage.lists_after else None
        self._recorded: ListingRecord | None = None
        self._listed: tuple[str, list[ObjectMeta]] = ("~", [])  # the refresh's: after, entries
        #: The staged commit files the refresh's listing returned too (None: it did not).
        self.staged: list[ObjectMeta] | None = None
        self._whole: tuple[ListingRecord, list[ObjectMeta]] | None = None  # since the refresh
        self._key: tuple[ListingRecord, str] | None = None  # a record and its digest
        #: The last whole listing made, and what it was made from (its record's digest...).
        self._made: (
            tuple[LogListing, str | None, list[ObjectMeta], LastCheckpoint | None] | None
        ) = None

    @property
    def indexed(self) -> bool:
        """Whether whole listings are recorded in (and made from) the log index."""
        return self._table is not None

    def tail(self) -> LogListing:
        """``_delta_log`` from the checkpoint ``_last_checkpoint`` names on: what a snapshot of
        the latest version needs, and nothing older.

        Reads the hint (one GET) and lists the folder starting after the checkpoint's version
        (an object store's start-after listing, so older entries are never sent). When the
        hint is missing, unreadable or names a checkpoint that is not there whole, the whole
        folder is listed instead (as Delta's readers do).

        Raises:
            NotADeltaTable: As :func:`~inspector.log.listing.list_log`.
            StorageUnavailable: If the object store cannot be reached or refuses access.
        """
        if self._table is not None and self._recorded is None:
            self._recorded = read_listing(self._table)
        self._listed, self._whole, self.staged = ("~", []), None, None
        hint = read_last_checkpoint(self.storage)
        if hint is not None and hint.version is not None:
            key = f"{LOG_DIR}/{hint.version:020d}"
            # A folder lists its names whole anyway, and Azure its entries: no reach there.
            remote = self.storage.lists_after and self.storage.local_path() is None
            reach = REACH if remote else 0
            after = min(key, f"{LOG_DIR}/{max(hint.version - reach, 0):020d}")
            after = min(after, _start(self._recorded)) if self._recorded else after
            try:
                entries, self.staged = self.storage.list_with(
                    LOG_DIR, start_after=after, subfolder=STAGED_DIR.rpartition("/")[2]
                )
            except OSError:
                entries = []
            self._listed = (after, entries)
            listed = classify([e for e in entries if e.path > after], self.storage, last=hint)
            usable = listed.usable_checkpoints()
            if any(cp.version == hint.version for cp in usable):
                return _from_oldest_checkpoint(entries, after, usable, self.storage, hint)
        return self.whole(hint)

    def staged_files(self) -> list[ObjectMeta]:
        """The files in ``_delta_log/_staged_commits``: those the refresh's listing returned
        (an object store's start-after listing), else listed now (none when that fails)."""
        if self.staged is not None:
            return self.staged
        try:
            return self.storage.list(STAGED_DIR)
        except OSError:
            return []

    def whole(self, last: LastCheckpoint | None) -> LogListing:
        """The whole ``_delta_log`` listing (see the module).

        Args:
            last: ``_last_checkpoint`` when the caller has read it already.

        Raises:
            NotADeltaTable: As :func:`~inspector.log.listing.list_log`.
            StorageUnavailable: If the object store cannot be reached or refuses access.
        """
        if self._table is None:  # columns: no record or LogFile for a file not asked for
            columns = list_entry_columns(self.storage)
            return listing_of_columns(self.storage, columns, [], last=last)
        record, others = self._whole_record()
        made, key = self._made, self.whole_key()
        if made is not None and made[1:] == (key, others, last):
            return made[0]  # listed again, unchanged (an app's rerun): not classified again
        columns = (record.paths, record.sizes, record.times, record.etags)
        listing = replace(listing_of_columns(self.storage, columns, others, last=last), record=key)
        self._made = (listing, key, others, last)
        return listing

    def whole_key(self) -> str | None:
        """The digest of the whole listing's record (:attr:`LogListing.record`), made as
        :meth:`whole` makes it but without classifying its files (an indexed log; else None).

        Raises:
            NotADeltaTable, StorageUnavailable: As :meth:`whole`.
        """
        if self._table is None:
            return None
        record, _ = self._whole_record()
        if self._key is None or self._key[0] is not record:
            self._key = (record, record.key())
        return self._key[1]

    def commit_times(self, below: int) -> dict[int, int]:
        """The modification time (ms) of every commit file below ``below``, by version, from
        the whole listing without a record per file (an indexed log only)."""
        record, _ = self._whole_record()
        match = COMMIT_FILE.match
        times = {
            int(found[1]): time
            for path, time in zip(record.paths, record.times, strict=True)
            if (found := match(path[_NAME_AT:]))
        }
        return (
            times if not times or max(times) < below else {v: times[v] for v in times if v < below}
        )

    def _whole_record(self) -> tuple[ListingRecord, list[ObjectMeta]]:
        """The whole listing since the refresh: its log files, and the other entries."""
        assert self._table is not None
        if self._whole is None:
            made = self._relisted(self._recorded) if self._recorded else None
            if made is None:  # as columns: no record per file (a folder of 100,000 commits)
                made = (*_record_of(list_entry_columns(self.storage)), True)
            record, others, changed = made
            # A folder of a page or less is listed whole at every open: nothing to record.
            if changed and (self.storage.local_path() is None or len(record) > PAGE):
                write_listing(self._table, record)
            self._recorded, self._whole = record, (record, others)
        return self._whole

    def _relisted(
        self, recorded: ListingRecord
    ) -> tuple[ListingRecord, list[ObjectMeta], bool] | None:
        """The whole listing from the first page, the record and the new part: its log files,
        the other entries, and whether it differs from the record. None when the first page or
        the listed-again commits disagree with the record."""
        page, reach = self.storage.list_first(LOG_DIR, PAGE)
        logs = [e for e in page if _is_log_file(e)]
        others = [e for e in page if not _is_log_file(e)]
        if reach is None:  # the whole folder fit in one page
            return ListingRecord.of(logs), others, True
        lo = recorded.upto(reach)
        if logs != recorded.metas(0, lo):
            return None  # recreated, cleaned up or rewritten at its beginning
        start = max(_start(recorded), reach)
        hi = recorded.upto(start)
        after, listed = self._listed
        if after <= start:  # the refresh listed from there already
            tail = [e for e in listed if e.path > start]
        else:
            tail = self.storage.list(LOG_DIR, start_after=start)
        new = [e for e in tail if _is_log_file(e)]
        again = {e.path: e for e in new}
        for old in recorded.metas(hi):
            if COMMIT_FILE.match(old.name) and again.get(old.path) != old:
                return None  # a recent commit rewritten or gone: the log is not what was recorded
        changed = new != recorded.metas(hi)
        others += [e for e in tail if not _is_log_file(e)]
        spliced = recorded.spliced(lo, hi, logs, new)
        names = self.storage.names(LOG_DIR)  # a folder's names cost no stat: all are checked
        if names is not None and not _same_names(names, spliced.paths):
            return None  # a file between the two listings is gone, or a new one is there
        return spliced, others, changed


def _from_oldest_checkpoint(
    entries: list[ObjectMeta],
    after: str,
    usable: list[Checkpoint],
    storage: Storage,
    hint: LastCheckpoint,
) -> LogListing:
    """The listing from the oldest of the ``usable`` checkpoints listed after ``after`` whose
    every file was listed (all of a version's files sort after ``after`` when its version is
    above it) on."""
    name = after.rpartition("/")[2]  # a version's key (``…/<20 digits>``) or a listed file
    floor = int(name[:20]) + (0 if len(name) == 20 else 1)
    oldest = min(cp.version for cp in usable if cp.version >= floor)
    key = f"{LOG_DIR}/{oldest:020d}"
    tail = classify([e for e in entries if e.path > key], storage, last=hint)
    return replace(tail, from_version=oldest)


def _start(recorded: ListingRecord) -> str:
    """Where a listing of what is new starts: :data:`OVERLAP` recorded entries back."""
    return recorded.paths[max(0, len(recorded) - OVERLAP - 1)]


def _record_of(columns: FileColumns) -> tuple[ListingRecord, list[ObjectMeta]]:
    """A whole listing's columns as the record of its log files, and its other entries (a
    few: ``_last_checkpoint``, a writer's temporary file), taken out of the columns."""
    paths, sizes, times, etags = columns
    at = [i for i, path in enumerate(paths) if not _is_log_name(path[_NAME_AT:])]
    others = [
        ObjectMeta(path=paths[i], size=sizes[i], last_modified=times[i], etag=etags[i]) for i in at
    ]
    for i in reversed(at):
        del paths[i], sizes[i], times[i], etags[i]
    return ListingRecord(paths=paths, sizes=sizes, times=times, etags=etags), others


def _same_names(names: list[str], paths: list[str]) -> bool:
    """Whether a folder's log file ``names`` (in any order) are those of ``paths``."""
    logs = {n for n in names if _is_log_name(n)}
    return len(logs) == len(paths) and all(p[_NAME_AT:] in logs for p in paths)


def _is_log_file(entry: ObjectMeta) -> bool:
    """A commit, checkpoint, checksum or compacted file (named by a version)."""
    return _is_log_name(entry.name)


def _is_log_name(name: str) -> bool:
    """:func:`_is_log_file` of a file's name."""
    return name[:1].isdigit()
