"""Delta Lake on Spark reads every row: a version, some of its files, a change data feed.

- :func:`read_snapshot`: a version's rows, ``versionAsOf`` (preview, time travel, restore
  verification).
- :func:`read_files`: the rows of some files of a version, read by Delta's own scan of
  exactly those add actions (``DeltaLog.createDataFrame``, the scan Delta's change data
  feed uses), so deletion vectors, column mapping, partition values and type widening
  stay Delta's. Used where the cost must follow the change, not the table: the row diff,
  and the verification of a restore that left files out. A filter on
  ``_metadata.file_path`` would give the same rows, but Delta 4.4 prunes no file on it:
  every file of the version is opened (198 of 198 in a measured scan), so that public
  form costs what a full read costs.
- :func:`read_change_feed`: Delta's ``readChangeFeed``.

Every read first checks that the data and deletion-vector files exist
(:func:`inspector.rows.readcheck.check_files_exist`), naming a missing one before Delta's
stack trace would; Delta's refusals become one
:class:`~inspector.delta.errors.UnsupportedFeature` line with Delta's reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from inspector.delta.actions import AddFile
from inspector.delta.errors import UnsupportedFeature
from inspector.log.snapshot import Snapshot
from inspector.rows.connectors import spark_location
from inspector.rows.readcheck import check_files_exist

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def read_snapshot(
    snapshot: Snapshot, *, spark: SparkSession, check_files: bool = True
) -> DataFrame:
    """The snapshot's rows read by Delta Lake's reader (``versionAsOf``); lazy.

    ``check_files`` names a missing data or deletion-vector file before Spark starts; it is
    off for a question Delta's planner answers without opening files (``explain``).

    Raises:
        MissingDataFile: A data or deletion-vector file is missing (named).
        UnsupportedFeature: Delta refuses the version; its reason in one line.
    """
    if check_files:
        check_files_exist(snapshot, snapshot.add_files)
    try:
        return (
            spark.read.format("delta")
            .option("versionAsOf", snapshot.version)
            .load(spark_location(spark, snapshot))
        )
    except Exception as exc:  # py4j/Analysis errors: Delta's reason is the first line
        raise _refusal(snapshot, exc) from None


def read_files(snapshot: Snapshot, adds: Iterable[AddFile], *, spark: SparkSession) -> DataFrame:
    """The rows of some files of ``snapshot`` (its add actions), read by Delta's own scan.

    Only these files are opened, so the cost follows their number and size, not the
    table's. Each file is read with the deletion vector ``snapshot`` gives it; no file
    gives no rows, with the schema.

    Raises:
        MissingDataFile: A data or deletion-vector file is missing (named).
        UnsupportedFeature: Delta refuses the version; its reason in one line.
    """
    from pyspark.sql import DataFrame

    adds = list(adds)
    check_files_exist(snapshot, adds)
    try:
        delta_log, delta_snapshot = _delta_snapshot(spark, snapshot)
        chosen = _chosen_adds(spark, delta_snapshot, [a.path for a in adds])
        jdf = delta_log.createDataFrame(
            delta_snapshot, chosen, False, getattr(delta_log, "createDataFrame$default$4")()
        )
    except Exception as exc:
        raise _refusal(snapshot, exc) from None
    return DataFrame(jdf, spark)


def _delta_snapshot(spark: SparkSession, snapshot: Snapshot) -> tuple[Any, Any]:
    """Delta's ``DeltaLog`` of the table and its ``Snapshot`` at this version (cached by Delta)."""
    jvm: Any = spark._jvm
    # py4j runs this on the JVM thread pinned to the calling Python thread, and Delta's
    # internal API reads that thread's active session: an app page's thread has none.
    jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    delta_log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(
        spark._jsparkSession, spark_location(spark, snapshot)
    )
    none = getattr(delta_log, "getSnapshotAt$default$2")()
    # The last argument: no refusal of versions older than the deleted-file retention (the
    # files were checked to exist, as for versionAsOf; see jars.DELTA_SQL_CONF).
    return delta_log, delta_log.getSnapshotAt(snapshot.version, none, none, False)


def _chosen_adds(spark: SparkSession, delta_snapshot: Any, paths: list[str]) -> Any:
    """The snapshot's add actions for ``paths`` (as the log spells them), as a Scala Seq.

    A typed filter (an ``IN`` set, hashed) keeps Delta's ``AddFile`` objects whole.
    """
    from pyspark.sql import functions as F

    jvm: Any = spark._jvm
    chosen = delta_snapshot.allFiles().where(F.col("path").isin(paths)._jc)
    return jvm.scala.collection.immutable.ArraySeq.unsafeWrapArray(chosen.collect())


def read_change_feed(
    spark: SparkSession, snapshot: Snapshot, from_version: int, to_version: int
) -> DataFrame:
    """Delta's change data feed (``readChangeFeed``) of versions ``from``..``to``.

    ``snapshot`` is the range's last version (its location and storage options).

    Raises:
        UnsupportedFeature: Delta refuses the range (its reason in one line), or no
            connector reaches the table's store.
    """
    location = spark_location(spark, snapshot)
    try:
        return (
            spark.read.format("delta")
            .option("readChangeFeed", "true")
            .option("startingVersion", from_version)
            .option("endingVersion", to_version)
            .load(location)
        )
    except Exception as exc:  # py4j/Analysis errors: Delta's reason is the first line
        raise UnsupportedFeature(
            f"Delta Lake cannot read the changes of versions {from_version} to {to_version}: "
            f"{delta_reason(exc)}",
            "Pick a range Delta can read (split it at a schema change), or compare the "
            "versions with `diff --rows` instead.",
        ) from None


def _refusal(snapshot: Snapshot, exc: BaseException) -> UnsupportedFeature:
    if isinstance(exc, UnsupportedFeature):  # no connector reaches the store (named)
        return exc
    return UnsupportedFeature(
        f"Delta Lake cannot read version {snapshot.version}: {delta_reason(exc)}",
        "Pick another version, or read this one with an engine that supports what Delta names.",
    )


def delta_reason(exc: BaseException) -> str:
    """Delta's reason for an error, in one line (no JVM stack trace, no error-class tag)."""
    text = getattr(exc, "desc", None) or str(exc)
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), type(exc).__name__)
    return re.sub(r"^\[[A-Z_.]+\]\s*", "", line)[:400]
