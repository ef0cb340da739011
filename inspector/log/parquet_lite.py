"""A small, strict Parquet reader in pure Python, for small checkpoints.

Reads chosen top-level columns of a whole file's bytes into Python values, one per row,
as pyarrow's ``to_pylist`` gives them (structs as dicts, lists as lists, maps as lists of
``(key, value)`` pairs), importing neither pyarrow nor numpy: ``detail`` of a table whose
checkpoint is small starts in a fraction of pyarrow's import time. It reads only the
column chunks asked for: data pages v1 and v2 and dictionary pages, PLAIN and dictionary
encodings, RLE/bit-packed levels, and the nested shapes a Delta checkpoint has (optional
structs, lists and maps) of strings, booleans, 32- and 64-bit integers. Anything else
(another codec or encoding, another type, a damaged file) raises
:class:`~inspector.log.parquet_format.NotSupportedHere`, never a guess.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Collection, Sequence
from typing import Any

from inspector.log.parquet_format import (
    BOOLEAN,
    BYTE_ARRAY,
    INT32,
    INT64,
    OPTIONAL,
    REPEATED,
    Node,
    NotSupportedHere,
    Thrift,
    decompress,
    hybrid,
    read_footer,
)

_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_PLAIN, _PLAIN_DICTIONARY, _RLE, _RLE_DICTIONARY = 0, 2, 3, 8
_Levels = tuple[list[int], list[int], list[Any]]


_UNREADABLE = (IndexError, KeyError, ValueError, TypeError, struct.error, zlib.error)


class ParquetLite:
    """A whole Parquet file's bytes, its footer read once.

    Raises:
        NotSupportedHere: If the file holds something this reader does not read, or is
            damaged (the caller reads it with pyarrow, which says what is wrong).
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        try:
            self.root, self.row_groups = read_footer(data)
            self.num_rows = sum(int(group[3]) for group in self.row_groups)
        except _UNREADABLE as exc:
            raise NotSupportedHere(f"unreadable here ({type(exc).__name__}: {exc})") from None

    def fields(self, name: str) -> frozenset[str]:
        """The names of the fields of a top-level struct column (empty when there is none)."""
        node = self.root.child(name)
        return frozenset(c.name for c in node.children) if node is not None else frozenset()

    def read(self, names: Sequence[str], *, skip: Collection[str] = ()) -> dict[str, list[Any]]:
        """The top-level columns of ``names`` the file has, as lists of Python values.

        Args:
            names: Top-level columns to read (those the file lacks are left out).
            skip: Names of fields inside the columns not to read (left out of their
                structs), e.g. a checkpoint's ``stats_parsed``.

        Raises:
            NotSupportedHere: If a column holds something this reader does not read, or
                the file is damaged.
        """
        out: dict[str, list[Any]] = {}
        try:
            for name in names:
                node = self.root.child(name)
                if node is not None:
                    out[name] = _read_column(self.data, node, self.row_groups, frozenset(skip))
        except _UNREADABLE as exc:
            raise NotSupportedHere(f"unreadable here ({type(exc).__name__}: {exc})") from None
        return out


def read_columns(
    data: bytes, names: Sequence[str], *, skip: Collection[str] = ()
) -> dict[str, list[Any]]:
    """:meth:`ParquetLite.read` of a whole file's bytes."""
    return ParquetLite(data).read(names, skip=skip)


def _read_column(
    data: bytes, node: Node, row_groups: list[dict[int, Any]], skip: frozenset[str]
) -> list[Any]:
    leaves = list(_leaves(node, [node], skip))
    rows: list[Any] = []
    for group in row_groups:
        if any(1 in c for c in group[1]):
            raise NotSupportedHere("a column chunk in another file")
        chunks = {tuple(p.decode() for p in c[3][3]): c[3] for c in group[1]}
        merged: list[Any] | None = None
        for path in leaves:
            leaf = path[-1]
            levels = _read_chunk(data, chunks[leaf.path], leaf)
            if all(n.repetition != REPEATED for n in path):
                merged = _place_flat(merged, path, levels[1], levels[2])
            else:
                shredded = _shred(path, *levels)
                merged = shredded if merged is None else _merge_rows(merged, shredded)
        rows += [None if v is None else _finish(node, v, skip) for v in merged or []]
    return rows


def _leaves(node: Node, path: list[Node], skip: frozenset[str]) -> Any:
    """The paths (lists of nodes from the column down) to the leaves read."""
    if node.physical is not None:
        if node.annotation == "other" or node.physical not in (BOOLEAN, INT32, INT64, BYTE_ARRAY):
            raise NotSupportedHere(f"column {'.'.join(node.path)}'s type")
        if node.physical == BYTE_ARRAY and node.annotation != "string":
            raise NotSupportedHere(f"column {'.'.join(node.path)} is binary")
        yield path
        return
    for child in node.children:
        if child.name not in skip:
            yield from _leaves(child, [*path, child], skip)


# --- pages ------------------------------------------------------------------------------


