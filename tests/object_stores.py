"""Real object stores for the tests, started on 127.0.0.1 free ports and stopped afterwards.

- S3: moto's server (``moto[server]``, ``ThreadedMotoServer``), which honours
  ``If-None-Match: *`` (create-if-absent).

Each fixture yields a :class:`Store` that can upload a local table and gives the
storage options a user would pass (credentials and endpoint, delta-rs names).
Registered from ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

S3_KEY_ID, S3_SECRET = "testing-key-id", "testing-secret-key"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Store]:
    """moto's S3 server on a free loopback port, with one bucket; stopped after the session."""
    import boto3
    from moto.server import ThreadedMotoServer
    from obstore.store import S3Store

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
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
        server.stop()


def closed_port_endpoint() -> str:
    """An endpoint on loopback where nothing listens (a store that cannot be reached)."""
    return f"http://127.0.0.1:{free_port()}"
