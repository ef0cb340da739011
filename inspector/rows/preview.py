"""A preview of a table version: its schema, exact row count and first rows, read by Spark.

:class:`PreviewJob` runs :func:`build_preview` on a worker thread, cancellable by the app.
"""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.delta.errors import InspectorError, MissingDataFile, SparkUnavailable
from inspector.delta.jsonvalue import camel_json, json_value
from inspector.log.deltalog import DeltaLog
from inspector.rows.netrows import col
from inspector.rows.predicate import filtered
from inspector.rows.session import get_spark
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True, kw_only=True)
class PreviewColumn:
    """A column of the previewed version: logical name and Delta type (``simpleString``)."""

    name: str
    type: str


@dataclass(frozen=True, kw_only=True)
class Preview:
    """What a preview shows. ``num_rows`` is exact (Spark counted every row that passed
    ``where``); ``rows`` holds the first of them as Python values."""

    version: int
    columns: tuple[PreviewColumn, ...]
    num_rows: int
    rows: tuple[Mapping[str, Any], ...]
    files_read: int
    bytes_read: int
    where: str | None
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON contract (``show --json``): version, columns, numRows and rows."""
        return {**json_value(camel_json(self)), "columns": [camel_json(c) for c in self.columns]}


def build_preview(
    log: DeltaLog,
    version: int,
    *,
    settings: Settings,
    where: str | None = None,
    limit: int | None = None,
    spark: SparkSession | None = None,
    progress: Callable[[str], None] = lambda stage: None,
) -> Preview:
    """Read a version with Spark: its exact row count and first rows (optionally filtered).

    Args:
        where: A SQL WHERE expression evaluated by Spark, or None.
        limit: Rows to return (default ``settings.preview_rows``).
        spark: A SparkSession; None starts the process's session with ``settings``.
        progress: Called with each stage's description, for a progress display.

    Raises:
        InvalidInput: The filter does not parse or names unknown columns.
        MissingDataFile: A file of the version is missing (named, before Spark starts).
        UnsupportedFeature: Delta Lake refuses the version (its reason).
        SparkUnavailable: Spark cannot start.
    """
    from inspector.rows.delta_engine import check_files_exist, read_snapshot, read_warnings

    snapshot = log.snapshot(version)
    # Refuse before paying for Spark's start.
    check_files_exist(snapshot, workers=settings.check_workers)
    limit = settings.preview_rows if limit is None else max(int(limit), 0)
    spark = spark or get_spark(settings)  # the app's job starts it first, saying so
    progress(f"Reading version {version} ({snapshot.num_files:,} files)…")
    df = filtered(read_snapshot(snapshot, spark=spark, check_workers=None), where)
    rows = shown_rows(df, limit)
    progress("Counting rows…")
    # Without a filter Delta answers the count from the log's statistics where it can.
    total = spark_action(df.count)
    columns = tuple(
        PreviewColumn(name=f.name, type=f.type.simple_string()) for f in snapshot.schema.fields
    )
    return Preview(
        version=version,
        columns=columns,
        num_rows=total,
        rows=rows,
        where=(where or "").strip() or None,
        files_read=snapshot.num_files,
        bytes_read=snapshot.size_in_bytes,
        warnings=tuple(read_warnings(snapshot)),
    )


def shown_rows(df: DataFrame, limit: int, offset: int = 0) -> tuple[Mapping[str, Any], ...]:
    """``limit`` rows of ``df`` from ``offset``, as Python values through Arrow; variant
    values as JSON text (Arrow has no variant type; the rows are for people)."""
    shown = df.select(
        *[
            col(f.name).cast("string").alias(f.name)
            if "variant" in f.dataType.simpleString()
            else col(f.name)
            for f in df.schema.fields
        ]
    )
    page = shown.offset(max(offset, 0)).limit(limit)
    return tuple(spark_action(lambda: page.toArrow().to_pylist()))


def spark_action(action: Callable[[], Any]) -> Any:
    """Run a Spark action; file-read failures become MissingDataFile naming the file."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    try:
        return action()
    except (PySparkException, Py4JError) as exc:
        text = str(exc)
        if "FAILED_READ_FILE" in text or "FileNotFoundException" in text:
            _, named, after = text.partition("reading file")
            file = after.split(".  SQLSTATE")[0].strip() if named else "a data file"
            raise MissingDataFile(
                f"Spark could not read {file}: it is missing or not a valid Parquet file.",
                "Restore the file from a backup, or pick another version.",
            ) from None
        if "cancel" in text.lower():
            raise PreviewCancelled() from None
        if text.lstrip().startswith("[DELTA_"):  # Delta refuses while reading: its reason
            from inspector.rows.delta_engine import refusal

            raise refusal(
                exc,
                "this",
                "Pick another version, or split a change range at the schema change Delta "
                "names (or compare the versions with `diff --rows`).",
            ) from None
        raise


class PreviewCancelled(Exception):
    """Raised inside a worker whose Spark jobs were cancelled (never shown as an error)."""


class PreviewJob:
    """A preview running on a worker thread, in its own Spark job group (cancellable).

    ``stage`` says what it is doing; :meth:`cancel` cancels its Spark jobs (a Spark
    start cannot be interrupted, but its result is then discarded).
    """

    def __init__(
        self, log: DeltaLog, version: int, *, settings: Settings, where: str | None = None
    ) -> None:
        self.group = f"delta-inspector-preview-{uuid.uuid4().hex[:12]}"
        self.stage = "Waiting…"
        self.cancelled = False
        self.preview: Preview | None = None
        self.error: BaseException | None = None
        self._session: SparkSession | None = None  # once started: whose jobs a cancel stops
        self._settings = settings
        self._build = functools.partial(build_preview, log, version, settings=settings, where=where)
        self._thread = threading.Thread(target=self._run, name=self.group, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.preview = self._build(spark=self._spark(), progress=self._progress)
        except PreviewCancelled:
            self.cancelled = True
        except BaseException as exc:  # handed to the caller's thread, which renders it
            self.error = exc if not self.cancelled else None
        self.stage = "Cancelled" if self.cancelled else "Done"

    def _spark(self) -> SparkSession:
        self.stage = "Starting Spark…"
        spark = self._session = get_spark(self._settings)
        # Job groups are per thread (PySpark pins Python threads to JVM threads).
        spark.sparkContext.setJobGroup(
            self.group, "Delta Inspector preview", interruptOnCancel=True
        )
        if self.cancelled:
            raise PreviewCancelled()
        return spark

    def _progress(self, stage: str) -> None:
        if self.cancelled:
            raise PreviewCancelled()
        self.stage = stage

    def done(self) -> bool:
        """True when the preview finished, failed or was cancelled."""
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds; True when done."""
        self._thread.join(timeout)
        return self.done()

    def cancel(self) -> None:
        """Cancel the preview's Spark jobs; the job ends as ``cancelled``."""
        self.cancelled = True
        if self._session is not None:
            self._session.sparkContext.cancelJobGroup(self.group)

    def result(self) -> Preview | None:
        """The preview (None when cancelled).

        Raises:
            InspectorError: What went wrong, ready to render.
        """
        self.wait()
        if self.error is not None:
            if isinstance(self.error, InspectorError):
                raise self.error
            raise SparkUnavailable(
                f"Spark failed while reading: {str(self.error).splitlines()[0]}",
                "See the Spark status in the sidebar; retry, or check the "
                "spark_master and spark_conf settings.",
            ) from self.error
        return None if self.cancelled else self.preview
