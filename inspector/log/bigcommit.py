"""A big commit's file actions read by Arrow's JSON reader into tables.

From :data:`COLUMNAR_FROM` bytes on, a commit's add and remove lines are read by
``pyarrow.json`` (with each action's line number), the few other lines by orjson. Anything
unusual gives None, and :mod:`inspector.log.commit` parses the file line by line so that
its problems name the line. A small commit's typed records become the same tables by
:meth:`CommitFiles.of_records`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.log import text

# pyarrow is imported where a big commit is read: small commits are parsed by orjson alone;
# the actions where they are parsed: the log index serves a kept answer without them.
if TYPE_CHECKING:
    import pyarrow as pa

    from inspector.delta.actions import Action


@dataclass(frozen=True, kw_only=True)
class CommitFiles:
    """A big commit's add and remove actions as Arrow tables, with their line numbers, and
    the other actions' lines as written (the log index keeps them to parse again)."""

    adds: pa.Table
    removes: pa.Table
    add_lines: pa.Array
    remove_lines: pa.Array
    other_lines: tuple[int, ...]
    other_text: tuple[bytes, ...] = ()

    @classmethod
    def of_records(cls, actions: tuple[Action, ...]) -> CommitFiles:
        """A small commit's (or JSON checkpoint part's) typed actions, in file order, as a big
        commit's are read: the adds and removes as tables, with their line numbers."""
        from inspector.delta.actions import AddFile, RemoveFile
        from inspector.log import arrays, columnar

        adds = [(at, a) for at, a in enumerate(actions) if isinstance(a, AddFile)]
        removes = [(at, r) for at, r in enumerate(actions) if isinstance(r, RemoveFile)]
        return cls(
            adds=columnar.from_records("add", [a for _, a in adds]),
            removes=columnar.from_records("remove", [r for _, r in removes]),
            add_lines=arrays.numbers([at for at, _ in adds]),
            remove_lines=arrays.numbers([at for at, _ in removes]),
            other_lines=tuple(
                at for at, a in enumerate(actions) if not isinstance(a, AddFile | RemoveFile)
            ),
        )

    def by_kind(self) -> tuple[tuple[str, pa.Table, pa.Array], ...]:
        """``(kind, table, line numbers)`` of the adds, then of the removes."""
        return ("add", self.adds, self.add_lines), ("remove", self.removes, self.remove_lines)


# Below this size orjson parses a commit faster than Arrow's JSON reader starts.
COLUMNAR_FROM = 1 << 20
FILE_START = (b'{"add":{', b'{"remove":{')  # how a file action's line starts
_OTHER_LINE = re.compile(rb'^(?!\{"add":\{|\{"remove":\{)[^\n]+', re.M)
_FILE_LINE = re.compile(rb'^\{"(?:add|remove)":\{[^\n]*', re.M)


def read_file_actions(data: bytes) -> tuple[tuple[Action, ...], CommitFiles] | None:
    """A whole commit file's (not copied) other actions, and its file actions as Arrow
    tables; None for anything unusual (blank lines, fields outside the known add/remove
    fields, a line that does not parse)."""
    if b"\n\n" in data or b"\r" in data:
        return None
    try:
        others, other_lines, other_text = _other_actions(data)
    except (ValueError, TypeError, KeyError):
        return None
    files = read_file_lines(data, other_lines, other_text)
    return None if files is None else (others, files)


def other_actions(text_lines: tuple[bytes, ...]) -> tuple[Action, ...]:
    """The other actions of a big commit parsed again from their lines (as read, in order)."""
    from inspector.delta.parse import parse_action

    return tuple(parse_action(text.loads(line)) for line in text_lines)


def read_file_lines(
    body: bytes, other_lines: tuple[int, ...] = (), other_text: tuple[bytes, ...] = ()
) -> CommitFiles | None:
    """The add and remove lines of ``body`` (JSON lines, no blank ones) read by Arrow, with
    their line numbers; None for anything unusual. The lines at ``other_lines`` (already
    parsed, from ``other_text``) are not add/remove: a bulk read of many commits has none."""
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        table = pj.read_json(
            pa.BufferReader(pa.py_buffer(body)),
            read_options=pj.ReadOptions(block_size=16 << 20),
            parse_options=pj.ParseOptions(
                explicit_schema=_file_schema(body), unexpected_field_behavior="infer"
            ),
        )
        text.check_utf8(table)
        return _file_tables(table, other_lines, other_text)
    except (ValueError, TypeError, KeyError, pa.ArrowException):
        return None


