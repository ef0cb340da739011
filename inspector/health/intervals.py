"""Each file key's live intervals, from one table of the replayed file actions.

Sorting the actions by replay (*segment*), key, version and line gives each key's state
after each version it is named in (the newest action of a version wins; a re-add of a live
key is no change), and from those states its live intervals ``[start, end)``: no
per-version set of live files is kept. A key still live at a segment's end is not removed
(the next segment starts over from its own base).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.log import arrays
from inspector.log.snapshot import FileKey

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
    """Each key's live intervals from its actions (:mod:`.actionrows`' rows), given each
    row's segment (an index into ``ends``, each segment's last version)."""
    sep = arrays.repeated(_SEP, rows.num_rows)  # a Python or Arrow scalar would import pandas
    keys = pc.binary_join_element_wise(rows.column("key_path"), rows.column("dv_id"), sep)
    encoded = pc.dictionary_encode(whole_array(keys))
    kid = arrays.to_numpy(encoded.indices.cast(pa.int64()))
    version = arrays.to_numpy(whole_array(rows.column("version")))
    line = arrays.to_numpy(whole_array(rows.column("line")))
    added = arrays.to_numpy(whole_array(rows.column("add")).cast(pa.int64())) == 1
    if not len(kid):
        none = np.zeros(0, dtype=np.int64)
        return Intervals(
            keys=encoded.dictionary,
            **dict.fromkeys(("key", "start", "end", "line", "size", "removed_at"), none),
            removed_line=none,
            closed=none == 0,
        )
    size = arrays.to_numpy(whole_array(rows.column("size")))  # a remove's is 0
    when = arrays.to_numpy(whole_array(rows.column("when")).fill_null(0))
    order = np.lexsort((line, version, kid, segment))
    size, when, seg, kid, version, line, added = (
        a[order] for a in (size, when, segment, kid, version, line, added)
    )
    # one group per (segment, key, version): its first line orders the adds, its last action wins
    first = _starts(seg, kid, version)
    last = np.r_[first[1:], len(kid)] - 1
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
