"""A later open's whole listing of ``_delta_log``: what the index recorded, and only what is new.

Listing ``_delta_log`` whole costs a request per 1,000 entries on an object store (100 of them
for a log of 50,000 commits with their checksums). Once a whole listing is recorded in the log
index (:mod:`inspector.log.index.listed`), a later one lists

* the first page of the log (one request), which must equal what the record holds up to the
  last path it reaches: a table dropped and recreated at the same path rewrote commit 0, a
  log cleanup removed the oldest files, and either shows there; and
* from just before the newest recorded commit on (a start-after listing, :data:`OVERLAP`
  recorded entries back, which also picks up a checkpoint or checksum written late for a
  recent version); the recorded commits it lists again must be unchanged.

The whole listing is then the first page, the record between the two, and the new part. Any
difference in what is checked falls back to a full listing (and records that), so an answer is
never built on a stale record. Commit files are immutable once written (put-if-absent), so
what lies between the two listings is what the record says. Only stores whose server answers
a start-after listing use it (S3, GCS); a local folder and Azure list whole.
"""

from __future__ import annotations

from inspector.delta.paths import LOG_DIR
from inspector.log.index import TableIndex
from inspector.log.index.listed import holds_listing, read_listing, write_listing
from inspector.log.listing import COMMIT_FILE, LastCheckpoint, LogListing, list_entries, listing_of
from inspector.storage import ObjectMeta, Storage

#: Entries per page of a first listing (an S3 or GCS page).
PAGE = 1000
#: Recorded entries listed again before the newest one (the start-after listing's margin).
OVERLAP = 200


def list_whole(
    storage: Storage, table: TableIndex | None, *, last: LastCheckpoint | None
) -> LogListing:
    """The whole ``_delta_log`` listing, from the index's record and what is new where it can.

    Args:
        storage: The table's storage.
        table: The table's part of the log index (None: no index, a full listing).
        last: ``_last_checkpoint`` when the caller has read it already.

    Raises:
        NotADeltaTable: As :func:`~inspector.log.listing.list_log`.
        StorageUnavailable: If the object store cannot be reached or refuses access.
    """
    if table is None or not storage.lists_after:
        return listing_of(storage, list_entries(storage), last=last)
    recorded = read_listing(table)
    entries = _relisted(storage, recorded) if recorded else None
    if entries is None:
        entries = list_entries(storage)
    files = [e for e in entries if _is_log_file(e)]
    listing = listing_of(storage, entries, last=last)
    if files != recorded:
        write_listing(table, files)
    return listing


def has_record(storage: Storage, table: TableIndex | None) -> bool:
    """Whether :func:`list_whole` would list only what is new (a record is held)."""
    return table is not None and storage.lists_after and holds_listing(table)


def _relisted(storage: Storage, recorded: list[ObjectMeta]) -> list[ObjectMeta] | None:
    """The whole listing from the first page, the record and the new part; None when the
    first page or the listed-again commits disagree with the record."""
    page, reach = storage.list_first(LOG_DIR, PAGE)
    if reach is None:
        return page  # the whole folder fit in one page
    if [e for e in page if _is_log_file(e)] != [e for e in recorded if e.path <= reach]:
        return None  # recreated, cleaned up or rewritten at its beginning
    start = max(recorded[max(0, len(recorded) - OVERLAP - 1)].path, reach)
    tail = storage.list(LOG_DIR, start_after=start)
    again = {e.path: e for e in tail}
    for old in (e for e in recorded if e.path > start and COMMIT_FILE.match(e.name)):
        if again.get(old.path) != old:
            return None  # a recent commit rewritten or gone: the log is not what was recorded
    middle = [e for e in recorded if reach < e.path <= start]
    return [*page, *middle, *tail]


def _is_log_file(entry: ObjectMeta) -> bool:
    """A commit, checkpoint, checksum or compacted file (named by a version)."""
    return entry.name[:1].isdigit()
