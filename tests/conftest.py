"""Shared fixtures and helpers: the corpus, table copies, the Spark session, a small
partitioned table with a history, and the CLI run in-process.

Every test that uses the ``spark`` fixture is marked ``spark`` here, so
``pytest -m "not spark"`` never starts a JVM (and runs without pyspark installed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = (
    "tests.object_stores",  # s3_server and the other stores on loopback
    "tests.glue_catalog",  # moto's Glue with a fresh database, and Glue's two table forms
    "tests.unity_server",  # the Unity Catalog server, when DELTA_INSPECTOR_TEST_UC_SERVER names one
    "tests.unity_tables",  # tables registered in it, reached through a recording proxy
)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the Spark session ``spark`` (directly or through a fixture)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run without the spark marker must not need pyspark: fail it if pyspark was imported."""
    import sys

    markexpr = session.config.option.markexpr or ""
    if "not spark" in markexpr and "pyspark" in sys.modules and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write("\n")
            reporter.write_line(
                "FAILED: pyspark was imported in a run with -m 'not spark': a test that needs "
                "pyspark must be marked spark (or use the spark fixture).",
                red=True,
            )


def corpus_index() -> list[dict]:
    """The corpus tables, as listed in ``index.json``."""
    return json.loads((CORPUS / "index.json").read_text())["tables"]


def corpus_histories() -> Iterator[tuple[str, list]]:
    """Each corpus table whose log is readable, with its whole history: (its root, entries).

    An unreadable log is left out: the error contract is tested elsewhere.
    """
    from inspector.delta.errors import InspectorError
    from inspector.log.deltalog import DeltaLog
    from inspector.settings import Settings
    from inspector.table.history import build_history

    for row in corpus_index():
        root = str(CORPUS / row["path"])
        try:
            whole = build_history(DeltaLog.open(root), Settings())
        except InspectorError:
            continue
        yield root, whole


@pytest.fixture(autouse=True)
def _no_spark_warm_up(monkeypatch):
    """The app warms Spark up when a row page opens; tests start Spark only when they mean to."""
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_WARMUP", "false")


@pytest.fixture(autouse=True)
def _log_index_in_temp(tmp_path_factory, monkeypatch):
    """Every test's log index (the on-disk cache of commits read) is its own, in a temp dir:
    a test never reads another's, nor fills the user's cache folder."""
    folder = tmp_path_factory.mktemp("log-index")
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(folder))


@pytest.fixture
def corpus() -> Path:
    """The read-only corpus of real Delta tables (never modify it)."""
    if not CORPUS.is_dir():
        pytest.fail(f"The corpus is missing at {CORPUS}; it must sit beside the repository.")
    return CORPUS


def copy_corpus_table(relative: str, target: Path) -> Path:
    """Copy a corpus table (by its corpus-relative path) to ``target``, writable."""
    shutil.copytree(CORPUS / relative, target)
    for p in target.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    target.chmod(0o755)
    return target


@pytest.fixture
def copy_table(tmp_path):
    """Copy a corpus table (by its corpus-relative path) into a temp dir and return the copy."""

    def _copy(relative: str) -> Path:
        return copy_corpus_table(relative, tmp_path / Path(relative).name)

    return _copy


@pytest.fixture(scope="session")
def spark():
    """The one real SparkSession of the test run (local[*], started on first use)."""
    from inspector.rows.session import get_spark
    from inspector.settings import Settings

    return get_spark(Settings())


def delta_vacuum(spark: Any, root: str, clause: str = "") -> list[Any]:
    """Delta's ``VACUUM ... RETAIN 0 HOURS {clause}`` on ``root``: the rows it returns."""
    # FULL lists the table's folder in parallelPartitionDiscovery.parallelism tasks: 10,000
    # by default, two minutes of scheduling for a table of a few files.
    confs = {
        "spark.databricks.delta.retentionDurationCheck.enabled": "false",
        "spark.sql.sources.parallelPartitionDiscovery.parallelism": "4",
    }
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        return spark.sql(f"VACUUM delta.`{root}` RETAIN 0 HOURS {clause}").collect()
    finally:
        for key in confs:
            spark.conf.unset(key)


def vacuum_dry_run(spark: Any, root: str, mode: str) -> set[str]:
    """The paths Delta's ``VACUUM ... RETAIN 0 HOURS {mode} DRY RUN`` lists (without ``file:``)."""
    return {r["path"].removeprefix("file:") for r in delta_vacuum(spark, root, f"{mode} DRY RUN")}


@pytest.fixture
def audit(tmp_path, monkeypatch) -> str:
    """The restore audit log of this test (``DELTA_INSPECTOR_AUDIT_LOG``), in its temp dir."""
    path = str(tmp_path / "audit.jsonl")
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", path)
    return path


