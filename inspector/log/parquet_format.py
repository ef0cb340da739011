"""Parquet's file format in pure Python: the Thrift compact protocol, snappy, the footer.

The small half of :mod:`inspector.log.parquet_lite` (a reader for small checkpoints that
imports neither pyarrow nor numpy): it decodes Thrift structs into ``{field id: value}``
dicts, decompresses pages (UNCOMPRESSED, SNAPPY, GZIP) and turns the footer's flat schema
into a tree of :class:`Node`. Anything else is :class:`NotSupportedHere`, and the caller
reads the file with pyarrow instead.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Any


class NotSupportedHere(Exception):
    """This reader does not read the file (a codec, an encoding, a shape, damage).

    Never an answer about the file: the caller reads it with pyarrow, which decides
    whether it is readable and says why not.
    """


# --- the Thrift compact protocol --------------------------------------------------------

(
    _TSTOP,
    _TTRUE,
    _TFALSE,
    _TBYTE,
    _TI16,
    _TI32,
    _TI64,
    _TDOUBLE,
    _TBINARY,
    _TLIST,
    _TSET,
    _TMAP,
    _TSTRUCT,
) = range(13)


class Thrift:
    """A reader of Thrift compact-protocol values from a buffer, at ``pos``."""

    def __init__(self, data: bytes | memoryview, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def varint(self) -> int:
        """An unsigned LEB128 integer."""
        data, pos, shift, out = self.data, self.pos, 0, 0
        while True:
            byte = data[pos]
            pos += 1
            out |= (byte & 0x7F) << shift
            if byte < 0x80:
                self.pos = pos
                return out
            shift += 7

    def zigzag(self) -> int:
        """A signed (zigzag) varint."""
        n = self.data[self.pos]
        if n < 0x80:  # one byte: most field ids, types and counts
            self.pos += 1
        else:
            n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def struct(self) -> dict[int, Any]:
        """A struct as ``{field id: value}`` (nested structs are dicts too)."""
        out: dict[int, Any] = {}
        last = 0
        while True:
            head = self.data[self.pos]
            self.pos += 1
            kind = head & 0x0F
            if kind == _TSTOP:
                return out
            delta = head >> 4
            last = last + delta if delta else self.zigzag()
            out[last] = self.value(kind)

    def value(self, kind: int) -> Any:
        """One value of a Thrift compact type."""
        if _TI16 <= kind <= _TI64:  # the most common, first
            return self.zigzag()
        if kind in (_TTRUE, _TFALSE):
            return kind == _TTRUE
        if kind == _TBYTE:
            self.pos += 1
            return self.data[self.pos - 1]
        if kind == _TDOUBLE:
            self.pos += 8
            return struct.unpack_from("<d", self.data, self.pos - 8)[0]
        if kind == _TBINARY:
            size = self.varint()
            self.pos += size
            return bytes(self.data[self.pos - size : self.pos])
        if kind in (_TLIST, _TSET):
            return self._list()
        if kind == _TSTRUCT:
            return self.struct()
        if kind == _TMAP:
            raise NotSupportedHere("a Thrift map in the footer")
        raise NotSupportedHere(f"Thrift type {kind}")

    def _list(self) -> list[Any]:
        head = self.data[self.pos]
        self.pos += 1
        size, kind = head >> 4, head & 0x0F
        if size == 15:
            size = self.varint()
        if kind in (_TTRUE, _TFALSE):  # a list's booleans are one byte each
            self.pos += size
            return [b == 1 for b in self.data[self.pos - size : self.pos]]
        return [self.value(kind) for _ in range(size)]


# --- codecs -----------------------------------------------------------------------------

UNCOMPRESSED, SNAPPY, GZIP = 0, 1, 2


def decompress(codec: int, data: bytes | memoryview, size: int) -> bytes:
    """A page's bytes uncompressed (``size`` is the page's uncompressed size)."""
    if codec == UNCOMPRESSED:
        return bytes(data)
    if codec == SNAPPY:
        out = unsnappy(data)
    elif codec == GZIP:
        out = zlib.decompress(bytes(data), wbits=47)  # gzip or zlib header
    else:
        raise NotSupportedHere(f"compression codec {codec}")
    if len(out) != size:
        raise NotSupportedHere("a page's size differs from its header")
    return out


def unsnappy(block: bytes | memoryview) -> bytes:
    """Decompress a raw snappy block (the format's literals and back-references)."""
    data = bytes(block)  # indexing bytes is faster than a memoryview
    reader = Thrift(data)
    size = reader.varint()
    out = bytearray()
    pos, end = reader.pos, len(data)
    while pos < end:
        tag = data[pos]
        kind = tag & 3
        if kind == 0:  # a literal
            length = (tag >> 2) + 1
            pos += 1
            if length > 60:
                extra = length - 60
                length = int.from_bytes(data[pos : pos + extra], "little") + 1
                pos += extra
            out += data[pos : pos + length]
            pos += length
            continue
        if kind == 1:
            length, offset = 4 + ((tag >> 2) & 7), ((tag >> 5) << 8) | data[pos + 1]
            pos += 2
        elif kind == 2:
            length, offset = (tag >> 2) + 1, data[pos + 1] | data[pos + 2] << 8
            pos += 3
        else:
            length, offset = (tag >> 2) + 1, int.from_bytes(data[pos + 1 : pos + 5], "little")
            pos += 5
        start = len(out) - offset
        if offset <= 0 or start < 0:
            raise NotSupportedHere("a snappy back-reference before the start")
        if offset >= length:
            out += out[start : start + length]
            continue
        while length > 0:  # an overlapping copy repeats the last ``offset`` bytes
            chunk = out[start : start + min(length, offset)]
            out += chunk
            start, length = start + len(chunk), length - len(chunk)
    if len(out) != size:
        raise NotSupportedHere("a snappy block of the wrong length")
    return bytes(out)


# --- levels and dictionary indices ------------------------------------------------------


def hybrid(data: bytes, pos: int, end: int, width: int, count: int) -> list[int]:
    """``count`` values of the RLE/bit-packed hybrid encoding, ``width`` bits each."""
    out: list[int] = []
    mask, size = (1 << width) - 1, (width + 7) // 8
    reader = Thrift(data, pos)
    while len(out) < count:
        if reader.pos >= end:
            raise NotSupportedHere("levels shorter than their page")
        header = reader.varint()
        at = reader.pos
        if header & 1:  # bit-packed groups of 8 values
            for _ in range(header >> 1):
                bits = int.from_bytes(data[at : at + width], "little")
                out += [bits >> (i * width) & mask for i in range(8)]
                at += width
        else:
            out += [int.from_bytes(data[at : at + size], "little")] * (header >> 1)
            at += size
        reader.pos = at
    return out[:count]


# --- the footer and the schema ------------------------------------------------------------

REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
# Converted types and logical types (SchemaElement fields 6 and 10) this reader knows.
_UTF8, _MAP, _MAP_KEY_VALUE, _LIST = 0, 1, 2, 3
_INT_32, _INT_64 = 17, 18
_LOGICAL_STRING, _LOGICAL_MAP, _LOGICAL_LIST, _LOGICAL_INTEGER = 1, 2, 3, 10
BOOLEAN, INT32, INT64, BYTE_ARRAY = 0, 1, 2, 6


@dataclass(kw_only=True, eq=False)
class Node:
    """One element of the schema tree, with the levels that reach it."""

    name: str
    repetition: int
    physical: int | None  # None for a group
    annotation: str  # "string", "int", "list", "map" or "" (a struct, or a plain value)
    children: list[Node]
    max_def: int = 0
    max_rep: int = 0
    path: tuple[str, ...] = ()
    plain: bool = True  # no list, map or repeated field at or below it

    def child(self, name: str) -> Node | None:
        """The child of that name (None when there is none)."""
        return next((c for c in self.children if c.name == name), None)


def read_footer(data: bytes) -> tuple[Node, list[dict[int, Any]]]:
    """The schema tree and the row groups of a whole Parquet file's bytes.

    Raises:
        NotSupportedHere: If the file is not a Parquet file this reader reads.
    """
    if len(data) < 12 or data[:4] != b"PAR1" or data[-4:] != b"PAR1":
        raise NotSupportedHere("not a whole Parquet file")
    length = int.from_bytes(data[-8:-4], "little")
    if length > len(data) - 12:
        raise NotSupportedHere("a footer longer than the file")
    meta = Thrift(data, len(data) - 8 - length).struct()
    elements = meta[2]
    root, used = _tree(elements, 0, 0, 0, ())
    if used != len(elements):
        raise NotSupportedHere("a schema with elements left over")
    return root, meta.get(4, [])


def _tree(
    elements: list[dict[int, Any]], at: int, max_def: int, max_rep: int, path: tuple[str, ...]
) -> tuple[Node, int]:
    """The node at ``elements[at]`` with its subtree, and the index after it."""
    element = elements[at]
    repetition = element.get(3, REQUIRED) if at else REQUIRED
    name = element[4].decode("utf-8")
    max_def += repetition != REQUIRED
    max_rep += repetition == REPEATED
    path = (*path, name) if at else ()
    node = Node(
        name=name,
        repetition=repetition,
        physical=element.get(1) if not element.get(5) else None,
        annotation=_annotation(element),
        children=[],
        max_def=max_def,
        max_rep=max_rep,
        path=path,
    )
    at += 1
    for _ in range(element.get(5) or 0):
        child, at = _tree(elements, at, max_def, max_rep, path)
        node.children.append(child)
    node.plain = (
        repetition != REPEATED
        and node.annotation not in ("list", "map")
        and all(c.plain for c in node.children)
    )
    return node, at


def _annotation(element: dict[int, Any]) -> str:
    logical = element.get(10) or {}
    converted = element.get(6)
    if _LOGICAL_STRING in logical or converted == _UTF8:
        return "string"
    if _LOGICAL_LIST in logical or converted == _LIST:
        return "list"
    if _LOGICAL_MAP in logical or converted in (_MAP, _MAP_KEY_VALUE):
        return "map"
    integer = logical.get(_LOGICAL_INTEGER)
    if integer is not None:
        plain = integer.get(1) in (32, 64) and integer.get(2, True)
    else:
        plain = converted in (None, _INT_32, _INT_64) and not logical
    return "" if plain else "other"  # narrower integers, dates, decimals...: not read here
