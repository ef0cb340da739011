"""The file lists of a RESTORE, compared in Arrow as Delta's ``RestoreTableCommand`` does.

The target's files missing from the current version are re-added; the current files
missing from the target are removed. A file's identity is its path plus its deletion
vector, so a file whose deletion vector changed is swapped, not kept. Both lists are
already Arrow tables (the snapshots' ``files_table``), so two hash anti-joins give the
answer without a JVM: a plan or a dry run never starts Spark.
"""

from __future__ import annotations

import pyarrow as pa

from inspector.delta.actions import AddFile
from inspector.log import arrays, columnar
from inspector.log.snapshot import Snapshot

_KEYS = ["key_path", "dv_id"]  # dv_id is "" for a file without a deletion vector


def restore_file_lists(
    current: Snapshot, target: Snapshot
) -> tuple[tuple[AddFile, ...], tuple[AddFile, ...]]:
    """Files a restore re-adds (in the target, not current) and removes (current, not in the
    target), each sorted by path.
    """
    cur_files, tgt_files = current.files_table, target.files_table
    adds = _pick(tgt_files, _anti_join(tgt_files, cur_files))
    removes = _pick(cur_files, _anti_join(cur_files, tgt_files))
    return adds, removes


def _anti_join(left: pa.Table, right: pa.Table) -> pa.Array:
    """Row numbers of ``left`` whose (path, deletion vector) is not in ``right``."""
    numbered = left.select(_KEYS).append_column("idx", arrays.span(0, left.num_rows))
    kept = numbered.join(right.select(_KEYS), keys=_KEYS, join_type="left anti")
    return kept.column("idx").combine_chunks()


def _pick(files: pa.Table, rows: pa.Array) -> tuple[AddFile, ...]:
    """Typed records of the chosen rows only, sorted by path (then deletion-vector id)."""
    chosen = files.take(rows).sort_by([("path", "ascending"), ("dv_id", "ascending")])
    return tuple(columnar.records("add", chosen))  # type: ignore[arg-type]
