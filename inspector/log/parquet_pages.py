"""Parquet's pages in pure Python: a column chunk's levels and values.

Part of the reader of :mod:`inspector.log.parquet_lite`: data pages v1 and v2 and
dictionary pages, PLAIN and dictionary encodings (RLE for booleans), RLE/bit-packed
levels. Anything else is :class:`~inspector.log.parquet_format.NotSupportedHere`.
"""

from __future__ import annotations

import struct
from typing import Any

from inspector.log.parquet_format import (
    BOOLEAN,
    INT32,
    INT64,
    Node,
    NotSupportedHere,
    Thrift,
    decompress,
    hybrid,
)

_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_PLAIN, _PLAIN_DICTIONARY, _RLE, _RLE_DICTIONARY = 0, 2, 3, 8
#: A column chunk's repetition levels, definition levels and non-null values.
Levels = tuple[list[int], list[int], list[Any]]


def read_chunk(data: bytes, meta: dict[int, Any], leaf: Node) -> Levels:
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