def _other_actions(
    body: bytes,
) -> tuple[tuple[Action, ...], tuple[int, ...], tuple[bytes, ...]]:
    """The actions that are not add/remove (commitInfo, metaData, ...), with line numbers.

    Writers put them first (Spark) or last (delta-rs): look there, and scan every line
    only when the count of file-action lines says some are elsewhere.
    """
    from inspector.delta.actions import AddFile, RemoveFile

    size = len(body) - body.endswith(b"\n")  # the last line's end
    total = body.count(b"\n", 0, size) + 1
    files = sum(body.count(b"\n" + prefix) for prefix in FILE_START) + body.startswith(FILE_START)
    spans: list[tuple[int, int]] = []
    start = 0
    while start < size and not body.startswith(FILE_START, start):
        end = body.find(b"\n", start)
        end = len(body) if end == -1 else end
        spans.append((start, end))
        start = end + 1
    end = size
    tail: list[tuple[int, int]] = []
    while len(spans) + len(tail) + files < total and end > start:
        begin = body.rfind(b"\n", 0, end) + 1
        if body.startswith(FILE_START, begin):
            break
        tail.append((begin, end))
        end = begin - 1
    spans += reversed(tail)
    if len(spans) + files != total:
        spans = [m.span() for m in _OTHER_LINE.finditer(body)]
    texts = tuple(body[begin:stop] for begin, stop in spans)
    actions = other_actions(texts)
    if any(isinstance(a, AddFile | RemoveFile) for a in actions):  # with unusual spacing
        raise ValueError("file action outside the fast path")
    return actions, tuple(body.count(b"\n", 0, begin) for begin, _ in spans), texts


def _file_schema(body: bytes) -> pa.Schema:
    """add/remove with their known fields; partitionValues' keys from the first file action."""
    import pyarrow as pa

    from inspector.log import columnar

    first = _FILE_LINE.search(body)
    keys: list[str] = []
    if first is not None:
        obj = text.loads(first.group(0))
        values = next(iter(obj.values())).get("partitionValues") or {}
        keys = list(values) if isinstance(values, dict) else []
    partition = pa.struct([(k, pa.string()) for k in keys])

    def struct(fields: tuple[tuple[str, pa.DataType], ...]) -> pa.StructType:
        known = [(n, partition if n == "partitionValues" else t) for n, t in fields]
        return pa.struct([(n, t) for n, t in known if n != "tags"])

    return pa.schema([(kind, struct(fields)) for kind, fields in columnar.FIELDS.items()])


def _file_tables(
    table: pa.Table, other_lines: tuple[int, ...], other_text: tuple[bytes, ...]
) -> CommitFiles | None:
    """Normalise the reader's add/remove columns, block by block (no copy of the whole)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from inspector.log import arrays, columnar

    tables, lines = {}, {}
    for kind in ("add", "remove"):
        column = table.column(kind)
        names = {column.type.field(i).name for i in range(column.type.num_fields)}
        if names - {n for n, _ in columnar.FIELDS[kind]}:
            return None  # tags or unknown fields: the line-by-line path keeps them exactly
        pieces, at, offset = [], [], 0
        for chunk in column.chunks:
            valid = chunk.is_valid()  # from_struct refuses a path or an add's size missing
            pieces.append(columnar.from_struct(kind, chunk.filter(valid)))
            rows = arrays.to_numpy(pc.indices_nonzero(valid).cast(pa.int64()))
            at.append(arrays.from_numpy(rows + offset))
            offset += len(chunk)
        tables[kind] = pa.concat_tables(pieces) if pieces else columnar.empty(kind)
        lines[kind] = pa.concat_arrays(at) if at else pa.nulls(0, pa.int64())
    if tables["add"].num_rows + tables["remove"].num_rows + len(other_lines) != table.num_rows:
        return None  # a line holding neither one action nor another
    return CommitFiles(
        adds=tables["add"],
        removes=tables["remove"],
        add_lines=lines["add"],
        remove_lines=lines["remove"],
        other_lines=other_lines,
        other_text=other_text,
    )
