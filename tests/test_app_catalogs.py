"""The app opens tables by name: ``?table=glue://...`` links, the sidebar's catalog browser,
recent tables kept by name, and a header that shows the name and the resolved location.

Glue is moto's server on loopback (the same process holds the tables in S3).
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, open_app
from tests.glue_catalog import register_plain_form, register_spark_form
from tests.object_stores import clear_cloud_env, closed_port_endpoint

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"


@pytest.fixture
def app(monkeypatch, tmp_path, s3_server):
    """A fresh app session reaching moto (S3 and Glue) through the environment's options."""
    clear_cloud_env(monkeypatch)
    monkeypatch.setenv("DELTA_INSPECTOR_STORAGE_OPTIONS", s3_server.options_text)
    return open_app(monkeypatch, tmp_path)


def markdown(text: str) -> str:
    """Text as the app writes it in Markdown (underscores escaped)."""
    return text.replace("_", "\\_")


def errors_text(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


def test_a_link_by_name_opens_the_table_and_keeps_the_name(app, s3_server, glue, tmp_path):
    client, database = glue
    uri = s3_server.upload(PARTITIONED)
    name = register_spark_form(client, database, "orders", uri)
    app.query_params.update(table=name, version="1", view="version")
    at = app.run()

    assert not at.exception and not at.error, errors_text(at)
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert at.query_params["table"] == name
    assert f"#### {markdown(name)}" in [m.value for m in at.markdown]  # the header: the name ...
    assert any(f"resolved to `{uri}`" in c.value for c in at.caption)  # ... and the location
    recent = (tmp_path / "recent.json").read_text()
    assert json.loads(recent)[0] == name
    assert s3_server.options["AWS_SECRET_ACCESS_KEY"] not in recent


def test_an_unknown_name_is_one_error_and_no_traceback(app, glue):
    _, database = glue
    app.query_params.update(table=f"glue://{database}.nope")
    at = app.run()

    assert not at.exception
    assert f"Glue has no table 'nope' in database '{markdown(database)}'" in errors_text(at)


def test_the_catalog_browser_lists_tables_with_format_and_location_and_opens_one(
    app, s3_server, glue
):
    client, database = glue
    uri = s3_server.upload(PARTITIONED)
    name = register_plain_form(client, database, "orders", uri)
    register_plain_form(client, database, "events", "s3://tables/events", kind="parquet")
    at = app.run()
    at = at.toggle(key="_browse_on").set_value(True).run()
    at = at.selectbox(key="_browse_kind").select("AWS Glue").run()
    at = at.selectbox(key="_browse_catalog").select("glue").run()
    at = at.selectbox(key="_browse_schema").select(database).run()
    captions = [c.value for c in at.sidebar.caption]
    assert f"{markdown(name)} · delta · `{uri}`" in captions
    assert any("events · parquet" in c for c in captions)
    assert at.button(key=f"_browse_open_glue://{database}.events").disabled

    at = at.text_input(key="_browse_search").set_value("ord").run()
    assert "1 of 2 table(s)" in [c.value for c in at.sidebar.caption]
    at = at.button(key=f"_browse_open_{name}").click().run()
    assert not at.exception and not at.error, errors_text(at)
    assert at.query_params["table"] == name


def test_an_unreachable_unity_catalog_is_one_error_that_never_shows_the_token(
    app, monkeypatch, tmp_path
):
    token = "dapi-do-not-show-this-token"
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_URL", closed_port_endpoint())
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_TOKEN", token)
    app.query_params.update(table="uc://main.sales.orders")
    at = app.run()

    assert not at.exception
    assert "Cannot reach the Unity Catalog server" in errors_text(at)
    shown = " ".join(e.value for e in [*at.error, *at.markdown, *at.caption])
    assert token not in shown
    assert token not in json.dumps(dict(at.query_params))
    assert (
        not (tmp_path / "recent.json").exists()
        or token not in (tmp_path / "recent.json").read_text()
    )
