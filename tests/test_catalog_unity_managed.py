"""Specification: a catalog-managed table opened by its Unity Catalog name shows which of its
staged commits the catalog ratified; opened by path, it cannot know ("status unknown").

The table is made as the Unity Catalog managed-tables specification (1.0) has a client
make one, against the live server of ``tests/unity_server.py``: ``createStagingTable``,
the initial commit written at the location the server allocated (with the protocol and
properties it requires: ``catalogManaged``), ``createTable``; then a commit is staged
(``_delta_log/_staged_commits/<version>.<uuid>.json``, PROTOCOL.md "Catalog-managed
tables") and ratified with ``updateTable``'s ``add-commit``, and another attempt at the
next version is staged and never ratified. Nothing is published, as a writer that
crashed before publishing leaves it. No engine here writes catalog-managed tables through
Unity Catalog (Delta on Spark needs Unity Catalog's Spark connector, not on this machine),
so the test writes the commits itself, as the protocol specifies.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pytest

from inspector.delta.errors import ExitCode
from tests.conftest import one_error_line
from tests.conftest import run_main as run

DELTA = "/delta/v1/catalogs/unity/schemas"
SCHEMA = {
    "type": "struct",
    "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}],
}


def write_json_lines(path: Path, *actions: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(a) + "\n" for a in actions))
    return path


def commit_info(operation: str, ict: int, read_version: int | None = None) -> dict:
    info = {"timestamp": ict, "inCommitTimestamp": ict, "operation": operation}
    info |= {"operationParameters": {}, "txnId": str(uuid.uuid4())}
    return {"commitInfo": info | ({} if read_version is None else {"readVersion": read_version})}


def append(name: str) -> dict:
    return {
        "add": {
            "path": name,
            "partitionValues": {},
            "size": 500,
            "modificationTime": int(time.time() * 1000),
            "dataChange": True,
            "stats": json.dumps({"numRecords": 3}),
        }
    }


@pytest.fixture
def managed(uc_server, tmp_path, monkeypatch):
    """A catalog-managed table made through the server, with commit 1 staged and ratified
    and an attempt at version 2 staged and never ratified: (name, root, ratified file)."""
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_URL", uc_server.url)
    schema = f"managed_{uuid.uuid4().hex[:8]}"
    uc_server.create_schema("unity", schema)
    staging = uc_server.call("POST", f"{DELTA}/{schema}/staging-tables", {"name": "ledger"})
    table_id, location = staging["table-id"], staging["location"]
    root = Path(urlparse(location).path)
    required = staging.get("required-protocol") or {}
    readers = sorted({"catalogManaged", *required.get("reader-features", [])})
    writers = sorted({"catalogManaged", "inCommitTimestamp", *required.get("writer-features", [])})
    properties = {k: v for k, v in (staging.get("required-properties") or {}).items() if v}
    properties |= {"delta.enableInCommitTimestamps": "true", "io.unitycatalog.tableId": table_id}
    created = int(time.time() * 1000) - 60_000
    write_json_lines(
        root / "_delta_log" / f"{0:020d}.json",
        commit_info("CREATE TABLE", created),
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7}
         | {"readerFeatures": readers, "writerFeatures": writers}},
        {
            "metaData": {
                "id": table_id,
                "format": {"provider": "parquet", "options": {}},
                "schemaString": json.dumps(SCHEMA),
                "partitionColumns": [],
                "configuration": properties,
                "createdTime": created,
            }
        },
    )  # fmt: skip
    uc_server.call(
        "POST",
        f"{DELTA}/{schema}/tables",
        {
            "name": "ledger",
            "location": location,
            "table-type": "MANAGED",
            "columns": SCHEMA,
            "partition-columns": [],
            "protocol": {"min-reader-version": 3, "min-writer-version": 7}
            | {"reader-features": readers, "writer-features": writers},
            "properties": properties,
            "last-commit-timestamp-ms": created,
        },
    )
    staged = root / "_delta_log" / "_staged_commits"
    ratified = write_json_lines(
        staged / f"{1:020d}.{uuid.uuid4()}.json",
        commit_info("WRITE", created + 1000, 0),
        append("part-1.parquet"),
    )
    stat = ratified.stat()
    commit = {
        "version": 1,
        "timestamp": created + 1000,
        "file-name": ratified.name,
        "file-size": stat.st_size,
        "file-modification-timestamp": int(stat.st_mtime * 1000),
    }
    uc_server.call(
        "POST",
        f"{DELTA}/{schema}/tables/ledger",
        {
            "requirements": [{"type": "assert-table-uuid", "uuid": table_id}],
            "updates": [{"action": "add-commit", "commit": commit}],
        },
    )
    write_json_lines(
        staged / f"{2:020d}.{uuid.uuid4()}.json",
        commit_info("WRITE", created + 2000, 1),
        append("part-2.parquet"),
    )
    return f"uc://unity.{schema}.ledger", root, ratified.name


def test_by_name_the_catalog_says_which_staged_commits_it_ratified(capsys, managed):
    name, _, ratified = managed
    code, out, err = run(capsys, "history", name, "--json")
    assert code == 0, err
    history = json.loads(out)
    assert [(e["version"], e["staged"]) for e in history] == [
        (2, "not ratified"),
        (1, "ratified, not yet published"),
        (0, None),
    ]
    code, out, err = run(capsys, "check", name, "--json")
    staged = json.loads(out)["stagedCommits"]
    assert [(s["version"], s["status"]) for s in staged][0] == (1, "ratified, not yet published")
    assert staged[0]["file"].endswith(ratified)


def test_by_path_the_same_staged_commits_are_of_unknown_status(capsys, managed):
    _, root, _ = managed
    code, out, err = run(capsys, "history", root, "--json")
    assert code == 0, err
    assert [e["staged"] for e in json.loads(out)] == [
        "staged, status unknown",
        "staged, status unknown",
        None,
    ]


def test_a_vacuum_plan_by_name_names_the_table_to_vacuum_through_the_catalog(capsys, managed):
    name, _, _ = managed
    code, _, err = run(capsys, "vacuum-plan", name)
    assert code == ExitCode.BAD_INPUT
    full = name.removeprefix("uc://")
    assert f"run `VACUUM {full}` by its catalog name ({name})" in one_error_line(err)
