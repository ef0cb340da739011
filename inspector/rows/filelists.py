"""The file lists of a RESTORE, compared on Spark as Delta's ``RestoreTableCommand`` does.

The target's files missing from the current version are re-added; the current files
missing from the target are removed. A file's identity is its path plus its deletion
vector, so a file whose deletion vector changed is swapped, not kept.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.actions import AddFile
from inspector.log import arrays, columnar
from inspector.log.snapshot import Snapshot


def restore_file_lists(
    current: Snapshot, target: Snapshot, *, spark: Any
) -> tuple[tuple[AddFile, ...], tuple[AddFile, ...]]:
    """Files a restore re-adds and removes, computed on Spark.

    As in Delta's ``RestoreTableCommand``, both versions' file lists become
    DataFrames of (path, deletion-vector id, size), and two left-anti joins on path
    and deletion-vector id (null-safe, so "no deletion vector" matches itself) give
    the files to add and to remove. Both results come back in one Spark job.

    Args:
        current: The latest snapshot.
        target: The snapshot to restore.
        spark: The SparkSession.

    Returns:
        (files to add, files to remove), each sorted by path.
    """
    from pyspark.sql import functions as F

    cur_files, tgt_files = current.files_table, target.files_table
    cur, tgt = _file_frame(spark, cur_files).alias("c"), _file_frame(spark, tgt_files).alias("t")
    same = (F.col("c.path") == F.col("t.path")) & F.col("c.dv").eqNullSafe(F.col("t.dv"))
    to_add = tgt.join(cur, same, "left_anti").select(F.lit("add").alias("side"), "idx", "size")
    to_remove = cur.join(tgt, same, "left_anti").select(
        F.lit("remove").alias("side"), "idx", "size"
    )
    found = to_add.unionByName(to_remove).collect()
    adds = _pick(tgt_files, [r.idx for r in found if r.side == "add"])
    removes = _pick(cur_files, [r.idx for r in found if r.side == "remove"])
    return adds, removes


def _file_frame(spark: Any, files: pa.Table) -> Any:
    """A DataFrame of (idx, path, dv, size) made from the snapshot's Arrow table in one call."""
    blank = arrays.repeated("", files.num_rows)
    frame = pa.table(
        {
            "idx": arrays.span(0, files.num_rows).cast(pa.int32()),
            "path": files.column("key_path"),
            "dv": pc.if_else(
                pc.equal(files.column("dv_id"), blank),
                pa.nulls(files.num_rows, pa.string()),
                files.column("dv_id"),
            ),
            "size": files.column("size"),
        }
    )
    return spark.createDataFrame(frame)


def _pick(files: pa.Table, rows: list[int]) -> tuple[AddFile, ...]:
    """Typed records of the chosen rows only, sorted by path (then deletion-vector id)."""
    chosen = files.take(arrays.numbers(rows)).sort_by(
        [("path", "ascending"), ("dv_id", "ascending")]
    )
    return tuple(columnar.records("add", chosen))  # type: ignore[arg-type]