@pytest.fixture
def settings(tmp_path):
    """Default settings with the restore audit log in the test's temp dir."""
    from inspector.settings import Settings

    return Settings(audit_log=str(tmp_path / "audit.jsonl"))


def add_files(snapshot: Any) -> list[Any]:
    """A snapshot's live add actions sorted by path (``Snapshot.files`` holds them by key)."""
    return sorted(snapshot.files.values(), key=lambda add: add.path)


def tombstones(snapshot: Any) -> list[Any]:
    """A snapshot's remove actions still known, as typed records (of ``tombstones_table``)."""
    from inspector.log import columnar

    return list(columnar.records("remove", snapshot.tombstones_table))


def sales_table(path: Path | str) -> str:
    """A partitioned table with appends, a DELETE, an UPDATE and an overwrite (versions 0..4)."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    table = str(path)
    write_deltalake(
        table,
        pa.table({"id": [1, 2, 3], "region": ["eu", "us", "eu"], "amount": [10.0, 20.0, 30.0]}),
        partition_by=["region"],
    )
    write_deltalake(
        table,
        pa.table({"id": [4, 5], "region": ["us", "apac"], "amount": [40.0, 50.0]}),
        mode="append",
    )
    DeltaTable(table).delete("id = 2")
    DeltaTable(table).update(updates={"amount": "amount * 2"}, predicate="region = 'eu'")
    write_deltalake(
        table, pa.table({"id": [9], "region": ["eu"], "amount": [1.0]}), mode="overwrite"
    )
    return table


def one_row_appends(table: Path, n: int, seed: int) -> None:
    """``n`` appends of one row each (deltalake), seeded: ``n`` commits to ``table``."""
    import random

    import pyarrow as pa
    from deltalake import write_deltalake

    rng = random.Random(seed)
    for _ in range(n):
        write_deltalake(str(table), pa.table({"x": [rng.randrange(1000)]}), mode="append")


def protocol_action(
    reader: int, writer: int, readers: list[str] | None = None, writers: list[str] | None = None
) -> Any:
    """A parsed ``protocol`` action; the feature lists only when given (reader 3 / writer 7)."""
    from inspector.delta.parse import parse_action

    body: dict[str, Any] = {"minReaderVersion": reader, "minWriterVersion": writer}
    if readers is not None:
        body["readerFeatures"] = readers
    if writers is not None:
        body["writerFeatures"] = writers
    return parse_action({"protocol": body})


def open_app(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    *,
    timeout: float = 120,
    operator: bool | None = None,
    **query: str,
) -> Any:
    """A fresh app session (``AppTest``, not yet run) with ``query`` as its URL's parameters.

    Its recent-tables list, demo table and audit log live in ``tmp_path``; ``operator``
    sets operator mode on or off (unset: the environment's).
    """
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("DELTA_INSPECTOR_RECENT_TABLES_FILE", str(tmp_path / "recent.json"))
    monkeypatch.setenv("DELTA_INSPECTOR_DEMO_PATH", str(tmp_path / "demo"))
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    if operator is not None:
        monkeypatch.setenv("DELTA_INSPECTOR_OPERATOR_MODE", "true" if operator else "false")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=timeout)
    at.query_params.update(query)
    return at


def run_app(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    *,
    timeout: float = 120,
    operator: bool | None = None,
    errors_shown: bool = False,
    **query: str,
) -> Any:
    """:func:`open_app`, run once: no exception, and (unless ``errors_shown``) no error shown."""
    at = open_app(monkeypatch, tmp_path, timeout=timeout, operator=operator, **query)
    at.run()
    assert not at.exception, at.exception
    assert errors_shown or not at.error, [e.value for e in at.error]
    return at


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh app session (:func:`open_app`, not yet run, no link) for a test to drive."""
    return open_app(monkeypatch, tmp_path)


#: The crashing writer's exit status when it crashed on purpose.
CRASHED = 75

# Writes the commit of the job on stdin (to ``folder``, a local ``_delta_log``, or to the
# store at ``uri``) and crashes right after the job's ``step`` of the commit writer.
_CRASHING_WRITER = f"""
import json, os, sys
from inspector.log.commit_writer import write_commit
from inspector.storage.location import open_storage

job = json.load(sys.stdin)

def crash(step):
    if step == job["step"]:
        os._exit({CRASHED})

target = open_storage(job["uri"], options=job["options"]) if "uri" in job else job["folder"]
write_commit(target, job["version"], job["actions"], on_step=crash)
"""


def crash_in_child(job: Mapping[str, Any]) -> None:
    """Write a commit in a child process that crashes right after one step of the commit
    writer: ``job`` names the ``step``, the ``version`` and its ``actions``, and either a
    local ``folder`` (``_delta_log``) or a store's ``uri`` and ``options``."""
    import subprocess
    import sys

    step = job["step"]
    child = subprocess.run(
        [sys.executable, "-c", _CRASHING_WRITER],
        input=json.dumps(job),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert child.returncode == CRASHED, f"the writer did not crash at {step}: {child.stderr}"


def page_text(at: Any) -> str:
    """Every text an app page (``AppTest``) shows: errors, messages, markdown, code, headers."""
    parts = [*at.error, *at.success, *at.markdown, *at.info, *at.caption, *at.code, *at.subheader]
    return "\n".join(str(e.value) for e in parts)


def rows(root: Path | str, version: int, spark: Any) -> Counter:
    """The multiset of a version's rows, read with Spark from the log (independently of any plan)."""
    from inspector.log.deltalog import DeltaLog
    from inspector.rows.delta_engine import read_snapshot
    from inspector.settings import Settings

    snapshot = DeltaLog.open(str(root)).snapshot(version)
    return Counter(
        json.dumps(r.asDict(recursive=True), sort_keys=True, default=str)
        for r in read_snapshot(
            snapshot, spark=spark, check_workers=Settings().check_workers
        ).collect()
    )


@dataclasses.dataclass(frozen=True)
class CliResult:
    """What a script sees of one CLI run: the exit code, stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_main(capsys, *args: object) -> tuple[int, str, str]:
    """``main(ARGS)`` in this process, with pytest's capture: (exit code, stdout, stderr)."""
    from inspector.cli.main import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    """The one ``error: ...`` line a failed command prints (and no traceback)."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def run_cli(*args: object, env: Mapping[str, str] | None = None) -> CliResult:
    """Run ``python -m inspector ARGS`` in this process (``cli.main.main(argv)``).

    In-process runs share the test run's Spark session and cost no interpreter start;
    ``env`` is added to the environment for the run only.
    """
    from inspector.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with _environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return CliResult(code, out.getvalue(), err.getvalue())


def confirmed(plan: Any, reason: str = "test restore", **fields: Any) -> Any:
    """The request an operator makes who typed the plan's table name and target version."""
    from inspector.restore import RestoreRequest

    return RestoreRequest(
        plan=plan,
        typed_table_name=plan.table_name,
        typed_version=str(plan.target_version),
        reason=reason,
        **fields,
    )


def shown_page(at: Any) -> str:
    """The key (URL path) of the page an AppTest run showed: ``timeline``, ``diff``, ...

    AppTest has no public accessor for the page ``st.navigation`` chose; its registry of
    the last run's pages, keyed by the page's hash, is the same one ``switch_page`` uses.
    The default page's path is empty in that registry: it is the Timeline.
    """
    info = at._registered_pages.get(at._finished_page_script_hash, {})
    return str(info.get("url_pathname") or "timeline")


def offered_pages(at: Any) -> list[str]:
    """The titles of the pages the navigation offered in an AppTest run, in order.

    A run that stopped before ``st.navigation`` (a refused visitor) offered none.
    """
    return [str(i["page_name"]) for i in at._registered_pages.values() if i.get("page_name")]


#: The features Delta 4.4 writes into ``delta_table`` (v2 checkpoints every 3 commits).
DELTA_FEATURES = {
    "delta.enableDeletionVectors": "true",
    "delta.columnMapping.mode": "name",
    "delta.enableChangeDataFeed": "true",
    "delta.enableRowTracking": "true",
    "delta.enableInCommitTimestamps": "true",
    "delta.checkpointPolicy": "v2",
    "delta.checkpointInterval": "3",
}


@pytest.fixture(scope="session")
def delta_table(spark, tmp_path_factory):
    """Versions 0..8 written by Delta: create, insert, DELETE, UPDATE, MERGE, rename, drop."""
    root = str(tmp_path_factory.mktemp("delta") / "orders")
    props = ", ".join(f"'{k}' = '{v}'" for k, v in DELTA_FEATURES.items())
    sql = [
        f"CREATE TABLE delta.`{root}` (id INT, region STRING, amount DOUBLE, note STRING) "
        f"USING delta PARTITIONED BY (region) TBLPROPERTIES ({props})",
        f"INSERT INTO delta.`{root}` SELECT id, IF(id % 2 = 0, 'eu', 'us'), id * 1.5, "
        "CONCAT('n', id) FROM range(40)",
        f"DELETE FROM delta.`{root}` WHERE id % 7 = 0",
        f"UPDATE delta.`{root}` SET amount = amount * 10 WHERE id % 5 = 0",
        f"MERGE INTO delta.`{root}` t USING (SELECT id, 'eu' AS region, -1.0 AS amount, "
        "'merged' AS note FROM range(35, 45)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.amount = s.amount WHEN NOT MATCHED THEN INSERT *",
        f"ALTER TABLE delta.`{root}` RENAME COLUMN amount TO total",
        f"ALTER TABLE delta.`{root}` DROP COLUMN note",
        f"INSERT INTO delta.`{root}` VALUES (100, 'eu', 1.0)",
    ]
    for statement in sql:
        spark.sql(statement)
    return root
