"""The change data feed of a range of versions, read by Delta Lake (``readChangeFeed``).

:func:`check_range` refuses, before Spark starts, a range with versions written without
the feed (their changes were never recorded: ``diff --rows`` compares such versions).
Counting and paging the feed is :mod:`inspector.rows.changefeed`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.log.deltalog import DeltaLog

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
    log: DeltaLog, from_version: int, to_version: int, *, spark: SparkSession
) -> DataFrame:
    """All changes of the range as one DataFrame: the latest schema plus the three CDF columns.

    The range must have passed :func:`check_range` (its callers check it before Spark
    starts).

    Raises:
        UnsupportedFeature: Delta refuses the range (e.g. across a column mapping schema
            change), or no connector reaches the table's store.
    """
    from inspector.rows.delta_engine import read_change_feed

    return read_change_feed(spark, log.snapshot(to_version), from_version, to_version)
