"""The app opens a table in an object store (moto, Azurite and fake-gcs-server on loopback):
by a link (``?table=s3://...``, ``abfss://...``, ``gs://...``), with storage options from
the environment or the sidebar, and never shows or stores a secret."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, open_app, page_text
from tests.object_stores import abfss, clear_cloud_env, closed_port_endpoint, options_text

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
V1_FILE = "letter=e/part-00000-847cf2d1-1247-4aa0-89ef-2f90c68ea51e.c000.snappy.parquet"
SECRET = "do-not-show-this-secret"


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh app session with no cloud variables and its recent tables in a temp dir."""
    clear_cloud_env(monkeypatch)
    return open_app(monkeypatch, tmp_path)


def errors_text(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


#: By scheme: the store's fixture, the table's URI as a user writes it, the secret option.
LINKED = {
    "s3": ("s3_server", str, "AWS_SECRET_ACCESS_KEY"),
    "abfss": ("azurite", abfss, "AZURE_STORAGE_ACCOUNT_KEY"),
    "gs": ("gcs_server", str, "GOOGLE_SERVICE_ACCOUNT_KEY"),
}


@pytest.mark.parametrize("scheme", sorted(LINKED))
def test_a_link_opens_a_table_in_a_store_with_options_from_the_setting(
    app, monkeypatch, request, tmp_path, scheme
):
    fixture, as_written, secret = LINKED[scheme]
    store = request.getfixturevalue(fixture)
    uri = as_written(store.upload(PARTITIONED))
    monkeypatch.setenv("DELTA_INSPECTOR_STORAGE_OPTIONS", store.options_text)
    app.query_params.update(table=uri, version="1", view="version")
    at = app.run()

    assert not at.exception and not at.error, errors_text(at)
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert at.query_params["table"] == uri
    recent = (tmp_path / "recent.json").read_text()
    assert json.loads(recent)[0] == uri
    assert store.options[secret] not in recent + page_text(at)


def test_options_typed_in_the_sidebar_open_the_table_and_a_secret_is_never_shown(
    app, s3_server, tmp_path
):
    uri = s3_server.upload(PARTITIONED)
    unreachable = {**s3_server.options, "AWS_ENDPOINT_URL": closed_port_endpoint()}
    unreachable["AWS_SECRET_ACCESS_KEY"] = SECRET
    at = app.run()
    at.text_input(key="table_input").set_value(uri).run()
    area = at.text_area(key="_storage_options_text")
    at = area.set_value(options_text(unreachable)).run()

    assert not at.exception
    assert at.error, "an unreachable endpoint is an error"
    assert SECRET not in errors_text(at)

    good = s3_server.options_text
    at = at.text_area(key="_storage_options_text").set_value(good).run()
    assert not at.exception and not at.error, errors_text(at)
    assert at.query_params["table"] == uri
    assert "_storage" not in json.dumps(dict(at.query_params))
    assert s3_server.options["AWS_SECRET_ACCESS_KEY"] not in (tmp_path / "recent.json").read_text()
