"""Delta Lake on Spark reads every row: a version, some of its files, a change data feed.

:func:`read_files` reads some files of a version by Delta's own scan of exactly those add
actions (``DeltaLog.createDataFrame``, the scan of Delta's change data feed), so deletion
vectors, column mapping and type widening stay Delta's while the cost follows the change
(row diff, verifying a restore that left files out). A filter on ``_metadata.file_path``
gives the same rows, but Delta 4.4 prunes no file on it (198 of 198 opened, measured).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from inspector.delta.actions import AddFile
from inspector.delta.errors import MissingDataFile, UnsupportedFeature
from inspector.delta.protocol import MANAGED_FEATURES, reader_features
from inspector.files.filecheck import FileState, check_files, check_refs, table_refs
from inspector.log.snapshot import Snapshot
from inspector.rows.connectors import spark_location

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def read_snapshot(
    snapshot: Snapshot, *, spark: SparkSession, check_workers: int | None
) -> DataFrame:
    """The snapshot's rows read by Delta Lake's reader (``versionAsOf``); lazy.

    ``check_workers`` (``settings.check_workers``) stat calls name a missing data or
    deletion-vector file before Spark starts; None for a question Delta's planner answers
    without opening files (``explain``), or whose caller checked them.

    Raises:
        MissingDataFile: A data or deletion-vector file is missing (named).
        UnsupportedFeature: Delta refuses the version; its reason in one line.
    """
    if check_workers is not None:
        check_files_exist(snapshot, workers=check_workers)
    return _load(
        spark, snapshot, f"version {snapshot.version}", _PICK, versionAsOf=snapshot.version
    )


def _load(
    spark: SparkSession, snapshot: Snapshot, what: str, hint: str, **options: Any
) -> DataFrame:
    """Delta's reader of the table of ``snapshot`` with ``options``; lazy. A refusal says
    that Delta Lake cannot read ``what``, and ``hint``."""
    location, conf = spark_location(spark, snapshot)
    try:
        return spark.read.format("delta").options(**conf, **options).load(location)
    except Exception as exc:  # py4j/Analysis errors: Delta's reason is the first line
        raise refusal(exc, what, hint) from None


def read_files(
    snapshot: Snapshot, adds: Iterable[AddFile], *, spark: SparkSession, check_workers: int
) -> DataFrame:
    """The rows of some files of ``snapshot`` (its add actions, each with its deletion
    vector there), read by Delta's own scan: only these files are opened, each checked
    first by ``check_workers`` stat calls.

    Raises:
        MissingDataFile: A data or deletion-vector file is missing (named).
        UnsupportedFeature: Delta refuses the version; its reason in one line.
    """
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    adds = list(adds)
    check_files_exist(snapshot, adds, workers=check_workers)
    jvm: Any = spark._jvm
    try:
        delta_log, delta_snapshot = _delta_snapshot(spark, snapshot)
        # The add actions as the log spells their paths, as a Scala Seq (a typed ``IN``
        # filter keeps Delta's ``AddFile`` objects whole).
        chosen = delta_snapshot.allFiles().where(F.col("path").isin([a.path for a in adds])._jc)
        jdf = delta_log.createDataFrame(
            delta_snapshot,
            jvm.scala.collection.immutable.ArraySeq.unsafeWrapArray(chosen.collect()),
            False,
            getattr(delta_log, "createDataFrame$default$4")(),
        )
    except Exception as exc:
        raise refusal(exc, f"version {snapshot.version}") from None
    return DataFrame(jdf, spark)


def _delta_snapshot(spark: SparkSession, snapshot: Snapshot) -> tuple[Any, Any]:
    """Delta's ``DeltaLog`` of the table and its ``Snapshot`` at this version (cached by Delta)."""
    jvm: Any = spark._jvm
    # py4j runs this on the JVM thread pinned to the calling Python thread, and Delta's
    # internal API reads that thread's active session: an app page's thread has none.
    jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    location, conf = spark_location(spark, snapshot)
    delta_log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(
        spark._jsparkSession,
        jvm.org.apache.hadoop.fs.Path(location),
        jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(conf),  # the store's fs.* conf
    )
    none = getattr(delta_log, "getSnapshotAt$default$2")()
    # The last argument: no refusal of versions older than the deleted-file retention (the
    # files were checked to exist, as for versionAsOf; see jars.DELTA_SQL_CONF).
    return delta_log, delta_log.getSnapshotAt(snapshot.version, none, none, False)


def read_change_feed(
    spark: SparkSession, snapshot: Snapshot, from_version: int, to_version: int
) -> DataFrame:
    """Delta's change data feed of versions ``from``..``to`` (``snapshot``: the last).

    Raises:
        UnsupportedFeature: Delta refuses the range (its reason in one line), or no
            connector reaches the table's store.
    """
    return _load(
        spark,
        snapshot,
        f"the changes of versions {from_version} to {to_version}",
        "Pick a range Delta can read (split it at a schema change), or compare the "
        "versions with `diff --rows` instead.",
        readChangeFeed="true",
        startingVersion=from_version,
        endingVersion=to_version,
    )


_PICK = "Pick another version, or read this one with an engine that supports what Delta names."


def refusal(exc: BaseException, what: str, hint: str = _PICK) -> UnsupportedFeature:
    """Delta refusing to read ``what``, its reason in one line (:func:`delta_reason`)."""
    if isinstance(exc, UnsupportedFeature):  # no connector reaches the store (named)
        return exc
    return UnsupportedFeature(f"Delta Lake cannot read {what}: {delta_reason(exc)}", hint)


def delta_reason(exc: BaseException) -> str:
    """Delta's reason for an error, in one line (no JVM stack trace, no error-class tag)."""
    text = getattr(exc, "desc", None) or str(exc)
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), type(exc).__name__)
    return re.sub(r"^\[[A-Z_.]+\]\s*", "", line)[:400]


def read_warnings(snapshot: Snapshot) -> list[str]:
    """Caveats about rows read from this snapshot (shown beside a preview)."""
    if reader_features(snapshot.protocol) & MANAGED_FEATURES:
        return [
            "This table is managed by a catalog: the rows shown are those of the commits in "
            "_delta_log; commits the catalog has ratified but not yet published are not included."
        ]
    return []


def check_files_exist(
    snapshot: Snapshot, adds: Iterable[AddFile] | None = None, *, workers: int
) -> None:
    """Check every data and deletion-vector file of ``adds`` (None: of the snapshot, read
    column-wise) before Spark starts, for a clean message, by the health check's rule
    (:func:`inspector.files.filecheck.check_refs`), with ``workers`` parallel stat calls
    (``settings.check_workers``).

    Raises:
        MissingDataFile: Naming the first missing or damaged file and how many there are.
    """
    root, storage = snapshot.table_root, snapshot.storage
    issues = (
        check_refs(root, table_refs(snapshot.files_table), workers=workers, storage=storage)
        if adds is None
        else check_files(root, list(adds), workers=workers, storage=storage)
    )
    if not issues:
        return
    first = issues[0]
    more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
    what = (
        f"missing{more}: the version's data was vacuumed or not copied with the table"
        if first.state is FileState.MISSING
        else f"damaged ({first.detail}){more}: it was cut short or overwritten"
    )
    raise MissingDataFile(
        f"Version {snapshot.version} needs {first.local_path}, which is {what}.",
        "Pick a later version whose files exist (VACUUM keeps the files of recent "
        "versions), or restore the missing files from a backup.",
    )
