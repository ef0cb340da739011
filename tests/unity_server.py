"""A real Unity Catalog server for the tests: ``uc-server`` on loopback, with a fresh store.

``uc-server`` is the server of the crate ``olai-uc-server`` (crates.io; Unity Catalog's
REST API, written in Rust), pinned in ``tests/uc-server.version`` and installed with
``cargo install --locked`` into ``~/.cargo/bin`` once per machine. ``./dev.sh test``
starts that build in the background, unoptimized (about 7 minutes); the tests that need the
server run last (:func:`pytest_collection_modifyitems`) and wait for the build, boundedly,
then fail with one line saying why if there is still no server: they are never skipped.

The session's server keeps its store in a fresh SQLite file in its own folder (migrated
with ``uc-server migrate`` before it serves; its secrets sealed under a key made for the
run). Not ``:memory:``: the server's pool closes an idle connection after ten minutes, and
an in-memory database goes with it (``no such table: objects`` from then on). It allows ``file://`` tables under the run's temporary folder. One storage credential (an
AWS IAM role) governs two external locations: that folder and moto's ``s3://tables``
bucket. Vending for the bucket goes through :class:`tests.recording_proxy.StsInterceptor`
to moto's STS, so the credentials the server vends are ones moto issued. Authorization is
off in uc-server (every request is anonymous; a bearer token is ignored).

``DELTA_INSPECTOR_TEST_UC_SERVER`` points the tests at another server instead: the URL
of a running one (the Java server, a Databricks workspace with
``DELTA_INSPECTOR_TEST_UC_TOKEN``), or the folder of a Java server distribution (with
``bin/start-uc-server``), copied and started here. Registered from ``tests/conftest.py``.
"""

from __future__ import annotations

import base64
import contextlib
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

from tests.object_stores import S3_KEY_ID, S3_SECRET, Store, free_port
from tests.recording_proxy import StsInterceptor

UC_SERVER_ENV = "DELTA_INSPECTOR_TEST_UC_SERVER"
UC_TOKEN_ENV = "DELTA_INSPECTOR_TEST_UC_TOKEN"
#: The folder of a build ``./dev.sh test`` started (``log``, ``pid``; ``rc`` once it ends).
BUILD_ENV = "DELTA_INSPECTOR_UC_SERVER_BUILD"
#: How long the tests wait for that build, in minutes.
BUILD_WAIT_ENV = "DELTA_INSPECTOR_UC_SERVER_BUILD_WAIT_MINUTES"
API = "/api/2.1/unity-catalog"
VERSION = (Path(__file__).parent / "uc-server.version").read_text().strip()
# Unoptimized, as ./dev.sh builds it: about 7 minutes, not 20-60, for a test server.
INSTALL = (
    "CARGO_PROFILE_RELEASE_OPT_LEVEL=0 "
    f"cargo install olai-uc-server --version {VERSION} --features bin --locked"
)
CREDENTIAL = "tests_storage"
ROLE = "arn:aws:iam::123456789012:role/delta-inspector-tests"


