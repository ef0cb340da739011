"""The change data feed of a range of versions, read on Spark as Delta defines it.

For each commit in the range: if it has ``cdc`` actions, its changes are exactly the
rows of those files (under ``_change_data``), whose ``_change_type`` column says
what each row is; otherwise the rows of its ``add`` actions are inserts and those of
its ``remove`` actions deletes (actions with ``dataChange`` false are ignored). A file
removed and re-added with a new deletion vector contributes only the rows whose
deletion state changed: rows newly deleted are deletes, rows undeleted are inserts.
Files are read with the snapshot machinery of :mod:`inspector.rows.reader`
(partition values, column mapping, deletion vectors). Counting and paging the feed is
:mod:`inspector.rows.changefeed`.
"""

from __future__ import annotations

import dataclasses
import json
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CDF_PROPERTY = "delta.enableChangeDataFeed"
CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP = (
    "_change_type",
    "_commit_version",
    "_commit_timestamp",
)


class ChangeType(StrEnum):
    """The values of ``_change_type``."""

    INSERT = "insert"
    DELETE = "delete"
    UPDATE_PREIMAGE = "update_preimage"
    UPDATE_POSTIMAGE = "update_postimage"


class ChangeDataFeedDisabled(UnsupportedFeature):
    """Some versions of the range were written without the change data feed."""


def check_range(log: DeltaLog, from_version: int, to_version: int) -> None:
    """Refuse a range outside the log, reversed, or with versions written without the feed.

    Raises:
        InvalidInput: ``from`` after ``to``.
        VersionNotFound: A bound outside the log.
        ChangeDataFeedDisabled: Naming the versions without the feed.
    """
    if from_version > to_version:
        raise InvalidInput(
            f"The range starts at version {from_version}, after its end {to_version}.",
            "Give --from at or before --to.",
        )
    log.snapshot(from_version)
    log.snapshot(to_version)  # both raise VersionNotFound with the table's range
    off = [
        v
        for v in range(from_version, to_version + 1)
        if log.snapshot(v).metadata.configuration.get(CDF_PROPERTY, "").lower() != "true"
    ]
    if off:
        raise ChangeDataFeedDisabled(
            f"The change data feed ({CDF_PROPERTY}) was not enabled at version(s) "
            f"{_ranges(off)}, so their changes were not recorded.",
            "Pick versions written while the property was true, or compare the versions "
            "with `diff --rows` instead.",
        )


def _ranges(versions: list[int]) -> str:
    spans: list[list[int]] = []
    for v in versions:
        if spans and spans[-1][1] == v - 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def read_changes(
    log: DeltaLog, from_version: int, to_version: int, *, spark: SparkSession, settings: Settings
) -> DataFrame:
    """All changes of the range as one DataFrame: the latest schema plus the three CDF columns.

    Delta's ``readChangeFeed`` reads them when Delta's engine reads this table; else the
    commits are read as the module docstring says.

    The range must have passed :func:`check_range` (its callers check it before Spark
    starts). ``settings`` gives the timestamp tolerance of the commits' times (our reader).

    Raises:
        MissingDataFile: A change or data file was vacuumed (named).
        UnsupportedFeature: The table uses a feature we cannot read correctly.
    """
    from inspector.rows.readpath import ReadPath, choose_read_path

    last = log.snapshot(to_version)
    if choose_read_path(spark, last) is ReadPath.DELTA:
        from inspector.rows.delta_engine import read_change_feed

        return read_change_feed(spark, last, from_version, to_version)
    from inspector.table.history import build_history

    stamps = {e.version: e.timestamp for e in build_history(log, settings)}
    frames = [
        _commit_changes(log, v, stamps[v], spark) for v in range(from_version, to_version + 1)
    ]
    frames = [f for f in frames if f is not None]
    if not frames:
        return _empty(log.snapshot(to_version), spark)
    result: DataFrame = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame, allowMissingColumns=True)
    return result


