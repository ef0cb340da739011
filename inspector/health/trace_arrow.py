"""The full check's trace in Arrow: every file key's live intervals, for the plain case.

The plain case: every commit after the earliest version is present and readable, and the
earliest version's snapshot can be read (a checkpoint may or may not exist). The add and
remove actions of those commits, with the earliest snapshot's files as the base, become
one table of (version, line, add?, key); sorting it by key, version and line gives each
key's state after each version it is named in (the newest action of a version wins; a
re-add of a live key is no change), and from those states its live intervals
``[start, end)``. No per-version set of live files is kept.

Data files with plain relative paths stay in columns (the first add's size is the size
each must have, as :func:`~inspector.health.trace.register_add` keeps it); rows with a
deletion vector or an odd path go one by one through ``register_add``, the shared rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.actions import Action, AddCDCFile, AddFile, Metadata, RemoveFile
from inspector.health.latest import ODD_PATTERN, whole_array
from inspector.health.trace import Ref, register_add
from inspector.log import arrays, columnar
from inspector.log.bigcommit import read_file_lines
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import LogFile
from inspector.log.snapshot import FileKey, Snapshot
from inspector.table.history_scan import SLICE, json_objects, split_lines, typed_actions

_ODD_PATH = re.compile(ODD_PATTERN)
_NULL_TAG = re.compile(rb'"tags":\{[^}]*":null')
_SEP = "\x00"  # joins a key's path and deletion-vector id into one text (no path holds NUL)


@dataclass(kw_only=True)
class Intervals:
    """Every key's live intervals: ``key[i]`` is live from ``start[i]`` to ``end[i]``
    (exclusive; the latest version + 1 when still live); ``line[i]`` orders the keys a
    commit adds (the line of the key's first action in the starting commit)."""

    keys: pa.Array  # distinct keys as ``path NUL dv_id`` texts, indexed by ``key``
    key: np.ndarray
    start: np.ndarray
    end: np.ndarray
    line: np.ndarray


@dataclass(kw_only=True)
class ArrowTrace:
    """The trace: intervals, the files to judge, and what every retained version names."""

    root: str
    intervals: Intervals
    plain: pa.Table  # (path, size): data files with plain paths, the first add's size
    refs: dict[str, Ref] = field(default_factory=dict)  # DV files and odd paths' data files
    special_paths: dict[FileKey, tuple[str, ...]] = field(default_factory=dict)
    cdc: set[str] = field(default_factory=set)  # change-data files' paths as the log has them
    partition_columns: tuple[str, ...] = ()  # the latest metadata's


class _Rows:
    """The file actions of the base and the commits, gathered as columns."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.tables: list[pa.Table] = []
        self.lists: dict[str, list[Any]] = {n: [] for n in ("version", "line", "add", "key_path")}
        self.lists |= {"dv_id": [], "size": [], "plain": []}
        self.refs: dict[str, Ref] = {}
        self.special_paths: dict[FileKey, tuple[str, ...]] = {}

    def add_table(
        self, version: int | np.ndarray, files: pa.Table, lines: pa.Array, *, add: bool
    ) -> None:
        """Rows of a table of actions (``columnar``'s schema) with their versions (one for
        all, or one per row) and line numbers (ordering a version's actions)."""
        self._flush()
        n = files.num_rows
        versions = np.broadcast_to(np.asarray(version, dtype=np.int64), (n,))
        odd = pc.match_substring_regex(files.column("key_path"), ODD_PATTERN) if add else None
        if odd is not None:
            self._register(files, odd)
        size = files.column("size") if add else pa.nulls(n, pa.int64())
        self.tables.append(
            _table(
                version=arrays.from_numpy(np.ascontiguousarray(versions)),
                line=lines.cast(pa.int64()),
                add=arrays.mask(np.full(n, add, dtype=bool)),
                key_path=files.column("key_path"),
                dv_id=files.column("dv_id"),
                size=size,
                plain=pc.invert(odd) if odd is not None else arrays.mask(np.zeros(n, dtype=bool)),
            )
        )

    def add_commit(self, commit: Commit) -> None:
        """A commit's add and remove actions (its columns, or its typed records)."""
        if commit.columns is not None:
            cols = commit.columns
            self.add_table(commit.version, cols.adds, cols.add_lines, add=True)
            self.add_table(commit.version, cols.removes, cols.remove_lines, add=False)
            return
        lists = self.lists
        for line, action in enumerate(commit.parsed):
            if not isinstance(action, AddFile | RemoveFile):
                continue
            key = action.key
            is_add = isinstance(action, AddFile)
            odd = is_add and _ODD_PATH.search(key[0]) is not None
            if is_add and (key[1] is not None or odd):
                self._register_one(action)  # type: ignore[arg-type]
            lists["version"].append(commit.version)
            lists["line"].append(line)
            lists["add"].append(is_add)
            lists["key_path"].append(key[0])
            lists["dv_id"].append(key[1] or "")
            lists["size"].append(action.size if is_add else None)
            lists["plain"].append(is_add and not odd)

    def table(self) -> pa.Table:
        """Every row gathered, in the order given (base, then commits by version)."""
        self._flush()
        return pa.concat_tables(self.tables).combine_chunks()

    def _flush(self) -> None:
        lists = self.lists
        if not lists["version"]:
            return
        self.tables.append(
            _table(
                version=arrays.numbers(lists["version"]),
                line=arrays.numbers(lists["line"]),
                add=arrays.flags(lists["add"]),
                key_path=arrays.texts(lists["key_path"]),
                dv_id=arrays.texts(lists["dv_id"]),
                size=arrays.numbers(lists["size"]),
                plain=arrays.flags(lists["plain"]),
            )
        )
        for values in lists.values():
            values.clear()

    def _register(self, files: pa.Table, odd: pa.ChunkedArray | pa.Array) -> None:
        """Rows with a deletion vector or an odd path, one by one by the shared rule."""
        special = pc.or_(odd, files.column("deletionVector").is_valid())
        if pc.any(special).as_py():
            rows = files.filter(special)
            at = rows.schema.get_field_index("tags")  # not needed; read in bulk, keys are merged
            rows = rows.set_column(at, "tags", pa.nulls(rows.num_rows, rows.schema.field(at).type))
            for add in columnar.records("add", rows):
                self._register_one(add)  # type: ignore[arg-type]

    def _register_one(self, add: AddFile) -> None:
        if add.key not in self.special_paths:
            self.special_paths[add.key] = register_add(self.refs, self.root, add)


def _table(**columns: pa.Array | pa.ChunkedArray) -> pa.Table:
    """A table of named columns (``pa.table`` would import pandas to ask if it got a frame)."""
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def trace_plain(log: DeltaLog, base: Snapshot, first: int, latest: int) -> ArrowTrace | None:
    """The trace of the base (the earliest version's live files) and the later commits.

    Args:
        log: The opened log; every commit after ``first`` must be listed.
        base: The earliest version's snapshot.
        first: The earliest version.
        latest: The latest version.

    Returns:
        The trace; None when a commit is damaged (not the plain case).
    """
    root, versions = log.table_root, list(range(first + 1, latest + 1))
    rows, cdc = _Rows(root), set[str]()
    files, columns = base.files_table, base.metadata.partition_columns
    rows.add_table(first, files, arrays.from_numpy(np.arange(files.num_rows)), add=True)
    for others in _read(log, versions, rows):
        if others is None:
            return None  # a damaged commit: not the plain case
        for action in others:
            if isinstance(action, AddCDCFile):
                cdc.add(action.path)
            elif isinstance(action, Metadata):
                columns = action.partition_columns
    table = rows.table()
    return ArrowTrace(
        root=root,
        intervals=intervals(table, latest),
        plain=_plain_files(table),
        refs=rows.refs,
        special_paths=rows.special_paths,
        cdc=cdc,
        partition_columns=columns,
    )


def _read(log: DeltaLog, versions: list[int], rows: _Rows) -> Iterator[Sequence[Action] | None]:
    """Put the commits' file actions into ``rows``, a slice at a time; yields each commit's
    other actions (None for a damaged commit).

    A slice read from storage has its add and remove lines read together by Arrow's JSON
    reader (as the history's bulk read does); a slice with a cached commit, or anything
    unusual, goes through the one commit parser, commit by commit.
    """
    listed = [(v, f) for v in versions if (f := log.commit_file(v)) is not None]
    for start in range(0, len(listed), SLICE):
        part = listed[start : start + SLICE]
        bulk = None
        if all(log.cached_commit(v) is None for v, _ in part):
            contents = log.storage.read_many([f.path for _, f in part])
            bulk = _bulk(part, contents, rows)
        if bulk is not None:
            yield from bulk
            continue
        for commit in log.stream_commits([v for v, _ in part]):
            if not commit.is_complete or commit.counted is not None:
                yield None
                return
            rows.add_commit(commit)
            yield commit.parsed  # other actions (and, for a small commit, its file actions)


def _bulk(
    part: list[tuple[int, LogFile]], contents: list[bytes | OSError], rows: _Rows
) -> list[Sequence[Action]] | None:
    """A slice's file actions read together into ``rows``; each commit's other actions.
    None when a commit is not fit for the bulk read (nothing is put into ``rows`` then)."""
    splits = []
    for data in contents:
        found = split_lines(data) if isinstance(data, bytes) else None
        objects = json_objects(found[0]) if found is not None else None
        typed = typed_actions(objects) if objects is not None else None
        if found is None or typed is None:
            return None
        splits.append((typed, found[1]))
    owners = [v for (v, _), (_, lines) in zip(part, splits, strict=True) for _ in lines]
    if owners:
        body = b"\n".join(line for _, lines in splits for line in lines)
        files = read_file_lines(body) if _parsable(body) else None
        if files is None:
            return None
        version = np.asarray(owners, dtype=np.int64)
        for kind, table, lines in (
            ("add", files.adds, files.add_lines),
            ("remove", files.removes, files.remove_lines),
        ):
            at = arrays.to_numpy(lines.cast(pa.int64()))
            rows.add_table(version[at], table, lines, add=kind == "add")
    return [typed for typed, _ in splits]


def _parsable(body: bytes) -> bool:
    """False for what the one commit parser refuses and Arrow's reader lets through: a tag
    with a null value (the parser names such a commit damaged: not the plain case). Read
    together, rows' tags have every key any row has (null where a row has none), so the
    lines themselves are asked."""
    return _NULL_TAG.search(body) is None


def intervals(rows: pa.Table, latest: int) -> Intervals:
    """Each key's live intervals from its actions (sorted by key, version, line)."""
    sep = arrays.repeated(_SEP, rows.num_rows)  # a Python or Arrow scalar would import pandas
    keys = pc.binary_join_element_wise(rows.column("key_path"), rows.column("dv_id"), sep)
    encoded = pc.dictionary_encode(whole_array(keys))
    kid = arrays.to_numpy(encoded.indices.cast(pa.int64()))
    version = arrays.to_numpy(whole_array(rows.column("version")))
    line = arrays.to_numpy(whole_array(rows.column("line")))
    added = arrays.to_numpy(whole_array(rows.column("add")).cast(pa.int64())) == 1
    if not len(kid):
        none = np.zeros(0, dtype=np.int64)
        return Intervals(keys=encoded.dictionary, key=none, start=none, end=none, line=none)
    order = np.lexsort((line, version, kid))
    kid, version, line, added = kid[order], version[order], line[order], added[order]
    # one group per (key, version): its first line orders the adds, its last action wins
    first = _starts(kid, version)
    last = np.r_[first[1:], len(kid)] - 1
    gkey, gversion, gline, live = kid[first], version[first], line[first], added[last]
    was = np.zeros(len(gkey), dtype=bool)
    was[1:] = live[:-1]
    was[_starts(gkey)] = False
    event = np.flatnonzero(live != was)  # a key comes to life or is removed
    opens = np.flatnonzero(live[event])  # positions in ``event``: events alternate per key
    after = np.minimum(opens + 1, max(len(event) - 1, 0))
    closed = (opens + 1 < len(event)) & (gkey[event[after]] == gkey[event[opens]])
    at = event[opens]
    return Intervals(
        keys=encoded.dictionary,
        key=gkey[at],
        start=gversion[at],
        end=np.where(closed, gversion[event[after]], latest + 1),
        line=gline[at],
    )


def _starts(*columns: np.ndarray) -> np.ndarray:
    """Where each run of equal values (over all the sorted columns together) starts."""
    n = len(columns[0])
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for column in columns:
        change |= column[1:] != column[:-1]
    return np.flatnonzero(np.r_[n > 0, change]) if n else np.zeros(0, dtype=np.int64)


def _plain_files(rows: pa.Table) -> pa.Table:
    """The data files with plain relative paths that adds name, with the first add's size."""
    adds = rows.filter(rows.column("plain"))  # an add of a plain path
    paths, sizes = whole_array(adds.column("key_path")), whole_array(adds.column("size"))
    distinct = pc.unique(paths)
    if len(distinct) < len(paths):
        sizes = sizes.take(pc.index_in(distinct, value_set=paths))
    return pa.Table.from_arrays([distinct, sizes], names=["path", "size"])


def key_of(text: str) -> FileKey:
    """A key from its ``path NUL dv_id`` text."""
    path, _, dv = text.partition(_SEP)
    return path, dv or None


def text_of(key: FileKey) -> str:
    """A key's ``path NUL dv_id`` text."""
    return f"{key[0]}{_SEP}{key[1] or ''}"