class UnityServer:
    """A running Unity Catalog server and the calls the tests make to register tables."""

    def __init__(self, url: str, token: str = "") -> None:
        self.url = url.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """One REST call under ``/api/2.1/unity-catalog``; returns the JSON answer.

        Raises:
            urllib.error.HTTPError: On an error answer.
        """
        request = urllib.request.Request(
            self.url + API + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        bearer = self.token if token is None else token
        if bearer:
            request.add_header("Authorization", f"Bearer {bearer}")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")

    def create_schema(self, catalog: str, schema: str, **extra: Any) -> None:
        """Create a catalog (when absent) and a schema in it."""
        try:
            self.call("POST", "/catalogs", {"name": catalog, **extra})
        except urllib.error.HTTPError as exc:
            if exc.code not in (400, 409):  # already exists
                raise
        self.call("POST", "/schemas", {"name": schema, "catalog_name": catalog})

    def govern(self, url: str, name: str) -> None:
        """Register an external location at ``url`` under the tests' storage credential."""
        body = {"name": name, "url": url, "credential_name": CREDENTIAL, "skip_validation": True}
        self.call("POST", "/external-locations", body)

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that need the server last: its first build overlaps every other test."""
    needs = [i for i in items if "uc_server" in getattr(i, "fixturenames", ())]
    rest = [i for i in items if "uc_server" not in getattr(i, "fixturenames", ())]
    items[:] = rest + needs


def installed_server() -> Path | None:
    """``uc-server`` at the pinned version, where cargo installs it; None when absent."""
    found = shutil.which("uc-server")
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    for candidate in ([Path(found)] if found else []) + [home / "bin" / "uc-server"]:
        try:
            out = subprocess.run(
                [str(candidate), "--version"], capture_output=True, text=True, timeout=30
            )
        except OSError:
            continue
        if out.stdout.split() == ["uc-server", VERSION]:
            return candidate
    return None


def wait_for_build() -> Path:
    """The installed server, waiting (boundedly) for a build ``./dev.sh test`` started."""
    found = installed_server()
    build = os.environ.get(BUILD_ENV, "")
    if found is None and build:
        folder = Path(build)
        minutes = float(os.environ.get(BUILD_WAIT_ENV) or 60)
        deadline = time.monotonic() + minutes * 60
        while not (folder / "rc").exists() and time.monotonic() < deadline:
            time.sleep(5)  # another process's build: its rc file is the only signal
        found = installed_server()
        if found is None:
            rc = (folder / "rc").read_text().strip() if (folder / "rc").exists() else None
            what = f"ended with exit {rc}" if rc else f"was not done after {minutes:g} minutes"
            tail = (folder / "log").read_text(errors="replace")[-1500:]
            pytest.fail(f"The uc-server build {what} (log: {folder / 'log'}):\n{tail}")
    if found is None:
        pytest.fail(
            f"uc-server {VERSION} is not installed: run ./dev.sh test (it builds it in the "
            f"background), or `{INSTALL}` (about 7 minutes), or set {UC_SERVER_ENV}."
        )
    return found


def _config(folder: Path, root: Path, extra: str) -> Path:
    config = folder / "uc-server.yaml"
    managed = root / "uc-managed"
    managed.mkdir(exist_ok=True)
    key = base64.b64encode(os.urandom(32)).decode()  # seals the tests' secrets; never kept
    config.write_text(
        f"backend:\n  engine: sqlite\n  path: '{folder / 'uc.db'}'\n"
        f"encryption:\n  active:\n    id: tests\n    key: '{key}'\n"
        f"local_storage:\n  allowed-roots: ['{root}']\n"
        f"managed_storage_root: '{managed.as_uri()}'\n"
        "ui:\n  serve: false\n" + extra
    )
    return config


def _serving(server: UnityServer, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"uc-server exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            server.call("GET", "/catalogs")
            return
        except urllib.error.HTTPError:
            return  # it answers (a server that refuses anonymous callers: 401)
        except (urllib.error.URLError, OSError):
            try:  # a bounded wait between polls, which ends early if the server exits
                process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
    pytest.fail(f"uc-server did not answer within 120 s: {log.read_text()[-2000:]}")


@contextlib.contextmanager
def running_server(
    binary: Path, folder: Path, root: Path, *, sts: StsInterceptor | None, extra: str = ""
) -> Iterator[UnityServer]:
    """``uc-server serve`` on a free loopback port with a fresh in-memory store; stopped
    (and waited for) on leaving. ``extra`` is more of its YAML configuration."""
    port, log = free_port(), folder / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    if sts is not None:
        env |= {"HTTPS_PROXY": sts.url, "NO_PROXY": "127.0.0.1,localhost"}
        env |= {"SSL_CERT_FILE": sts.ca_file}
    config = str(_config(folder, root, extra))
    migrated = subprocess.run(
        [str(binary), "migrate", "--config", config], capture_output=True, text=True, env=env
    )
    if migrated.returncode:
        pytest.fail(f"uc-server migrate exited with {migrated.returncode}: {migrated.stderr}")
    command = [str(binary), "serve", "--config", config]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port), "--no-ui"],
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**env, "RUST_LOG": "info"},
        )
    try:
        server = UnityServer(f"http://127.0.0.1:{port}")
        _serving(server, process, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _prepare(server: UnityServer, root: Path, bucket: str) -> None:
    role = {
        "role_arn": ROLE,
        "region": "us-east-1",
        "access_key_id": S3_KEY_ID,
        "secret_access_key": S3_SECRET,
    }
    body = {"name": CREDENTIAL, "purpose": "STORAGE", "aws_iam_role": role}
    server.call("POST", "/credentials", {**body, "skip_validation": True})
    server.govern(root.as_uri(), "tests_local")
    server.govern(bucket, "tests_s3")


@pytest.fixture(scope="session")
def sts(s3_server: Store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StsInterceptor]:
    """The proxy through which uc-server reaches moto's STS (see the module docstring)."""
    with StsInterceptor(s3_server.endpoint, tmp_path_factory.mktemp("sts")) as proxy:
        yield proxy


@pytest.fixture(scope="session")
def uc_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[UnityServer]:
    """The Unity Catalog server (``uc-server``, or the one ``DELTA_INSPECTOR_TEST_UC_SERVER`` names)."""
    given = os.environ.get(UC_SERVER_ENV, "").strip()
    if given.startswith(("http://", "https://")):
        yield UnityServer(given, os.environ.get(UC_TOKEN_ENV, ""))
        return
    if given:
        yield from _java_server(given, tmp_path_factory)
        return
    binary = wait_for_build()
    sts: StsInterceptor = request.getfixturevalue("sts")
    s3: Store = request.getfixturevalue("s3_server")
    root = tmp_path_factory.getbasetemp().resolve()
    folder = tmp_path_factory.mktemp("uc-server")
    with running_server(binary, folder, root, sts=sts) as server:
        _prepare(server, root, s3.uri_root)
        yield server


@pytest.fixture(scope="session")
def uc_server_with_authentication(
    uc_server: UnityServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[UnityServer]:
    """uc-server authenticating its callers: behind a reverse proxy that forwards who they
    are (``auth.mode: reverse-proxy``), so a caller with only a bearer token is refused
    (401). uc-server has no bearer-token authentication of its own."""
    if os.environ.get(UC_SERVER_ENV, "").strip():
        pytest.fail(f"{UC_SERVER_ENV} names a server: give it a bad token instead")
    root = tmp_path_factory.getbasetemp().resolve()
    folder = tmp_path_factory.mktemp("uc-server-auth")
    with running_server(
        wait_for_build(), folder, root, sts=None, extra="auth:\n  mode: reverse-proxy\n"
    ) as server:
        yield server


def _java_server(given: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[UnityServer]:
    """A Java server distribution, copied (a fresh file database) and started here."""
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
        _serving(server, process, log)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
