"""The file actions a replay uses as one Arrow table, and each file key's live intervals.

Rows with a deletion vector or an odd (not plain relative) path are also kept as records,
for the shared rule of :func:`~.examine.register_add`. Sorting the actions by replay
(*segment*), key, version and line gives each key's state after each version it is named
in (the newest action of a version wins; a re-add of a live key is no change), and from
those states its live intervals ``[start, end)``: no per-version set of live files is kept.
A key still live at a segment's end is not removed (the next starts over from its base).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.actions import AddFile
from inspector.log import arrays, columnar
from inspector.log.commit import Commit
from inspector.log.snapshot import FileKey

# Paths that are not plain relative ones: judged one by one (``ref_path`` spells them).
ODD_PATTERN = r"(^|/)\.\.?(/|$)|//|/$|^/|://"
_SCHEMA = pa.schema(
    [
        *(("version", pa.int64()), ("line", pa.int64()), ("add", pa.bool_())),
        *(("base", pa.bool_()), ("key_path", pa.string()), ("dv_id", pa.string())),
        *(("size", pa.int64()), ("plain", pa.bool_()), ("stats", pa.string())),
        ("when", pa.int64()),  # a remove's deletionTimestamp
    ]
)


class ActionRows:
    """The file actions of the bases and the commits, gathered as columns."""

    def __init__(self, *, deep: bool) -> None:
        self.deep = deep
        self.tables: list[pa.Table] = []
        self.specials: list[tuple[int, bool, AddFile]] = []  # (version, base?, add)

    def add_table(
        self, version: int | np.ndarray, files: pa.Table, lines: pa.Array, *, add: bool, base: bool
    ) -> None:
        """Rows of a table of actions (``columnar``'s schema) with their versions (one for
        all, or one per row) and line numbers (ordering a version's actions)."""
        n = files.num_rows
        versions = np.ascontiguousarray(np.broadcast_to(np.asarray(version, dtype=np.int64), (n,)))
        odd = pc.match_substring_regex(files.column("key_path"), ODD_PATTERN) if add else None
        if odd is not None:
            self._special(files, odd, versions, base)
        plain = pc.invert(odd) if odd is not None else arrays.mask(np.zeros(n, dtype=bool))
        stats = files.column("stats") if add and self.deep else pa.nulls(n, pa.string())
        columns = [
            *(arrays.from_numpy(versions), lines.cast(pa.int64()), _flags(n, add)),
            *(_flags(n, base), files.column("key_path"), files.column("dv_id")),
            *(
                files.column("size") if add else arrays.from_numpy(np.zeros(n, dtype=np.int64)),
                plain,
                stats,
            ),
            pa.nulls(n, pa.int64()) if add else files.column("deletionTimestamp"),
        ]
        self.tables.append(pa.Table.from_arrays(columns, schema=_SCHEMA))

    def add_commit(self, commit: Commit) -> None:
        """A commit's add and remove actions (:meth:`~inspector.log.commit.Commit.file_tables`)."""
        for kind, files, lines in commit.file_tables().by_kind():
            if files.num_rows:
                self.add_table(commit.version, files, lines, add=kind == "add", base=False)

    def table(self) -> pa.Table:
        """Every row gathered."""
        if not self.tables:  # Schema.empty_table and pa.array would import pandas
            return pa.Table.from_arrays([pa.nulls(0, f.type) for f in _SCHEMA], schema=_SCHEMA)
        return pa.concat_tables(self.tables).combine_chunks()

    def _special(
        self, files: pa.Table, odd: pa.ChunkedArray | pa.Array, versions: np.ndarray, base: bool
    ) -> None:
        """Rows with a deletion vector or an odd path, as records for the shared rule."""
        special = pc.or_(odd, files.column("deletionVector").is_valid())
        if pc.any(special).as_py():
            rows = files.filter(special)
            at = rows.schema.get_field_index("tags")  # not needed; read in bulk, keys are merged
            rows = rows.set_column(at, "tags", pa.nulls(rows.num_rows, rows.schema.field(at).type))
            kept = versions[arrays.to_numpy(whole_array(special).cast(pa.int64())) == 1]
            for v, add in zip(kept.tolist(), columnar.records("add", rows), strict=True):
                self.specials.append((v, base, add))  # type: ignore[arg-type]


def _flags(n: int, value: bool) -> pa.Array:
    return arrays.mask(np.full(n, value, dtype=bool))


def plain_files(rows: pa.Table) -> pa.Table:
    """The data files with plain relative paths that adds name, with the first add's size
    and stats."""
    adds = rows.filter(rows.column("plain"))  # an add of a plain path
    return _first_per_path(adds.column("key_path"), adds.column("size"), adds.column("stats"))


def snapshot_files(version: int, files: pa.Table, *, deep: bool) -> tuple[pa.Table, list[AddFile]]:
    """A snapshot's live adds as :func:`plain_files` gives them, and its adds with a deletion
    vector or an odd path as records, without gathering every column of every row first
    (the latest version's check: one snapshot, hundreds of thousands of adds)."""
    rows = ActionRows(deep=deep)
    odd = pc.match_substring_regex(files.column("key_path"), ODD_PATTERN)
    rows._special(files, odd, np.full(files.num_rows, version, dtype=np.int64), True)
    stats = files.column("stats") if deep else pa.nulls(files.num_rows, pa.string())
    columns = [files.column("key_path"), files.column("size"), stats]
    if pc.any(odd).as_py():
        plain = pc.invert(odd)
        columns = [column.filter(plain) for column in columns]
    specials = [add for _, _, add in rows.specials]
    if not specials:  # no deletion vector: each path is one key, named once
        return pa.Table.from_arrays(columns, names=["path", "size", "stats"]), specials
    return _first_per_path(*columns), specials


def _first_per_path(*columns: pa.ChunkedArray | pa.Array) -> pa.Table:
    """One row per distinct path (``columns``: path, size, stats): the first one's size and
    stats."""
    paths = whole_array(columns[0])
    distinct = pc.unique(paths)
    taken = [whole_array(column) for column in columns[1:]]
    if len(distinct) < len(paths):
        first = pc.index_in(distinct, value_set=paths)
        taken = [column.take(first) for column in taken]
    return pa.Table.from_arrays([distinct, *taken], names=["path", "size", "stats"])


_SEP = "\x00"  # joins a key's path and deletion-vector id into one text (no path holds NUL)


@dataclass(kw_only=True)
class Intervals:
    """Every key's live intervals: ``key[i]`` is live from ``start[i]`` to ``end[i]``
    (exclusive); ``closed[i]`` when a commit of its segment removes it at ``end[i]`` (else
    it lives to its segment's end); ``line[i]`` orders the keys a commit adds (the line of
    the key's first action in the starting commit)."""

    keys: pa.Array  # distinct keys as ``path NUL dv_id`` texts, indexed by ``key``
    key: np.ndarray
    start: np.ndarray
    end: np.ndarray
    closed: np.ndarray
    line: np.ndarray
    size: np.ndarray  # the bytes of the add that opens the interval
    removed_at: np.ndarray  # a closed interval's remove's deletionTimestamp (0: none)
    removed_line: np.ndarray  # a closed interval's remove's line in its commit


def intervals(rows: pa.Table, segment: np.ndarray, ends: np.ndarray) -> Intervals:
    """Each key's live intervals from its actions (:class:`ActionRows`' rows), given each
    row's segment (an index into ``ends``, each segment's last version)."""
    sep = arrays.repeated(_SEP, rows.num_rows)  # a Python or Arrow scalar would import pandas
    keys = pc.binary_join_element_wise(rows.column("key_path"), rows.column("dv_id"), sep)
    encoded = pc.dictionary_encode(whole_array(keys))
    kid = arrays.to_numpy(encoded.indices.cast(pa.int64()))
    version = arrays.to_numpy(whole_array(rows.column("version")))
    line = arrays.to_numpy(whole_array(rows.column("line")))
    added = arrays.to_numpy(whole_array(rows.column("add")).cast(pa.int64())) == 1
    size = arrays.to_numpy(whole_array(rows.column("size")))  # a remove's is 0
    when = arrays.to_numpy(whole_array(rows.column("when")).fill_null(0))
    order = np.lexsort((line, version, kid, segment))
    size, when, seg, kid, version, line, added = (
        a[order] for a in (size, when, segment, kid, version, line, added)
    )
    # one group per (segment, key, version): its first line orders the adds, its last action wins
    first = _starts(seg, kid, version)
    last = np.r_[first[1:], len(kid)][: len(first)] - 1
    gseg, gkey, gversion, gline = (a[first] for a in (seg, kid, version, line))
    live = added[last]
    was = np.zeros(len(gkey), dtype=bool)
    was[1:] = live[:-1]
    was[_starts(gseg, gkey)] = False
    event = np.flatnonzero(live != was)  # a key comes to life or is removed
    opens = np.flatnonzero(live[event])  # positions in ``event``: events alternate per key
    after = np.minimum(opens + 1, max(len(event) - 1, 0))
    at, then = event[opens], event[after]
    closed = (opens + 1 < len(event)) & (gkey[then] == gkey[at]) & (gseg[then] == gseg[at])
    return Intervals(
        keys=encoded.dictionary,
        key=gkey[at],
        start=gversion[at],
        end=np.where(closed, gversion[then], ends[gseg[at]] + 1),
        closed=closed,
        line=gline[at],
        size=size[last[at]],
        removed_at=np.where(closed, when[last[then]], 0),
        removed_line=gline[then],
    )


def _starts(*columns: np.ndarray) -> np.ndarray:
    """Where each run of equal values (over all the sorted columns together) starts."""
    n = len(columns[0])
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for column in columns:
        change |= column[1:] != column[:-1]
    return np.flatnonzero(np.r_[n > 0, change]) if n else np.zeros(0, dtype=np.int64)


def whole_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array (a chunked ``value_set``, or combining no chunks, goes through ``pa.array``,
    which imports pandas)."""
    if not isinstance(values, pa.ChunkedArray):
        return values
    return values.combine_chunks() if values.num_chunks else pa.nulls(0, values.type)


def key_of(text: str) -> FileKey:
    """A key from its ``path NUL dv_id`` text."""
    path, _, dv = text.partition(_SEP)
    return path, dv or None


def text_of(key: FileKey) -> str:
    """A key's ``path NUL dv_id`` text."""
    return f"{key[0]}{_SEP}{key[1] or ''}"
