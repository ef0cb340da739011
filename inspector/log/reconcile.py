"""Log replay's reconciliation: for each file identity, its newest action wins.

"Newest" is the replay's sequence number (log order; within a checkpoint, a remove comes
before an add, so the add wins). Applied in Arrow, once per replay state.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.log import arrays, columnar


def reconcile(adds: list[pa.Table], removes: list[pa.Table]) -> tuple[pa.Table, pa.Table]:
    """Keep, for each (path, deletion-vector id), only its newest action, in Arrow.

    Every table given has rows and a ``seq`` column (its actions' places in log order).
    """
    add = pa.concat_tables(adds) if adds else None
    remove = pa.concat_tables(removes) if removes else None
    identity = ["key_path", "dv_id", "seq"]
    parts = [t.select(identity) for t in (add, remove) if t is not None]
    if not parts:
        return columnar.empty("add"), columnar.empty("remove")
    events = pa.concat_tables(parts)
    newest = _newest(events)
    if remove is None and add is not None and len(newest) == add.num_rows:
        return add.drop_columns(["seq"]), columnar.empty("remove")  # every add a distinct file
    # A flag per seq, set for the newest: indexing by seq is one pass (a hash look-up of the
    # seq values in newest cost about 0.3 s on 300,000 files).
    wins = np.zeros(int(pc.max(events.column("seq")).as_py()) + 1, dtype=bool)
    wins[arrays.to_numpy(newest)] = True
    return _kept("add", add, wins), _kept("remove", remove, wins)


def _kept(kind: str, table: pa.Table | None, wins: np.ndarray) -> pa.Table:
    if table is None:
        return columnar.empty(kind)
    seq = arrays.to_numpy(table.column("seq").combine_chunks())
    return table.filter(arrays.mask(wins[seq])).drop_columns(["seq"])


def _newest(events: pa.Table) -> pa.Array:
    """The ``seq`` of each identity's newest event: sort, then keep the last of each run."""
    ordered = events.sort_by(
        [("key_path", "ascending"), ("dv_id", "ascending"), ("seq", "ascending")]
    )
    n = ordered.num_rows
    if n < 2:
        return ordered.column("seq").combine_chunks()
    path, dv = ordered.column("key_path"), ordered.column("dv_id")
    changes = pc.or_(
        pc.not_equal(path.slice(0, n - 1), path.slice(1)),
        pc.not_equal(dv.slice(0, n - 1), dv.slice(1)),
    )
    last = pa.concat_arrays([*changes.chunks, arrays.flags([True])])
    return ordered.column("seq").combine_chunks().filter(last)
