"""Delta Lake's own engine on Spark: its reader, its change data feed, its errors in one line.

Used when Delta's jars are loaded (``spark_engine`` ``delta``, the default); see
:mod:`inspector.rows.readpath` for when. Delta's refusals become one
:class:`~inspector.delta.errors.UnsupportedFeature` line with Delta's reason, offering
Delta Inspector's own reader when it can read the version.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from inspector.delta.errors import UnsupportedFeature
from inspector.log.snapshot import Snapshot

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def read_with_delta(
    spark: SparkSession, snapshot: Snapshot, own_reader_hint: Callable[[], str]
) -> DataFrame:
    """The snapshot's rows read by Delta Lake's own reader (``versionAsOf``).

    Raises:
        UnsupportedFeature: Delta refuses the version; its reason in one line, and the
            own reader offered when it can read the version (``own_reader_hint``).
    """
    from inspector.rows.readpath import spark_location

    try:
        return (
            spark.read.format("delta")
            .option("versionAsOf", snapshot.version)
            .load(spark_location(spark, snapshot))
        )
    except Exception as exc:  # py4j/Analysis errors: Delta's reason is the first line
        raise UnsupportedFeature(
            f"Delta Lake cannot read version {snapshot.version}: {delta_reason(exc)}",
            own_reader_hint(),
        ) from None


def delta_reason(exc: BaseException) -> str:
    """Delta's reason for an error, in one line (no JVM stack trace, no error-class tag)."""
    text = getattr(exc, "desc", None) or str(exc)
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), type(exc).__name__)
    return re.sub(r"^\[[A-Z_.]+\]\s*", "", line)[:400]


def read_change_feed(
    spark: SparkSession, snapshot: Snapshot, from_version: int, to_version: int
) -> DataFrame:
    """Delta's change data feed (``readChangeFeed``) of versions ``from``..``to``.

    ``snapshot`` is the range's last version (its location and storage options).

    Raises:
        UnsupportedFeature: Delta refuses the range; its reason in one line.
    """
    from inspector.rows.readpath import spark_location

    try:
        return (
            spark.read.format("delta")
            .option("readChangeFeed", "true")
            .option("startingVersion", from_version)
            .option("endingVersion", to_version)
            .load(spark_location(spark, snapshot))
        )
    except Exception as exc:  # py4j/Analysis errors: Delta's reason is the first line
        raise UnsupportedFeature(
            f"Delta Lake cannot read the changes of versions {from_version} to {to_version}: "
            f"{delta_reason(exc)}",
            "Set DELTA_INSPECTOR_SPARK_ENGINE=own to read them with Delta Inspector's reader.",
        ) from None
