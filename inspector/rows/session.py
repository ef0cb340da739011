"""The process's one SparkSession: started lazily, on first use, and shared (row work only)."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.delta.errors import InspectorError, SparkUnavailable
from inspector.rows.jars import delta_conf
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_lock = threading.Lock()
_warm_lock = threading.Lock()
_session: SparkSession | None = None
_status: SparkStatus | None = None
_warming: threading.Thread | None = None

# A desktop tool: no UI port, few shuffle partitions (and few for Delta's log replay: 50
# by default, each a task, made a small table's first read seconds of scheduling), no Hive.
_LOCAL_DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.databricks.delta.snapshotPartitions": "4",
    "spark.sql.catalogImplementation": "in-memory",
    "spark.driver.memory": "2g",
}

# On any master (a cluster's defaults may differ; spark_conf still overrides): no progress
# bars in the CLI's output, timestamps in UTC, old Parquet dates read as written, and
# Parquet field ids honoured (column mapping id mode).
_READ_DEFAULTS = {
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.fieldId.read.enabled": "true",
    # Local files through Hadoop's raw file system: its default one checks a ``.NAME.crc``
    # sidecar beside each file, and one left stale by a tool that rewrote the file (the
    # corpus' delta-rs/cdc_ict_table) made Delta refuse a readable table.
    "spark.hadoop.fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
}


# Only errors reach the terminal: Spark's start-up warnings mean nothing to our users.
_QUIET_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


@dataclass(frozen=True, kw_only=True)
class SparkStatus:
    """What the app shows about Spark: ``not started``, ``starting``, ``ready`` or ``failed``."""

    state: str
    master: str | None = None
    version: str | None = None
    delta_version: str | None = None  # None: Delta Lake's jars are not on the classpath
    reason: str | None = None
    since: float | None = None
    start_seconds: float | None = None

    def describe(self) -> str:
        """One line for people: the wait so far, or how long the start took (measured)."""
        master = self.master or "local"
        where = "locally" if master.startswith("local") else f"on {master}"
        if self.state == "ready":
            reader = (
                f"Delta Lake {self.delta_version} reads rows and commits restores"
                if self.delta_version
                else "Delta Lake's jars are not on its classpath, so no rows can be read"
            )
            took = f" (started in {self.start_seconds:.0f} s)" if self.start_seconds else ""
            return f"Spark {self.version} running {where}{took}; {reader}."
        if self.state == "starting":
            so_far = f": {self.elapsed():.0f} s so far" if self.since is not None else ""
            return (
                f"Spark is starting {where} in the background{so_far} (its first start here "
                "takes longest; docs/performance.md has what it measured); pages that read "
                "only the log work meanwhile."
            )
        if self.state == "failed":
            return f"Spark could not start: {self.reason}"
        return (
            "Spark is not running. It starts when a page needs rows; the timeline, versions "
            "and overview read the log directly."
        )

    def elapsed(self) -> float:
        """Seconds since the start began (0 when it has not)."""
        return 0.0 if self.since is None else time.monotonic() - self.since


def spark_status() -> SparkStatus:
    """The session's state, without starting it."""
    return _status or SparkStatus(state="not started")


def warm_up(settings: Settings) -> threading.Thread | None:
    """Start the session on a background thread (None when started or starting already);
    a failure is kept in :func:`spark_status` and raised again by the next :func:`get_spark`."""
    global _warming
    with _warm_lock:
        if _session is not None or _warming is not None or _lock.locked():
            return None
        _warming = threading.Thread(
            target=_warm, args=(settings,), name="delta-inspector-spark-warm-up", daemon=True
        )
        _warming.start()
        return _warming


def _warm(settings: Settings) -> None:
    global _warming
    try:
        get_spark(settings)
    except SparkUnavailable:
        pass  # spark_status() says why; the page that needs rows reports it
    finally:
        with _warm_lock:
            _warming = None


