"""Log replay's reconciliation: for each file identity, its newest action wins.

The identity is the canonical path and the deletion vector's unique id; "newest" is the
replay's sequence number (log order; within a checkpoint, a remove comes before an add, so
the add wins). Applied in Arrow, once, when a replay state is resolved
(:meth:`inspector.log.snapshot.ReplayState.resolve`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.log import arrays, columnar


def reconcile(adds: list[pa.Table], removes: list[pa.Table]) -> tuple[pa.Table, pa.Table]:
    """Keep, for each (path, deletion-vector id), only its newest action, in Arrow."""
    add = columnar.concat("add", adds) if adds else None
    remove = columnar.concat("remove", removes) if removes else None
    if add is None or "seq" not in add.column_names:
        add = None
    if remove is None or "seq" not in remove.column_names:
        remove = None
    if add is None and remove is None:
        return columnar.empty("add"), columnar.empty("remove")
    identity = ["key_path", "dv_id", "seq"]
    events = pa.concat_tables(
        [t.select(identity) for t in (add, remove) if t is not None and t.num_rows]
    )
    newest = _newest(events)
    if remove is None and add is not None and len(newest) == add.num_rows:
        return _strip(add, "add"), columnar.empty("remove")  # every add is a distinct file
    wins = _winners(newest, int(pc.max(events.column("seq")).as_py()) + 1)
    return _strip(_kept(add, wins), "add"), _strip(_kept(remove, wins), "remove")


def _winners(newest: pa.Array, count: int) -> np.ndarray:
    """A flag per ``seq`` (each action's number in log order, below ``count``), set for the newest.

    Indexing by ``seq`` is one pass; a hash look-up of the ``seq`` values in ``newest``
    cost about 0.3 s on 300,000 files.
    """
    wins = np.zeros(count, dtype=bool)
    wins[arrays.to_numpy(newest)] = True
    return wins


def _kept(table: pa.Table | None, wins: np.ndarray) -> pa.Table | None:
    if table is None:
        return None
    seq = arrays.to_numpy(table.column("seq").combine_chunks())
    return table.filter(arrays.mask(wins[seq]))


def _newest(events: pa.Table) -> pa.Array:
    """The ``seq`` of each identity's newest event: sort, then keep the last of each run."""

    order = pc.sort_indices(
        events,
        sort_keys=[("key_path", "ascending"), ("dv_id", "ascending"), ("seq", "ascending")],
    )
    ordered = events.take(order)
    if ordered.num_rows < 2:
        return ordered.column("seq").combine_chunks()
    path, dv = ordered.column("key_path"), ordered.column("dv_id")
    n = ordered.num_rows
    changes = pc.or_(
        pc.not_equal(path.slice(0, n - 1), path.slice(1)),
        pc.not_equal(dv.slice(0, n - 1), dv.slice(1)),
    )
    last = pa.concat_arrays([*changes.chunks, arrays.flags([True])])
    return ordered.column("seq").combine_chunks().filter(last)


def _strip(table: pa.Table | None, kind: str) -> pa.Table:
    if table is None:
        return columnar.empty(kind)
    if "seq" in table.column_names:
        table = table.drop_columns(["seq"])
    return table
