"""The file lists of a RESTORE, compared on Spark as Delta's ``RestoreTableCommand`` does.

The target's files missing from the current version are re-added; the current files
missing from the target are removed. A file's identity is its path plus its deletion
vector, so a file whose deletion vector changed is swapped, not kept.
"""

from __future__ import annotations

from typing import Any

from inspector.delta.actions import AddFile
from inspector.log.snapshot import FileKey, Snapshot


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

    cur_files, tgt_files = list(current.files.items()), list(target.files.items())
    cur, tgt = _file_frame(spark, cur_files).alias("c"), _file_frame(spark, tgt_files).alias("t")
    same = (F.col("c.path") == F.col("t.path")) & F.col("c.dv").eqNullSafe(F.col("t.dv"))
    to_add = tgt.join(cur, same, "left_anti").select(F.lit("add").alias("side"), "idx", "size")
    to_remove = cur.join(tgt, same, "left_anti").select(
        F.lit("remove").alias("side"), "idx", "size"
    )
    found = to_add.unionByName(to_remove).collect()
    adds = _pick(tgt_files, [r for r in found if r.side == "add"])
    removes = _pick(cur_files, [r for r in found if r.side == "remove"])
    return adds, removes


def _file_frame(spark: Any, files: list[tuple[FileKey, AddFile]]) -> Any:
    from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("idx", IntegerType(), False),
            StructField("path", StringType(), False),
            StructField("dv", StringType(), True),
            StructField("size", LongType(), False),
        ]
    )
    rows = [(i, key[0], key[1], add.size) for i, (key, add) in enumerate(files)]
    return spark.createDataFrame(rows, schema=schema)


def _pick(files: list[tuple[FileKey, AddFile]], found: list[Any]) -> tuple[AddFile, ...]:
    chosen = [files[row.idx][1] for row in found]
    return tuple(sorted(chosen, key=lambda a: (a.path, a.key[1] or "")))
