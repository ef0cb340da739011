"""One segment of the log index: an Arrow IPC file of commit files, named by its digest.

A segment's name is ``<first version>-<last version>-<commits>-<digest>.arrow``; the digest
is of the whole file, so a truncated or corrupted segment is found before it is opened (and removed,
and read again from the store). Segments are written to a temporary file in the same folder
and renamed into place, so another process sees a segment whole or not at all.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.log.listing import LogFile

if TYPE_CHECKING:  # pyarrow is imported when a segment is read or written: start-up time
    import pyarrow as pa

_NAME = re.compile(r"^(\d{20})-(\d{20})-(\d+)-([0-9a-f]{32})\.arrow$")


def schema() -> pa.Schema:
    """A segment's columns: the listing's identity of each commit file, and its bytes."""
    import pyarrow as pa

    return pa.schema(
        [
            ("version", pa.int64()),
            ("size", pa.int64()),
            ("modification_time", pa.int64()),
            ("etag", pa.string()),
            ("data", pa.large_binary()),
        ]
    )


@dataclass(frozen=True, kw_only=True)
class Segment:
    """A segment file's name and the versions it spans."""

    name: str
    first: int
    last: int
    count: int
    digest: str


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One cached commit file: the listing's identity of it, and its bytes."""

    version: int
    size: int
    modification_time: int
    etag: str | None
    data: bytes

    def fits(self, file: LogFile) -> bool:
        """True when the listing describes this very file (size, time and ETag all equal)."""
        return (
            self.size == file.size
            and self.modification_time == file.modification_time
            and self.etag == file.etag
        )


def segments(folder: str) -> list[Segment]:
    """The segments in a table's folder (none when it is missing)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if m := _NAME.match(name):
            found.append(
                Segment(name=name, first=int(m[1]), last=int(m[2]), count=int(m[3]), digest=m[4])
            )
    return sorted(found, key=lambda s: (s.first, s.last, s.name))


def read_segment(folder: str, segment: Segment) -> dict[int, list[Entry]] | None:
    """A segment's entries by version; None (and the file removed) when it is damaged."""
    import pyarrow as pa

    path = os.path.join(folder, segment.name)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None  # removed meanwhile (compacted or evicted by another process)
    try:
        if _digest(raw) != segment.digest:
            raise ValueError("digest mismatch")
        table = pa.ipc.open_file(pa.py_buffer(raw)).read_all()
        if not table.schema.equals(schema()):
            raise ValueError("unexpected schema")
    except (ValueError, OSError, pa.ArrowException):
        _remove(path)
        return None
    found: dict[int, list[Entry]] = {}
    columns = [table.column(name).to_pylist() for name in table.schema.names]
    for version, size, time, etag, data in zip(*columns, strict=True):
        entry = Entry(version=version, size=size, modification_time=time, etag=etag, data=data)
        found.setdefault(version, []).append(entry)
    return found


def write_segment(folder: str, entries: list[Entry]) -> Segment | None:
    """Write entries as a new segment (temporary file, then an atomic rename)."""
    import pyarrow as pa

    if not entries:
        return None
    entries = sorted(entries, key=lambda e: e.version)
    columns = [
        pa.array([e.version for e in entries], pa.int64()),
        pa.array([e.size for e in entries], pa.int64()),
        pa.array([e.modification_time for e in entries], pa.int64()),
        pa.array([e.etag for e in entries], pa.string()),
        pa.array([e.data for e in entries], pa.large_binary()),
    ]
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    with pa.ipc.new_file(sink, schema(), options=options) as writer:
        writer.write_table(pa.Table.from_arrays(columns, schema=schema()))
    raw = sink.getvalue().to_pybytes()
    digest = _digest(raw)
    first, last, count = entries[0].version, entries[-1].version, len(entries)
    name = f"{first:020d}-{last:020d}-{count}-{digest}.arrow"
    segment = Segment(name=name, first=first, last=last, count=count, digest=digest)
    write_atomically(os.path.join(folder, segment.name), raw)
    return segment


def write_atomically(path: str, data: bytes) -> None:
    """Write a file owner-only, whole or not at all (a temporary file renamed into place)."""
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(temp, path)
    except BaseException:
        _remove(temp)
        raise


def remove_segment(folder: str, segment: Segment) -> None:
    """Remove a segment (another process may have removed it already)."""
    _remove(os.path.join(folder, segment.name))


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