def _read_chunk(data: bytes, meta: dict[int, Any], leaf: Node) -> _Levels:
    """A column chunk's repetition levels, definition levels and non-null values."""
    codec, count, data_at = meta[4], meta[5], meta[9]
    dict_at = meta.get(11)
    pos = dict_at if dict_at and dict_at < data_at else data_at
    end = pos + meta[7]
    reps: list[int] = []
    defs: list[int] = []
    values: list[Any] = []
    dictionary: list[Any] | None = None
    seen = 0
    while seen < count:
        if pos >= end:
            raise NotSupportedHere("a column chunk shorter than its values")
        reader = Thrift(data, pos)
        header = reader.struct()
        body = memoryview(data)[reader.pos : reader.pos + header[3]]
        pos = reader.pos + header[3]
        kind = header[1]
        if kind == _DICTIONARY_PAGE:
            page = decompress(codec, body, header[2])
            dictionary = _plain(leaf, page, 0, header[7][1])[0]
        elif kind in (_DATA_PAGE, _DATA_PAGE_V2):
            levels = _page_levels(kind, header, codec, body, leaf)
            page_reps, page_defs, page, at, encoding = levels
            present = page_defs.count(leaf.max_def)
            values += _values(leaf, encoding, page, at, present, dictionary)
            reps += page_reps
            defs += page_defs
            seen += len(page_defs)
    return reps, defs, values


def _page_levels(
    kind: int, header: dict[int, Any], codec: int, body: memoryview, leaf: Node
) -> tuple[list[int], list[int], bytes, int, int]:
    """A data page's levels, its (uncompressed) bytes, where its values start, their encoding."""
    if kind == _DATA_PAGE:
        page_header = header[5]
        count, encoding = page_header[1], page_header[2]
        if leaf.max_rep and page_header.get(4, _RLE) != _RLE:
            raise NotSupportedHere("bit-packed repetition levels")
        if leaf.max_def and page_header.get(3, _RLE) != _RLE:
            raise NotSupportedHere("bit-packed definition levels")
        page = decompress(codec, body, header[2])
        at = 0
        levels: list[list[int]] = []
        for max_level in (leaf.max_rep, leaf.max_def):
            if not max_level:  # every value at the one level there is
                levels.append([max_level] * count)
                continue
            size = int.from_bytes(page[at : at + 4], "little")
            levels.append(hybrid(page, at + 4, at + 4 + size, max_level.bit_length(), count))
            at += 4 + size
        return levels[0], levels[1], page, at, encoding
    v2 = header[8]
    count, encoding, def_size, rep_size = v2[1], v2[4], v2[5], v2[6]
    raw = bytes(body[: rep_size + def_size])
    reps = hybrid(raw, 0, rep_size, leaf.max_rep.bit_length(), count) if leaf.max_rep else []
    defs: list[int] = (
        hybrid(raw, rep_size, rep_size + def_size, leaf.max_def.bit_length(), count)
        if leaf.max_def
        else [leaf.max_def] * count
    )
    rest = body[rep_size + def_size :]
    page = decompress(codec if v2.get(7, True) else 0, rest, header[2] - rep_size - def_size)
    return reps or [0] * count, defs, page, 0, int(encoding)


def _values(
    leaf: Node, encoding: int, page: bytes, at: int, count: int, dictionary: list[Any] | None
) -> list[Any]:
    if encoding == _PLAIN:
        return _plain(leaf, page, at, count)[0]
    if encoding in (_PLAIN_DICTIONARY, _RLE_DICTIONARY):
        if dictionary is None:
            raise NotSupportedHere("dictionary-encoded values without a dictionary")
        if not count:
            return []
        indices = hybrid(page, at + 1, len(page), page[at], count)
        return [dictionary[i] for i in indices]
    if encoding == _RLE and leaf.physical == BOOLEAN:
        size = int.from_bytes(page[at : at + 4], "little")
        return [bool(b) for b in hybrid(page, at + 4, at + 4 + size, 1, count)]
    raise NotSupportedHere(f"value encoding {encoding}")


