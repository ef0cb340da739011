"""One segment of the log index: commits held raw or parsed, in a file named by its digest.

A segment holds three Arrow IPC streams, each after its length (8 bytes, little-endian):
the commits (the listing's identity of each file and, for a small commit, its bytes; for a
big one, the text of its other actions), then the big commits' add and then remove actions
as the log core's columnar tables (:mod:`inspector.log.columnar`) with each row's version
and line. A big commit is thus held in the form the log core parses it into
(:class:`~inspector.log.bigcommit.CommitFiles`), and a warm read does not parse its JSON.

A segment's name is ``<first version>-<last version>-<commits>-<digest>.arrow``; the digest
is of the whole file, so a truncated or corrupted segment is found before it is opened (and
removed, and read again from the store). Segments are written to a temporary file in the
same folder and renamed into place, so another process sees a segment whole or not at all.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.log.bigcommit import CommitFiles
from inspector.log.listing import LogFile

if TYPE_CHECKING:  # pyarrow is imported when a segment is read or written: start-up time
    import pyarrow as pa

_NAME = re.compile(r"^(\d{20})-(\d{20})-(\d+)-([0-9a-f]{32})\.arrow$")
_PLACE = ("version", "line")  # the columns a file action's row carries in a segment


def schema() -> pa.Schema:
    """The commits' columns: the listing's identity of each commit file, and its bytes (a
    small commit) or its other actions' lines and their line numbers (a big one)."""
    import pyarrow as pa

    return pa.schema(
        [
            ("version", pa.int64()),
            ("size", pa.int64()),
            ("modification_time", pa.int64()),
            ("etag", pa.string()),
            ("data", pa.large_binary()),
            ("other_text", pa.list_(pa.large_binary())),
            ("other_lines", pa.list_(pa.int64())),
        ]
    )


def file_schema(kind: str) -> pa.Schema:
    """A kind of file action's columns in a segment: the log core's, and the row's place."""
    import pyarrow as pa

    from inspector.log import columnar

    place = [pa.field(name, pa.int64()) for name in _PLACE]
    return pa.schema([*columnar.schema_of(kind), *place])


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
    """One cached commit file: the listing's identity of it, and its bytes (``data``) or
    its parsed form (``files``: a big commit's file actions and other lines)."""

    version: int
    size: int
    modification_time: int
    etag: str | None
    data: bytes | None = None
    files: CommitFiles | None = None

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
        if digest(raw) != segment.digest:
            raise ValueError("digest mismatch")
        commits, adds, removes = _streams(raw)
        if not commits.schema.equals(schema()):
            raise ValueError("unexpected schema")
        if not (adds.schema.equals(file_schema("add"))):
            raise ValueError("unexpected schema")
        if not removes.schema.equals(file_schema("remove")):
            raise ValueError("unexpected schema")
        return _entries(commits, adds, removes)
    except (ValueError, OSError, struct.error, pa.ArrowException):
        remove_quietly(path)
        return None


def _streams(raw: bytes) -> list[pa.Table]:
    """The segment's three tables (commits, adds, removes); ValueError when it is not one."""
    import pyarrow as pa

    tables, at = [], 0
    for _ in range(3):
        (length,) = struct.unpack_from("<Q", raw, at)
        at += 8
        if at + length > len(raw):
            raise ValueError("truncated")
        tables.append(pa.ipc.open_stream(pa.py_buffer(raw[at : at + length])).read_all())
        at += length
    if at != len(raw):
        raise ValueError("trailing bytes")
    return tables


def _entries(commits: pa.Table, adds: pa.Table, removes: pa.Table) -> dict[int, list[Entry]]:
    """Entries by version; a parsed commit's rows are zero-copy slices of the segment's."""
    found: dict[int, list[Entry]] = {}
    placed = {"add": _by_version(adds), "remove": _by_version(removes)}
    columns = [commits.column(name).to_pylist() for name in commits.schema.names]
    for version, size, time, etag, data, other_text, other_lines in zip(*columns, strict=True):
        files = None
        if other_text is not None:
            (add_rows, add_lines), (remove_rows, remove_lines) = (
                placed[kind].get(version, _none(kind)) for kind in ("add", "remove")
            )
            files = CommitFiles(
                adds=add_rows,
                removes=remove_rows,
                add_lines=add_lines,
                remove_lines=remove_lines,
                other_lines=tuple(other_lines),
                other_text=tuple(other_text),
            )
        entry = Entry(
            version=version, size=size, modification_time=time, etag=etag, data=data, files=files
        )
        found.setdefault(version, []).append(entry)
    return found


def _by_version(table: pa.Table) -> dict[int, tuple[pa.Table, pa.Array]]:
    """A file-action table's rows per version (written grouped by version), without their
    place columns, and their line numbers."""
    import pyarrow.compute as pc

    out: dict[int, tuple[pa.Table, pa.Array]] = {}
    if not table.num_rows:
        return out
    versions = table.column("version").combine_chunks()
    ends = pc.indices_nonzero(pc.not_equal(versions[1:], versions[:-1])).to_pylist()
    starts = [0, *(e + 1 for e in ends)]
    stops = [*(e + 1 for e in ends), table.num_rows]
    body = table.drop_columns(list(_PLACE))
    lines = table.column("line")
    for start, stop in zip(starts, stops, strict=True):
        part = lines.slice(start, stop - start).combine_chunks()
        out[versions[start].as_py()] = (body.slice(start, stop - start), part)
    return out


