"""A whole listing of ``_delta_log`` made from a listing record's columns, without a
:class:`~inspector.log.listing.LogFile` per file.

A later open of a 100,000-commit log on an object store makes its whole listing from the log
index's record (:mod:`inspector.log.relist`). Building a listed entry and a ``LogFile`` for
each of its files cost about 2 s of CPU, though a question reads a few hundred of them: here
the commit and checksum files are looked up by version in the record's columns
(:class:`ColumnFiles`), and a ``LogFile`` is made only for a file a question asks for. The
checkpoints, compacted files and ``_last_checkpoint`` (a few) are classified as any listing's
are (:func:`~inspector.log.listing.classify`), so the listing is the one a full listing gives.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from inspector.log.listing import (
    COMMIT_FILE,
    CRC_FILE,
    LastCheckpoint,
    LogFile,
    LogListing,
    classify,
    listing_of,
)
from inspector.storage import ObjectMeta, Storage

#: Files by version as columns: the versions (ascending), and their files' paths (as the
#: listing has them), sizes, modification times (ms) and ETags.
FileColumns = tuple[list[int], list[str], list[int], list[int], list[str | None]]


class ColumnFiles(Mapping[int, LogFile]):
    """Listed files by version, read from a record's columns when asked for.

    Args:
        storage: The table's storage (a file's location is its :meth:`~Storage.uri`).
        columns: The record's paths, sizes, modification times (ms) and ETags.
        rows: Each version's row in the columns.
    """

    def __init__(
        self,
        storage: Storage,
        columns: tuple[Sequence[str], Sequence[int], Sequence[int], Sequence[str | None]],
        rows: dict[int, int],
    ) -> None:
        self._storage, self._columns, self._rows = storage, columns, rows

    def __getitem__(self, version: int) -> LogFile:
        row = self._rows[version]
        paths, sizes, times, etags = self._columns
        path = paths[row]
        return LogFile(
            name=path.rpartition("/")[2],
            path=self._storage.uri(path),
            size=sizes[row],
            modification_time=times[row],
            etag=etags[row],
        )

    def __contains__(self, version: object) -> bool:
        return version in self._rows

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def columns(self, upto: int | None = None) -> FileColumns:
        """The files of versions up to ``upto`` (all when None) as columns, without a
        ``LogFile`` per file (paths relative to the table root)."""
        versions = sorted(v for v in self._rows if upto is None or v <= upto)
        rows = [self._rows[v] for v in versions]
        paths, sizes, times, etags = self._columns
        return (
            versions,
            [paths[r] for r in rows],
            [sizes[r] for r in rows],
            [times[r] for r in rows],
            [etags[r] for r in rows],
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ColumnFiles):
            return self._identity() == other._identity()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # a mapping, as a dict is

    def _identity(self) -> tuple[Any, ...]:
        """What two listings' files must share to be equal, without a record per file."""
        rows = list(self._rows.values())
        return (list(self._rows), *([column[r] for r in rows] for column in self._columns))


def listing_of_columns(
    storage: Storage,
    columns: tuple[Sequence[str], Sequence[int], Sequence[int], Sequence[str | None]],
    others: list[ObjectMeta],
    *,
    last: LastCheckpoint | None,
) -> LogListing:
    """The whole listing that ``columns`` (files of ``_delta_log`` sorted by path: a record's
    log files, or a whole local listing, :meth:`~inspector.storage.Storage.list_columns`) and
    the folder's other entries make: as :func:`~inspector.log.listing.listing_of` gives for
    the same files.

    Raises:
        NotADeltaTable: As :func:`~inspector.log.listing.list_log`.
    """
    paths, sizes, times, etags = columns
    commits: dict[int, int] = {}
    crcs: dict[int, int] = {}
    rest: list[ObjectMeta] = []
    for row, path in enumerate(paths):
        name = path[path.rfind("/") + 1 :]
        if m := COMMIT_FILE.match(name):  # the listing's one rule for each kind of file
            commits[int(m[1])] = row
        elif m := CRC_FILE.match(name):
            crcs[int(m[1])] = row
        else:
            rest.append(
                ObjectMeta(path=path, size=sizes[row], last_modified=times[row], etag=etags[row])
            )
    found = classify([*rest, *others], storage, last=last)
    if not commits:  # no commit in the record: the whole listing's rules say what it is
        every = [
            ObjectMeta(path=p, size=s, last_modified=t, etag=e)
            for p, s, t, e in zip(*columns, strict=True)
        ]
        return listing_of(storage, [*every, *others], last=last)
    return replace(
        found,
        commits=ColumnFiles(storage, columns, commits),
        crcs=ColumnFiles(storage, columns, crcs),
    )
