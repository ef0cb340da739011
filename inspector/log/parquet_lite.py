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
    read_footer,
)
from inspector.log.parquet_pages import Levels, read_chunk

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
        done: set[int] = set()  # leaves read with their list or map
        for path in leaves:
            leaf = path[-1]
            if id(leaf) in done:
                continue
            at = _container(path)
            if at is not None:  # the list's or map's leaves read together
                paths = [p for p in leaves if len(p) > at and p[at] is path[at]]
                parts = [p[-1] for p in paths]
                done.update(id(p) for p in parts)
                levels = [read_chunk(data, chunks[p.path], p) for p in parts]
                found = _entries(path[at], parts, levels)
                if found is not None:
                    merged = _place_flat(merged, path[: at + 1], *found)
                    continue
                for part_path, part_levels in zip(paths, levels, strict=True):
                    shredded = _shred(part_path, *part_levels)
                    merged = shredded if merged is None else _merge_rows(merged, shredded)
            elif all(n.repetition != REPEATED for n in path):
                levels_ = read_chunk(data, chunks[leaf.path], leaf)
                merged = _place_flat(merged, path, levels_[1], levels_[2])
            else:
                shredded = _shred(path, *read_chunk(data, chunks[leaf.path], leaf))
                merged = shredded if merged is None else _merge_rows(merged, shredded)
        rows += [None if v is None else _finish(node, v, skip) for v in merged or []]
    return rows


def _container(path: list[Node]) -> int | None:
    """Where in a leaf's path a list or map of plain values is, when it is the only
    repetition (the common shape: read without shredding); None otherwise."""
    repeated = [i for i, n in enumerate(path) if n.repetition == REPEATED]
    if len(repeated) != 1 or repeated[0] != len(path) - 2 or repeated[0] < 1:
        return None
    at = repeated[0] - 1
    return at if path[at].annotation in ("list", "map") else None


def _entries(
    container: Node, parts: list[Node], levels: list[Levels]
) -> tuple[list[int], list[Any]] | None:
    """Per row, the container's definition level (capped at its own) and, where it is
    present, its entries: values of a list, ``(key, value)`` pairs of a map. None when the
    shape is not the plain one (a nullable key, a part missing)."""
    present, entry = container.max_def, container.max_def + 1
    reps, defs, first = levels[0]
    if container.annotation == "map":
        if len(parts) != 2 or parts[0].max_def != entry or levels[1][0] != reps:
            return None
        second_defs, second = levels[1][1], levels[1][2]
    elif len(parts) != 1:
        return None
    last = parts[-1].max_def
    if last not in (entry, entry + 1):
        return None
    row_defs: list[int] = []
    lists: list[list[Any]] = []
    current: list[Any] = []
    taken = [0, 0]
    for j, (rep, level) in enumerate(zip(reps, defs, strict=True)):
        if rep == 0:
            row_defs.append(min(level, present))
            if level >= present:
                current = []
                lists.append(current)
        if level < entry:
            continue
        if container.annotation == "list":
            value = first[taken[0]] if level == last else None
            taken[0] += level == last
            current.append(value)
            continue
        key = first[taken[0]]
        other = second_defs[j]
        value = second[taken[1]] if other == last else None
        taken[0], taken[1] = taken[0] + 1, taken[1] + (other == last)
        current.append((key, value))
    if taken[0] != len(first) or (container.annotation == "map" and taken[1] != len(second)):
        raise NotSupportedHere("levels and values disagree")
    return row_defs, lists


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
        if isinstance(value, list):  # read whole by _entries
            return value
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
