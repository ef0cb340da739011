"""The JVM jars of Delta Lake and Hadoop's cloud connectors: the cache ``./dev.sh`` fills.

``./dev.sh`` resolves ``jars.pom.xml`` (next to this module) once with Maven and writes the
classpath to ``<jar_cache>/<digest of the pom>.classpath`` (the jars stay in ``~/.m2``).
Executors on this machine read them in place (extra class paths); any other master gets
them through ``spark.jars``, which ships them (about 700 MB) to every executor.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from inspector.delta.errors import DeltaJarsMissing
from inspector.settings import Settings

POM = Path(__file__).with_name("jars.pom.xml")
#: The one command that fills the cache (both of the README's commands run it).
FETCH_COMMAND = "./dev.sh app (or ./dev.sh test)"
#: What a user without the jars can still do (every command that reads only the log).
WITHOUT_JARS = "without them the commands that read only the log (history, files, check) work"

#: Delta's SQL extension and catalog: what makes ``RESTORE TABLE delta.`...``` and
#: ``DESCRIBE HISTORY`` parse, and ``format("delta")`` resolve.
DELTA_SQL_CONF = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    # Delta 4 refuses time travel older than delta.deletedFileRetentionDuration, even when
    # every file is still there. Reading old versions is this tool's purpose, and the
    # reader checks each file exists first (naming a missing one), so Delta may read them.
    "spark.databricks.delta.vacuum.enforceTimeTravelWithinDeletedFileRetentionDuration": "false",
}
_DELTA_JAR = re.compile(r"delta-spark_[0-9.]+_2\.13-[0-9][^/]*\.jar$")


def classpath_file(settings: Settings) -> Path:
    """Where ``./dev.sh`` writes the classpath for this very pom (a changed pom refetches)."""
    digest = hashlib.sha256(POM.read_bytes()).hexdigest()[:16]
    return Path(os.path.expanduser(settings.jar_cache)) / f"{digest}.classpath"


def cached_jars(settings: Settings) -> tuple[str, ...]:
    """The jars listed in the cache, each present and Delta Lake's among them.

    Raises:
        DeltaJarsMissing: The list is absent or names a missing jar (with the fetch command).
    """
    listing = classpath_file(settings)
    try:
        jars = tuple(p for p in listing.read_text(encoding="utf-8").strip().split(os.pathsep) if p)
    except OSError:
        raise DeltaJarsMissing(
            f"Delta Lake's jars are not in the jar cache ({listing.parent}).",
            f"Fetch them once with {FETCH_COMMAND}; {WITHOUT_JARS}.",
        ) from None
    absent = [j for j in jars if not os.path.isfile(j) or os.path.getsize(j) == 0]
    if absent or not any(_DELTA_JAR.search(j) for j in jars):
        first = os.path.basename(absent[0]) if absent else "delta-spark"
        raise DeltaJarsMissing(
            f"The jar cache is partial: {first} is missing ({len(absent) or 1} jar(s)).",
            f"Fetch them again with {FETCH_COMMAND}; {WITHOUT_JARS}.",
        )
    return jars


def delta_conf(settings: Settings, user_conf: dict[str, str]) -> dict[str, str]:
    """The Spark conf that loads Delta: the cached jars before any the user gave (none when
    ``spark.jars.packages`` already names ``io.delta``), placed per :func:`on_this_machine`.

    Raises:
        DeltaJarsMissing: When the cache is absent or partial.
    """
    if "io.delta" in user_conf.get("spark.jars.packages", ""):
        return dict(DELTA_SQL_CONF)
    jars = list(cached_jars(settings))
    if on_this_machine(settings.spark_master):
        paths = {key: [*jars, *user_conf.get(key, "").split(os.pathsep)] for key in CLASSPATH_KEYS}
        return {**DELTA_SQL_CONF, **{k: os.pathsep.join(filter(None, v)) for k, v in paths.items()}}
    extra = user_conf.get("spark.jars", "")
    return {**DELTA_SQL_CONF, "spark.jars": ",".join([*jars, *filter(None, extra.split(","))])}


#: Where the jars go when every executor runs on this machine: read in place, not shipped.
CLASSPATH_KEYS = ("spark.driver.extraClassPath", "spark.executor.extraClassPath")


def on_this_machine(master: str) -> bool:
    """True when every executor of ``master`` runs here: ``local*``, or a standalone master
    (``spark://``) on loopback addresses only, which no worker elsewhere could reach."""
    master = master.strip().lower()
    if master.startswith("local"):
        return True
    if not master.startswith("spark://"):
        return False
    hosts = [urlsplit(f"spark://{part}").hostname for part in master[8:].split(",")]
    return all(host is not None and _loopback(host) for host in hosts)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve elsewhere for the workers
        return False