def _plain(leaf: Node, page: bytes, at: int, count: int) -> tuple[list[Any], int]:
    """``count`` PLAIN values from ``at``, and the position after them."""
    kind = leaf.physical
    if kind == INT64:
        return list(struct.unpack_from(f"<{count}q", page, at)), at + 8 * count
    if kind == INT32:
        return list(struct.unpack_from(f"<{count}i", page, at)), at + 4 * count
    if kind == BOOLEAN:
        bits = int.from_bytes(page[at : at + (count + 7) // 8], "little")
        return [bool(bits >> i & 1) for i in range(count)], at + (count + 7) // 8
    out = []
    for _ in range(count):
        size = int.from_bytes(page[at : at + 4], "little")
        if at + 4 + size > len(page):
            raise NotSupportedHere("a string past the end of its page")
        out.append(page[at + 4 : at + 4 + size].decode("utf-8"))
        at += 4 + size
    return out, at


# --- from levels to values ----------------------------------------------------------------


def _shred(path: list[Node], reps: list[int], defs: list[int], values: list[Any]) -> list[Any]:
    """One leaf's values placed in their rows' nesting (groups as dicts holding this leaf's
    branch, repeated fields as lists), following Dremel's levels."""
    rows: list[Any] = []
    lists: dict[int, list[Any]] = {}
    repeated_at = {n.max_rep: i for i, n in enumerate(path) if n.repetition == REPEATED}
    leaf = path[-1]
    taken = 0
    present = path[0].max_def
    for rep, level in zip(reps, defs, strict=True):
        if level < present:  # the column is null in this row
            rows.append(None)
            continue
        value = None
        if level == leaf.max_def:
            value, taken = values[taken], taken + 1
        holder: Any
        key: Any
        if rep == 0:
            rows.append(None)
            holder, key, i, instance = rows, len(rows) - 1, 0, False
        else:
            holder = lists[rep]
            holder.append(None)
            key, i, instance = len(holder) - 1, repeated_at[rep], True
        while True:
            node = path[i]
            if node.repetition == REPEATED and not instance:
                items: list[Any] = []
                holder[key] = lists[node.max_rep] = items
                if level < node.max_def:
                    break  # an empty list
                items.append(None)
                holder, key = items, 0
            elif node.repetition == OPTIONAL and level < node.max_def:
                holder[key] = None
                break
            instance = False
            if node.physical is not None:
                holder[key] = value
                break
            group: dict[str, Any] = {}
            holder[key] = group
            i += 1
            holder, key = group, path[i].name
    if taken != len(values):
        raise NotSupportedHere("levels and values disagree")
    return rows


_ABSENT = object()


def _place_flat(
    rows: list[Any] | None, path: list[Node], defs: list[int], values: list[Any]
) -> list[Any]:
    """A leaf with no repeated field above it placed in the rows (made by the first leaf)."""
    present = path[0].max_def
    at = [i for i, level in enumerate(defs) if level >= present]  # the column's non-null rows
    if rows is None:
        rows = [None] * len(defs)
        for i in at:
            rows[i] = {}
    elif len(rows) != len(defs) or len(at) != len(rows) - rows.count(None):
        raise NotSupportedHere("columns of one struct disagree on its nulls")
    groups = [(n.name, n.max_def) for n in path[1:-1]]
    name, leaf_def = path[-1].name, path[-1].max_def
    if not groups and len(values) == len(at):  # a field of the column, never null in it
        for i, value in zip(at, values, strict=True):
            rows[i][name] = value
        return rows
    taken = 0
    for i in at:
        row, level = rows[i], defs[i]
        if row is None:
            raise NotSupportedHere("columns of one struct disagree on its nulls")
        for group, needed in groups:
            found = row.get(group, _ABSENT)
            if level < needed:
                if found not in (_ABSENT, None):
                    raise NotSupportedHere("columns of one struct disagree on its nulls")
                row[group] = None
                row = None
                break
            if found is None:
                raise NotSupportedHere("columns of one struct disagree on its nulls")
            if found is _ABSENT:
                found = row[group] = {}
            row = found
        if row is not None:
            if level == leaf_def:
                row[name], taken = values[taken], taken + 1
            else:
                row[name] = None
    if taken != len(values):
        raise NotSupportedHere("levels and values disagree")
    return rows


def _merge_rows(a: list[Any], b: list[Any]) -> list[Any]:
    """Two leaves' rows joined (a row null in one is null in the other)."""
    if len(a) != len(b):
        raise NotSupportedHere("columns of one struct have different row counts")
    for i, value in enumerate(b):
        if value is not None or a[i] is not None:
            a[i] = _merge(a[i], value)
    return a


def _merge(a: Any, b: Any) -> Any:
    """Two leaves' shredded values of one row joined (their branches share the groups)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for name, value in b.items():
            a[name] = _merge(a[name], value) if name in a else value
        return a
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [_merge(x, y) for x, y in zip(a, b, strict=True)]
    if a is None and b is None:
        return None
    raise NotSupportedHere("columns of one struct disagree on its shape")


def _finish(node: Node, value: Any, skip: frozenset[str]) -> Any:
    """A shredded value as pyarrow gives it: lists and maps unwrapped, missing fields None."""
    if value is None or node.plain:
        return value
    if node.annotation in ("list", "map"):
        if len(node.children) != 1 or node.children[0].repetition != REPEATED:
            raise NotSupportedHere(f"an unusual {node.annotation} at {'.'.join(node.path)}")
        inner = node.children[0]
        items = value[inner.name]
        if node.annotation == "list":
            if inner.physical is not None:
                return items
            if len(inner.children) != 1:
                raise NotSupportedHere(f"a list of structs at {'.'.join(node.path)}")
            element = inner.children[0]
            return [_finish(element, item[element.name], skip) for item in items]
        key, *rest = inner.children
        return [
            (
                _finish(key, item[key.name], skip),
                _finish(rest[0], item.get(rest[0].name), skip) if rest else None,
            )
            for item in items
        ]
    if any(c.repetition == REPEATED for c in node.children):
        raise NotSupportedHere(f"a repeated field outside a list at {'.'.join(node.path)}")
    for child in node.children:  # in place: the leaves gave every field read
        if child.name not in skip:
            value[child.name] = _finish(child, value.get(child.name), skip)
    return value
