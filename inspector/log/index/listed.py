"""The listing record: the last whole listing of a table's ``_delta_log``, kept in its folder of
the index, so that a later open lists only what is new (:mod:`inspector.log.relist`).

One file, ``listing-<digest>.json`` (columnar JSON of the log files' paths, sizes,
modification times and ETags; the digest is of the file, so a truncated or corrupted one is
found, removed and ignored). It holds file names and sizes, no content and no credentials.
Written to a temporary name and renamed into place; a reader takes the newest whole one.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from inspector.log.index.segments import digest, names_in, remove_quietly, write_atomically
from inspector.log.index.tables import TableIndex
from inspector.log.index.usage import used_at
from inspector.storage import ObjectMeta

_NAME = re.compile(r"^listing-([0-9a-f]{32})\.json$")


@dataclass(frozen=True, kw_only=True)
class ListingRecord:
    """A listing's log files as columns, sorted by path: no record per file (a log of 100,000
    commits is read, compared and written without building 100,000 objects)."""

    paths: list[str]
    sizes: list[int]
    times: list[int]
    etags: list[str | None]

    @classmethod
    def of(cls, files: Sequence[ObjectMeta]) -> ListingRecord:
        """The record of listed files (sorted by path)."""
        return cls(
            paths=[f.path for f in files],
            sizes=[f.size for f in files],
            times=[f.last_modified for f in files],
            etags=[f.etag for f in files],
        )

    def __len__(self) -> int:
        return len(self.paths)

    def encoded(self) -> bytes:
        """The record as written (columnar JSON)."""
        body = {"path": self.paths, "size": self.sizes, "time": self.times, "etag": self.etags}
        return orjson.dumps(body)

    def key(self) -> str:
        """The digest of the record as written (its file's name): it names these files."""
        return digest(self.encoded())

    def metas(self, lo: int = 0, hi: int | None = None) -> list[ObjectMeta]:
        """Files ``lo`` to ``hi`` (exclusive) as listed entries."""
        rows = zip(
            self.paths[lo:hi], self.sizes[lo:hi], self.times[lo:hi], self.etags[lo:hi], strict=True
        )
        return [ObjectMeta(path=p, size=s, last_modified=t, etag=e) for p, s, t, e in rows]

    def upto(self, path: str) -> int:
        """How many files sort at or before ``path``."""
        return bisect.bisect_right(self.paths, path)

    def spliced(
        self, lo: int, hi: int, before: list[ObjectMeta], after: list[ObjectMeta]
    ) -> ListingRecord:
        """``before``, then files ``lo`` to ``hi`` of this record, then ``after``."""
        head, tail = ListingRecord.of(before), ListingRecord.of(after)
        return ListingRecord(
            paths=head.paths + self.paths[lo:hi] + tail.paths,
            sizes=head.sizes + self.sizes[lo:hi] + tail.sizes,
            times=head.times + self.times[lo:hi] + tail.times,
            etags=head.etags + self.etags[lo:hi] + tail.etags,
        )


def read_listing(table: TableIndex) -> ListingRecord | None:
    """The recorded listing, sorted by path; None when there is none (or none whole).

    Another user's folder is never read (they could have planted what it says).
    """
    if not os.path.isdir(table.folder) or not table.index.usable():
        return None
    for name in sorted(
        names_in(table.folder, _NAME), key=lambda n: -used_at(os.path.join(table.folder, n))
    ):
        path = os.path.join(table.folder, name)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            if digest(raw) != _NAME.fullmatch(name)[1]:  # type: ignore[index]
                raise ValueError("digest mismatch")
            body = orjson.loads(raw)
            found = ListingRecord(
                paths=body["path"], sizes=body["size"], times=body["time"], etags=body["etag"]
            )
            if not len(found.paths) == len(found.sizes) == len(found.times) == len(found.etags):
                raise ValueError("columns of different lengths")
            return found
        except OSError:
            continue  # replaced meanwhile by another process
        except (ValueError, KeyError, TypeError):
            remove_quietly(path)
    return None


def write_listing(table: TableIndex, record: ListingRecord) -> None:
    """Record a whole listing's log files (replacing the record held); a full disk or a
    folder that cannot be used leaves the index without one, never changes an answer."""
    if not table.index.usable():
        return
    raw = record.encoded()
    name = f"listing-{digest(raw)}.json"
    try:
        os.makedirs(table.folder, mode=0o700, exist_ok=True)
        old = [n for n in names_in(table.folder, _NAME) if n != name]
        write_atomically(os.path.join(table.folder, name), raw)
    except OSError:
        return
    for stale in old:
        remove_quietly(os.path.join(table.folder, stale))