def _empty(snapshot: Snapshot, spark: SparkSession) -> DataFrame:
    from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampType

    from inspector.rows.readcheck import spark_schema

    extra = [
        StructField(CHANGE_TYPE, StringType()),
        StructField(COMMIT_VERSION, LongType()),
        StructField(COMMIT_TIMESTAMP, TimestampType()),
    ]
    return spark.createDataFrame([], StructType(spark_schema(snapshot).fields + extra))


def _commit_changes(log: DeltaLog, version: int, when: Any, spark: SparkSession) -> Any:
    """One commit's changes with the version and timestamp columns, or None when it has none."""
    from pyspark.sql import functions as F

    from inspector.rows.reader import read_files

    commit, snapshot = log.commit(version), log.snapshot(version)
    cdc = commit.cdc_files
    if cdc:
        adds = [
            AddFile(
                path=c.path,
                partition_values=c.partition_values,
                size=c.size,
                modification_time=0,
                data_change=False,
            )
            for c in cdc
        ]
        df = read_files(_with_change_type(snapshot), adds, spark=spark)
    else:
        changed = _file_changes(snapshot, log, commit.adds, commit.removes, spark)
        if changed is None:
            return None
        df = changed
    return df.withColumn(COMMIT_VERSION, F.lit(version).cast("long")).withColumn(
        COMMIT_TIMESTAMP, F.lit(when).cast("timestamp")
    )


def _with_change_type(snapshot: Snapshot) -> Snapshot:
    """The snapshot with a ``_change_type`` string column, as change files carry it."""
    schema = json.loads(snapshot.metadata.schema_string)
    schema["fields"].append(
        {"name": CHANGE_TYPE, "type": "string", "nullable": True, "metadata": {}}
    )
    metadata = dataclasses.replace(snapshot.metadata, schema_string=json.dumps(schema))
    return dataclasses.replace(snapshot, metadata=metadata)


def _file_changes(
    snapshot: Snapshot,
    log: DeltaLog,
    adds: list[AddFile],
    removes: list[RemoveFile],
    spark: SparkSession,
) -> DataFrame | None:
    """Inserts from adds and deletes from removes (data changes only), DV swaps as differences."""
    from pyspark.sql import functions as F

    from inspector.rows.reader import read_files

    adds = [a for a in adds if a.data_change]
    removes = [r for r in removes if r.data_change]
    if not adds and not removes:
        return None
    removed_as_adds = {r.path: _as_add(r) for r in removes}
    swapped = {a.path for a in adds} & set(removed_as_adds)
    before = snapshot if not removes else _previous(log, snapshot)
    parts = []
    plain_adds = [a for a in adds if a.path not in swapped]
    plain_removes = [a for p, a in removed_as_adds.items() if p not in swapped]
    if plain_adds:
        parts.append(
            read_files(snapshot, plain_adds, spark=spark).withColumn(
                CHANGE_TYPE, F.lit(ChangeType.INSERT.value)
            )
        )
    if plain_removes:
        parts.append(
            read_files(before, plain_removes, spark=spark).withColumn(
                CHANGE_TYPE, F.lit(ChangeType.DELETE.value)
            )
        )
    for path in sorted(swapped):
        old = read_files(before, [removed_as_adds[path]], spark=spark)
        new = read_files(snapshot, [a for a in adds if a.path == path], spark=spark)
        parts.append(old.exceptAll(new).withColumn(CHANGE_TYPE, F.lit(ChangeType.DELETE.value)))
        parts.append(new.exceptAll(old).withColumn(CHANGE_TYPE, F.lit(ChangeType.INSERT.value)))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part, allowMissingColumns=True)
    return result


def _previous(log: DeltaLog, snapshot: Snapshot) -> Snapshot:
    """The snapshot before this commit (removed files were written under its schema)."""
    try:
        return log.snapshot(snapshot.version - 1)
    except Exception:
        return snapshot


def _as_add(remove: RemoveFile) -> AddFile:
    return AddFile(
        path=remove.path,
        partition_values=remove.partition_values or {},
        size=remove.size or 0,
        modification_time=0,
        data_change=True,
        stats=remove.stats,
        deletion_vector=remove.deletion_vector,
    )
