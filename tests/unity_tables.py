"""Tables registered in the Unity Catalog server of ``tests/unity_server.py``, for the CLI's
and the app's ``uc://`` tests. Registered from ``tests/conftest.py`` (``pytest_plugins``).

The server is reached through a recording proxy (``tests/recording_proxy.py``), so a test
reads off it which operation each credentials request asked for.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator

import pytest

from tests.object_stores import clear_cloud_env
from tests.recording_proxy import RecordingProxy

CDF_TABLE = "delta-kernel-rs/cdf-table"  # partitioned, change data feed, versions 0..3
URL_ENV, TOKEN_ENV = "DELTA_INSPECTOR_UNITY_CATALOG_URL", "DELTA_INSPECTOR_UNITY_CATALOG_TOKEN"


@pytest.fixture
def proxy(uc_server, monkeypatch) -> Iterator[RecordingProxy]:
    """The server behind a recording proxy, set as the user sets the server's URL."""
    with RecordingProxy(uc_server.url) as recording:
        monkeypatch.setenv(URL_ENV, recording.url)
        if uc_server.token:
            monkeypatch.setenv(TOKEN_ENV, uc_server.token)
        yield recording


@pytest.fixture
def schema(uc_server, proxy) -> str:
    """A fresh schema in catalog ``unity``."""
    name = f"sales_{uuid.uuid4().hex[:8]}"
    uc_server.create_schema("unity", name)
    return name


@pytest.fixture
def local(uc_server, schema, tmp_path, monkeypatch) -> tuple[str, str]:
    """The change-data table at a local path, registered: (its ``uc://`` name, its path)."""
    from tests.conftest import CORPUS

    clear_cloud_env(monkeypatch)
    root = shutil.copytree(CORPUS / CDF_TABLE, tmp_path / "orders")
    return uc_server.register("unity", schema, "orders", root.as_uri()), str(root)


@pytest.fixture
def in_s3(uc_server, schema, s3_server, monkeypatch) -> tuple[str, str]:
    """The change-data table in moto's S3, registered: (its ``uc://`` name, its URI).

    The environment gives the endpoint (and moto's static keys, which the path uses);
    the name uses the credentials the server vends from moto's STS over them.
    """
    from tests.conftest import CORPUS

    clear_cloud_env(monkeypatch)
    monkeypatch.setenv("DELTA_INSPECTOR_STORAGE_OPTIONS", s3_server.options_text)
    uri = s3_server.upload(CORPUS / CDF_TABLE, "orders")
    return uc_server.register("unity", schema, "orders", uri), uri
