"""The open-source Unity Catalog server for the tests, when one is available.

``DELTA_INSPECTOR_TEST_UC_SERVER`` names it: the URL of a running server, or the folder
of a server distribution (with ``bin/start-uc-server``). A folder is copied, so the
server starts with its own fresh file database, started on a free loopback port (Java
17) and stopped afterwards. Without the variable the tests that need it are skipped:
``io.unitycatalog:unitycatalog-server`` is published neither on Maven Central nor on
PyPI, and no fake catalog stands in for it (docs/catalogs.md).

Registered from ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.object_stores import free_port

UC_SERVER_ENV = "DELTA_INSPECTOR_TEST_UC_SERVER"
API = "/api/2.1/unity-catalog"


class UnityServer:
    """A running Unity Catalog server and the calls the tests make to register tables."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        """One REST call; returns the JSON answer (raises urllib's HTTPError on errors)."""
        request = urllib.request.Request(
            self.url + API + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")

    def create_schema(self, catalog: str, schema: str) -> None:
        """Create a catalog (when absent) and a schema in it."""
        try:
            self.call("POST", "/catalogs", {"name": catalog})
        except urllib.error.HTTPError as exc:
            if exc.code != 409:  # already exists
                raise
        self.call("POST", "/schemas", {"name": schema, "catalog_name": catalog})

    def register(
        self, catalog: str, schema: str, name: str, location: str, kind: str = "DELTA"
    ) -> str:
        """Register an external table at a location; returns its ``uc://`` name."""
        column = {
            "name": "id",
            "type_text": "bigint",
            "type_json": json.dumps({"name": "id", "type": "long", "nullable": True}),
            "type_name": "LONG",
            "position": 0,
            "nullable": True,
        }
        self.call(
            "POST",
            "/tables",
            {
                "name": name,
                "catalog_name": catalog,
                "schema_name": schema,
                "table_type": "EXTERNAL",
                "data_source_format": kind,
                "storage_location": location,
                "columns": [column],
            },
        )
        return f"uc://{catalog}.{schema}.{name}"


def _wait_until_serving(server: UnityServer, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"The UC server exited with {process.returncode}: {log.read_text()[-2000:]}"
            )
        try:
            server.call("GET", "/catalogs")
            return
        except (urllib.error.URLError, OSError):
            try:  # a bounded wait between polls, which ends early if the server exits
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
    pytest.fail(f"The UC server did not answer within 180 s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def uc_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UnityServer]:
    """The Unity Catalog server named by ``DELTA_INSPECTOR_TEST_UC_SERVER``, or a skip."""
    given = os.environ.get(UC_SERVER_ENV, "").strip()
    if not given:
        pytest.skip(
            f"no Unity Catalog server: set {UC_SERVER_ENV} to a server's URL or distribution "
            "folder (unitycatalog-server is not on Maven Central or PyPI)"
        )
    if given.startswith(("http://", "https://")):
        yield UnityServer(given)
        return
    folder = tmp_path_factory.mktemp("unity-catalog") / "server"
    shutil.copytree(given, folder, symlinks=True)
    port, log = free_port(), folder.parent / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(folder / "bin" / "start-uc-server"), "-p", str(port)],
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the script starts java: stop the whole group
        )
    server = UnityServer(f"http://127.0.0.1:{port}")
    try:
        _wait_until_serving(server, process, log)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
