"""The change data feed of a range of versions, read on Spark as Delta defines it.

For each commit in the range: if it has ``cdc`` actions, its changes are exactly the
rows of those files (under ``_change_data``), whose ``_change_type`` column says
what each row is; otherwise the rows of its ``add`` actions are inserts and those of
its ``remove`` actions deletes (actions with ``dataChange`` false are ignored). A file
removed and re-added with a new deletion vector contributes only the rows whose
deletion state changed: rows newly deleted are deletes, rows undeleted are inserts.
Files are read with the snapshot machinery of :mod:`inspector.rows.reader`
(partition values, column mapping, deletion vectors).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True, kw_only=True)
class ChangeFeed:
    """The changes of versions ``from_version``..``to_version``: exact counts, one page of rows."""

    from_version: int
    to_version: int
    columns: tuple[str, ...]
    counts: Mapping[str, int]
    per_version: Mapping[int, Mapping[str, int]]
    num_rows: int
    rows: tuple[Mapping[str, Any], ...]
    offset: int
    limit: int
    where: str | None

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract (``changes --json``)."""
        from inspector.delta.jsonvalue import json_value

        return {
            "from": self.from_version,
            "to": self.to_version,
            "counts": dict(self.counts),
            "perVersion": {str(v): dict(c) for v, c in self.per_version.items()},
            "numRows": self.num_rows,
            "offset": self.offset,
            "where": self.where,
            "rows": [{k: json_value(v) for k, v in row.items()} for row in self.rows],
        }


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
    log: DeltaLog, from_version: int, to_version: int, *, spark: SparkSession
) -> DataFrame:
    """All changes of the range as one DataFrame: the latest schema plus the three CDF columns.

    Delta's ``readChangeFeed`` reads them when Delta's engine reads this table; else the
    commits are read as the module docstring says.

    The range must have passed :func:`check_range` (its callers check it before Spark
    starts).

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

    stamps = {e.version: e.timestamp for e in build_history(log, Settings())}
    frames = [
        _commit_changes(log, v, stamps[v], spark) for v in range(from_version, to_version + 1)
    ]
    frames = [f for f in frames if f is not None]
    if not frames:
        return _empty(log.snapshot(to_version), spark)
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame, allowMissingColumns=True)
    return result


def _empty(snapshot: Snapshot, spark: SparkSession) -> DataFrame:
    from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampType

    from inspector.rows.reader import spark_schema

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


def build_changes(
    log: DeltaLog,
    from_version: int,
    to_version: int,
    *,
    settings: Settings,
    where: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    spark: SparkSession | None = None,
) -> ChangeFeed:
    """The change feed of a range: exact counts (per type and version) and one page of rows.

    Rows are in a stable order (:func:`_ordered`), so ``offset`` pages through them
    without gaps or repeats.

    Args:
        log: The table's log.
        from_version: The first version (inclusive).
        to_version: The last version (inclusive).
        settings: ``preview_rows`` (the default limit) and the Spark settings.
        where: A SQL WHERE expression over the columns (CDF columns included), or None.
        offset: The first row of the page (0-based).
        limit: Rows per page (default ``settings.preview_rows``).
        spark: A SparkSession; None starts the process's session.

    Raises:
        ChangeDataFeedDisabled, VersionNotFound, InvalidInput, MissingDataFile,
        UnsupportedFeature, SparkUnavailable.
    """
    check_range(log, from_version, to_version)  # before Spark starts
    from inspector.rows.preview import _filtered, _spark_action

    limit = settings.preview_rows if limit is None else max(int(limit), 0)
    df = _filtered(
        read_changes(log, from_version, to_version, spark=_session(spark, settings)), where
    )
    grouped = _spark_action(lambda: df.groupBy(COMMIT_VERSION, CHANGE_TYPE).count().collect())
    per_version: dict[int, dict[str, int]] = {}
    counts = {t.value: 0 for t in ChangeType}
    for row in grouped:
        kind = str(row[CHANGE_TYPE])
        per_version.setdefault(int(row[COMMIT_VERSION]), {})[kind] = int(row["count"])
        counts[kind] = counts.get(kind, 0) + int(row["count"])
    return ChangeFeed(
        from_version=from_version,
        to_version=to_version,
        columns=tuple(df.columns),
        counts=counts,
        per_version=dict(sorted(per_version.items())),
        num_rows=sum(counts.values()),
        rows=_page(df, offset, limit),
        offset=max(offset, 0),
        limit=limit,
        where=(where or "").strip() or None,
    )


def change_page(
    log: DeltaLog,
    feed: ChangeFeed,
    offset: int,
    *,
    settings: Settings,
    spark: SparkSession | None = None,
) -> ChangeFeed:
    """Another page of a feed: its rows from ``offset`` (same range, filter and page size).

    The counts are the feed's own (they do not depend on the page); only the page's
    rows are read, in the same stable order as :func:`build_changes`.

    Raises:
        The errors of :func:`build_changes`.
    """
    from inspector.rows.preview import _filtered

    spark = _session(spark, settings)
    df = _filtered(read_changes(log, feed.from_version, feed.to_version, spark=spark), feed.where)
    offset = max(int(offset), 0)
    return dataclasses.replace(feed, rows=_page(df, offset, feed.limit), offset=offset)


def _session(spark: SparkSession | None, settings: Settings) -> SparkSession:
    if spark is not None:
        return spark
    from inspector.rows.session import get_spark

    return get_spark(settings)


#: The order of change types within a version: what went away before what came.
_TYPE_ORDER = (
    ChangeType.DELETE,
    ChangeType.UPDATE_PREIMAGE,
    ChangeType.UPDATE_POSTIMAGE,
    ChangeType.INSERT,
)


def _ordered(df: DataFrame) -> DataFrame:
    """A total order: version, change type, then every data column (maps and variants as JSON).

    Rows equal in every key are equal rows, so any tie-break between them shows the
    same page: pages neither overlap nor skip rows, whatever Spark's partitioning.
    """
    from pyspark.sql import functions as F

    rank = F.lit(len(_TYPE_ORDER))
    for i, kind in reversed(list(enumerate(_TYPE_ORDER))):
        rank = F.when(F.col(CHANGE_TYPE) == kind.value, F.lit(i)).otherwise(rank)
    keys = [F.col(COMMIT_VERSION), rank, F.col(CHANGE_TYPE)]
    for field in df.schema.fields:
        if field.name in (CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP):
            continue
        col = F.col(f"`{field.name}`")
        type_ = field.dataType.simpleString()
        keys.append(F.to_json(F.struct(col)) if "map<" in type_ or "variant" in type_ else col)
    return df.orderBy(*[k.asc_nulls_first() for k in keys])


def _page(df: DataFrame, offset: int, limit: int) -> tuple[Mapping[str, Any], ...]:
    from inspector.rows.preview import _displayable, _spark_action

    ordered = _displayable(_ordered(df))
    return tuple(
        _spark_action(lambda: ordered.offset(max(offset, 0)).limit(limit).toArrow().to_pylist())
    )
