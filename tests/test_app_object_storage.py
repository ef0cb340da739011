"""The app opens a table in S3 (moto on loopback): by ``?table=s3://...``, with storage
options from the environment or the sidebar, and never shows or stores a secret."""

from __future__ import annotations

import json
import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, REPO
from tests.object_stores import closed_port_endpoint

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
V1_FILE = "letter=e/part-00000-847cf2d1-1247-4aa0-89ef-2f90c68ea51e.c000.snappy.parquet"
SECRET = "do-not-show-this-secret"


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh app session with no cloud variables and its recent tables in a temp dir."""
    for key in list(os.environ):
        if key.startswith(("AWS_", "AZURE_", "GOOGLE_", "DELTA_INSPECTOR_STORAGE")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DELTA_INSPECTOR_RECENT_TABLES_FILE", str(tmp_path / "recent.json"))
    monkeypatch.setenv("DELTA_INSPECTOR_DEMO_PATH", str(tmp_path / "demo"))
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=120)


def errors_text(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


def test_a_link_opens_an_s3_table_with_options_from_the_environment(
    app, monkeypatch, s3_server, tmp_path
):
    uri = s3_server.upload(PARTITIONED)
    monkeypatch.setenv(
        "DELTA_INSPECTOR_STORAGE_OPTIONS",
        "\n".join(f"{k}={v}" for k, v in s3_server.options.items()),
    )
    app.query_params.update(table=uri, version="1", view="version")
    at = app.run()

    assert not at.exception and not at.error, errors_text(at)
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert at.query_params["table"] == uri
    recent = (tmp_path / "recent.json").read_text()
    assert json.loads(recent)[0] == uri
    assert s3_server.options["AWS_SECRET_ACCESS_KEY"] not in recent


def test_options_typed_in_the_sidebar_open_the_table_and_a_secret_is_never_shown(
    app, s3_server, tmp_path
):
    uri = s3_server.upload(PARTITIONED)
    unreachable = {**s3_server.options, "AWS_ENDPOINT_URL": closed_port_endpoint()}
    unreachable["AWS_SECRET_ACCESS_KEY"] = SECRET
    at = app.run()
    at.text_input(key="table_input").set_value(uri).run()
    area = at.text_area(key="_storage_options_text")
    at = area.set_value("\n".join(f"{k}={v}" for k, v in unreachable.items())).run()

    assert not at.exception
    assert at.error, "an unreachable endpoint is an error"
    assert SECRET not in errors_text(at)

    good = "\n".join(f"{k}={v}" for k, v in s3_server.options.items())
    at = at.text_area(key="_storage_options_text").set_value(good).run()
    assert not at.exception and not at.error, errors_text(at)
    assert at.query_params["table"] == uri
    assert "_storage" not in json.dumps(dict(at.query_params))
    assert s3_server.options["AWS_SECRET_ACCESS_KEY"] not in (tmp_path / "recent.json").read_text()