def get_spark(settings: Settings) -> SparkSession:
    """The process's SparkSession, started on first call with ``settings`` (``spark_master``,
    ``spark_conf``, ``jar_cache``); nothing is written into it afterwards.

    Raises:
        SparkUnavailable: If Java is missing or the session cannot start.
        DeltaJarsMissing: If Delta Lake's jars are not in the jar cache.
    """
    global _session, _status
    with _lock:
        if _session is not None:
            return _session
        since = time.monotonic()
        _status = SparkStatus(state="starting", master=settings.spark_master, since=since)
        try:
            _session = _start(settings)
        except Exception as exc:  # no Java, no jar cache, bad conf: already one line
            reason = str(exc) if isinstance(exc, InspectorError) else str(exc).splitlines()[0]
            _status = SparkStatus(state="failed", master=settings.spark_master, reason=reason)
            if isinstance(exc, InspectorError):
                raise
            raise _not_started(settings, reason) from None  # py4j/JVM failures have many types
        _status = SparkStatus(
            state="ready",
            master=_session.sparkContext.master,
            version=_session.version,
            delta_version=delta_version(_session),
            start_seconds=time.monotonic() - since,
        )
        return _session


def _start(settings: Settings) -> SparkSession:
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise SparkUnavailable(
            "Java is not installed, and Spark needs Java 17.",
            "Install it with: sudo apt-get install -y openjdk-17-jre-headless",
        )
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import SparkSession

    scratch = tempfile.mkdtemp(prefix="delta-inspector-spark-")
    local = settings.spark_master.startswith("local")
    if local:  # a desktop session talks to itself only (also silences the hostname warning)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Python workers (createDataFrame of local rows) run this interpreter unless
    # PYSPARK_PYTHON names another (a cluster's own Python). PySpark reads only it.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log_config = os.path.join(scratch, "log4j2.properties")
    with open(log_config, "w") as fh:
        fh.write(_QUIET_LOG4J)
    user_conf = dict(settings.spark_conf)
    delta = delta_conf(settings, user_conf)  # before the JVM: a missing cache is one line
    conf: dict[str, Any] = {
        **(_LOCAL_DEFAULTS if local else {}),
        **_READ_DEFAULTS,
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={scratch} -Dlog4j2.configurationFile=file:{log_config}",
        **user_conf,
        **delta,
    }
    builder = SparkSession.builder.appName("delta-inspector").master(settings.spark_master)
    jvm_log = os.path.join(scratch, "spark.log")
    try:
        with _stderr_to(jvm_log):
            session = builder.config(map=conf).getOrCreate()
    except Exception as exc:
        why = f"{_first_line(jvm_log) or str(exc).splitlines()[0]}."
        raise _not_started(settings, why, f" (Spark's own log: {jvm_log})") from None
    session.sparkContext.setLogLevel("ERROR")
    # The scratch folder is kept when the JVM did not start (the error names its log),
    # else removed at exit, so runs do not pile up folders in the temporary directory.
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    # PySpark logs every analysis error (a mistyped filter) as a page of JSON; we report it.
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    return session


def _not_started(settings: Settings, why: str, log: str = "") -> SparkUnavailable:
    return SparkUnavailable(
        f"Spark could not start with master '{settings.spark_master}': {why}",
        f"Check the spark_master and spark_conf settings, and that Java 17 is installed{log}.",
    )


@contextlib.contextmanager
def _stderr_to(path: str) -> Iterator[None]:
    """Point fd 2 at ``path`` while the JVM is launched: it keeps fd 2 for its lifetime, so
    its start-up lines and later console logging never reach the CLI's or app's terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


def _first_line(path: str) -> str:
    """The first line of Spark's log that says something (why the JVM did not start)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return next((line.strip()[:300] for line in fh if line.strip()), "")
    except OSError:
        return ""


def delta_version(session: SparkSession) -> str | None:
    """Delta Lake's version on this session's classpath (``io.delta.VERSION``), or None."""
    if not has_class(session, "io.delta.tables.DeltaTable"):
        return None
    jvm: Any = session._jvm
    return str(jvm.io.delta.package.VERSION())


def has_class(session: Any, name: str) -> bool:
    """Whether the session's JVM loads the class ``name``: Spark's own class loader sees
    jars added either way (extra class path, or ``spark.jars``, not on the system one)."""
    try:
        session._jvm.org.apache.spark.util.Utils.classForName(name, True, False)
        return True
    except Exception:  # py4j wraps ClassNotFoundException; any failure means "not usable"
        return False