def _none(kind: str) -> tuple[pa.Table, pa.Array]:
    from inspector.log import arrays, columnar

    return columnar.empty(kind), arrays.numbers([])


def write_segment(folder: str, entries: list[Entry]) -> Segment | None:
    """Write entries as a new segment (temporary file, then an atomic rename)."""
    if not entries:
        return None
    entries = sorted(entries, key=lambda e: e.version)
    raw = _encode(entries)
    named = digest(raw)
    first, last, count = entries[0].version, entries[-1].version, len(entries)
    name = f"{first:020d}-{last:020d}-{count}-{named}.arrow"
    segment = Segment(name=name, first=first, last=last, count=count, digest=named)
    write_atomically(os.path.join(folder, segment.name), raw)
    return segment


def _encode(entries: list[Entry]) -> bytes:
    """The segment's bytes: its three tables as LZ4-compressed IPC streams, each after its
    length."""
    import pyarrow as pa

    from inspector.log import arrays

    commits = pa.Table.from_arrays(
        [
            arrays.numbers([e.version for e in entries]),
            arrays.numbers([e.size for e in entries]),
            arrays.numbers([e.modification_time for e in entries]),
            arrays.texts([e.etag for e in entries]),
            _binaries([e.data for e in entries]),
            _lists([_text(e) for e in entries], _binaries),
            _lists([_lines(e) for e in entries], arrays.numbers),
        ],
        schema=schema(),
    )
    out = b""
    for table in (commits, _files(entries, "add"), _files(entries, "remove")):
        sink = pa.BufferOutputStream()
        options = pa.ipc.IpcWriteOptions(compression="lz4")
        with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
            writer.write_table(table)
        body = sink.getvalue().to_pybytes()
        out += struct.pack("<Q", len(body)) + body
    return out


def _binaries(values: Sequence[bytes | None]) -> pa.Array:
    """A ``large_binary`` array from buffers (``pa.array`` of Python values imports pandas:
    a quarter of a second of a first read)."""
    import numpy as np
    import pyarrow as pa

    from inspector.log import arrays

    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    bitmap = arrays.flags([v is not None for v in values]).buffers()[1]
    nulls = sum(v is None for v in values)
    data = pa.py_buffer(b"".join(v for v in values if v is not None))
    buffers = [bitmap if nulls else None, pa.py_buffer(offsets), data]
    return pa.Array.from_buffers(pa.large_binary(), len(values), buffers, nulls)


def _lists(
    values: Sequence[Sequence[Any] | None], build: Callable[[list[Any]], pa.Array]
) -> pa.Array:
    """A list array of ``build``'s items, from buffers (no pandas)."""
    import numpy as np
    import pyarrow as pa

    from inspector.log import arrays

    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    items = build([x for v in values if v is not None for x in v])
    nulls = arrays.flags([v is None for v in values])
    return pa.ListArray.from_arrays(arrays.from_numpy(offsets, pa.int32()), items, mask=nulls)


def _text(entry: Entry) -> list[bytes] | None:
    return None if entry.files is None else list(entry.files.other_text)


def _lines(entry: Entry) -> list[int] | None:
    return None if entry.files is None else list(entry.files.other_lines)


def _files(entries: list[Entry], kind: str) -> pa.Table:
    """The parsed commits' file actions of a kind, grouped by version, with their place."""
    import numpy as np
    import pyarrow as pa

    from inspector.log import arrays, columnar

    parts = []
    for entry in entries:
        if entry.files is None:
            continue
        rows = entry.files.adds if kind == "add" else entry.files.removes
        lines = entry.files.add_lines if kind == "add" else entry.files.remove_lines
        if not rows.num_rows:
            continue
        rows = rows.append_column(
            "version", arrays.from_numpy(np.full(rows.num_rows, entry.version))
        )
        parts.append(rows.append_column("line", pa.chunked_array([lines], pa.int64())))
    if not parts:
        empty = columnar.empty(kind)
        place = [arrays.numbers([]) for _ in _PLACE]
        return pa.Table.from_arrays([*empty.columns, *place], schema=file_schema(kind))
    return pa.concat_tables(parts).cast(file_schema(kind))


def write_atomically(path: str, data: bytes, *more: bytes) -> None:
    """Write a file owner-only, whole or not at all (a temporary file renamed into place);
    ``more`` follows ``data`` (a big body written without joining it first)."""
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            for chunk in more:
                fh.write(chunk)
        os.replace(temp, path)
    except BaseException:
        remove_quietly(temp)
        raise


def size(folder: str, segment: Segment) -> int:
    """A segment's size on disk (0 when it is gone)."""
    try:
        return os.path.getsize(os.path.join(folder, segment.name))
    except OSError:
        return 0


def remove_segment(folder: str, segment: Segment) -> None:
    """Remove a segment (another process may have removed it already)."""
    remove_quietly(os.path.join(folder, segment.name))


def names_in(folder: str, pattern: re.Pattern[str]) -> list[str]:
    """The names in a folder of the index that ``pattern`` matches whole (none when the
    folder is missing or cannot be read)."""
    try:
        return [n for n in os.listdir(folder) if pattern.fullmatch(n)]
    except OSError:
        return []


def remove_quietly(path: str) -> None:
    """Remove a file of the index; another process may have removed it already."""
    try:
        os.remove(path)
    except OSError:
        pass


def digest(raw: bytes) -> str:
    """The digest that names a file of the index and proves its content whole."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
