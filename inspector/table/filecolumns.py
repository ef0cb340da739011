"""What the history needs of file actions kept as Arrow columns: records, deletion-vector rows.

The figures equal the typed records' (``AddFile.num_records``, ``num_live_records``, the
deletion vector's cardinality) without building one record per file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from inspector.delta.fields import as_int

if TYPE_CHECKING:  # pyarrow is imported where columns are read: small logs never need it
    import pyarrow as pa

_LEADING = r'^\{\s*"numRecords"\s*:\s*(?P<n>\d+)\s*[,}]'


def num_records(table: pa.Table) -> list[int | None]:
    """``numRecords`` of each row's stats (None where absent or unreadable), as
    :attr:`~inspector.delta.actions.AddFile.num_records` reads it."""
    import pyarrow.compute as pc

    stats = table.column("stats").combine_chunks()
    found = pc.struct_field(pc.extract_regex(stats, _LEADING), [0])
    values: list[Any] = found.cast("int64").to_pylist()
    odd = pc.and_(pc.is_valid(stats), pc.is_null(found))
    if pc.any(odd).as_py():
        for i in pc.indices_nonzero(odd).to_pylist():
            values[i] = _parsed(stats[i].as_py())
    return values


def _parsed(text: str) -> int | None:
    if not text:
        return None
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError):
        return None
    return as_int(parsed.get("numRecords")) if isinstance(parsed, dict) else None


def dv_rows(table: pa.Table) -> list[int]:
    """The rows each row's deletion vector marks deleted (0 without one)."""
    import pyarrow.compute as pc

    dv = table.column("deletionVector").combine_chunks()
    if dv.null_count == len(dv):
        return [0] * len(dv)
    cardinality = pc.if_else(dv.is_valid(), pc.struct_field(dv, "cardinality"), 0)
    return [v or 0 for v in cardinality.to_pylist()]


def live_records(table: pa.Table) -> list[int | None]:
    """Records minus those the deletion vector marks deleted (None without stats)."""
    return [
        None if n is None else n - d
        for n, d in zip(num_records(table), dv_rows(table), strict=True)
    ]
