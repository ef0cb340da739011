"""A page of a change data feed: exact counts per type and version, rows in a stable order.

A range with versions written without the feed is refused before Spark starts. Delta reads
the feed; its rows are ordered totally, so ``offset`` pages without gaps or repeats.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from inspector.delta import properties
from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.delta.jsonvalue import camel_json, json_value
from inspector.delta.text import version_ranges
from inspector.log.deltalog import DeltaLog
from inspector.rows.netrows import col
from inspector.rows.predicate import filtered
from inspector.rows.preview import shown_rows, spark_action
from inspector.rows.session import get_spark
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CHANGE_TYPE = "_change_type"
COMMIT_VERSION = "_commit_version"
COMMIT_TIMESTAMP = "_commit_timestamp"


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
        fields = ("counts", "per_version", "num_rows", "offset", "where", "rows")
        return {
            "from": self.from_version,
            "to": self.to_version,
            **json_value(camel_json(self, *fields)),
        }


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
    """The change feed of versions ``from``..``to`` (inclusive): exact counts (per type and
    version) and the page of rows from ``offset`` (``limit`` rows, default ``preview_rows``).

    ``where`` is a SQL WHERE expression over the columns (CDF columns included).

    Raises:
        ChangeDataFeedDisabled, VersionNotFound, InvalidInput, MissingDataFile,
        UnsupportedFeature, SparkUnavailable.
    """
    check_range(log, from_version, to_version)  # before Spark starts
    limit = settings.preview_rows if limit is None else max(int(limit), 0)
    df = _changes(log, from_version, to_version, where, settings, spark)
    grouped = spark_action(lambda: df.groupBy(COMMIT_VERSION, CHANGE_TYPE).count().collect())
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
        rows=shown_rows(_ordered(df), limit, offset),
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
    """Another page of a feed: its rows from ``offset`` (same range, filter, size, counts)."""
    df = _changes(log, feed.from_version, feed.to_version, feed.where, settings, spark)
    offset = max(int(offset), 0)
    return dataclasses.replace(
        feed, rows=shown_rows(_ordered(df), feed.limit, offset), offset=offset
    )


def check_range(log: DeltaLog, from_version: int, to_version: int) -> None:
    """Refuse a range reversed (InvalidInput), outside the log (VersionNotFound), or with
    versions written without the feed (ChangeDataFeedDisabled)."""
    if from_version > to_version:
        raise InvalidInput(
            f"The range starts at version {from_version}, after its end {to_version}.",
            "Give --from at or before --to.",
        )
    log.snapshot(from_version)
    log.snapshot(to_version)  # both raise VersionNotFound with the table's range
    key = properties.ENABLE_CHANGE_DATA_FEED
    off = [
        v
        for v in range(from_version, to_version + 1)
        if not properties.enabled(log.snapshot(v).metadata.configuration, key)
    ]
    if off:
        raise ChangeDataFeedDisabled(
            f"The change data feed ({key}) was not enabled at version(s) "
            f"{version_ranges(off)}, so their changes were not recorded.",
            "Pick versions written while the property was true, or compare the versions "
            "with `diff --rows` instead.",
        )


def _changes(
    log: DeltaLog,
    from_version: int,
    to_version: int,
    where: str | None,
    settings: Settings,
    spark: SparkSession | None,
) -> DataFrame:
    from inspector.rows.delta_engine import read_change_feed

    spark = spark or get_spark(settings)  # the range passed check_range before Spark started
    return filtered(
        read_change_feed(spark, log.snapshot(to_version), from_version, to_version), where
    )


#: The order of change types within a version: what went away before what came.
_TYPE_ORDER = (
    ChangeType.DELETE,
    ChangeType.UPDATE_PREIMAGE,
    ChangeType.UPDATE_POSTIMAGE,
    ChangeType.INSERT,
)


def _ordered(df: DataFrame) -> DataFrame:
    """A total order: version, change type, then every data column (maps and variants as
    JSON). Rows equal in every key are equal, so pages neither overlap nor skip rows."""
    from pyspark.sql import functions as F

    rank = F.array_position(
        F.array(*[F.lit(kind.value) for kind in _TYPE_ORDER]), F.col(CHANGE_TYPE)
    )
    keys = [F.col(COMMIT_VERSION), rank, F.col(CHANGE_TYPE)]
    for field in df.schema.fields:
        if field.name in (CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP):
            continue
        column = col(field.name)
        type_ = field.dataType.simpleString()
        keys.append(
            F.to_json(F.struct(column)) if "map<" in type_ or "variant" in type_ else column
        )
    return df.orderBy(*[k.asc_nulls_first() for k in keys])
