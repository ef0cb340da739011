"""The app opens tables in Azure Blob / ADLS Gen2 (Azurite on loopback, AppTest): by
``?table=abfss://...`` or ``az://...``, with the options from the ``AZURE_*`` variables or
the ``storage_options`` setting, and never shows or stores the account key."""

from __future__ import annotations

import json
import os

import pytest
from streamlit.testing.v1 import AppTest

from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS, REPO
from tests.object_stores import AZURITE_ACCOUNT, AZURITE_KEY

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit
ABFSS_ROOT = f"abfss://tables@{AZURITE_ACCOUNT}.dfs.core.windows.net"


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh app session with no cloud variables and its recent tables in a temp dir."""
    for key in list(os.environ):
        if key.startswith(("AWS_", "AZURE_", "AZURITE_", "GOOGLE_", "DELTA_INSPECTOR_STORAGE")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DELTA_INSPECTOR_RECENT_TABLES_FILE", str(tmp_path / "recent.json"))
    monkeypatch.setenv("DELTA_INSPECTOR_DEMO_PATH", str(tmp_path / "demo"))
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=120)


def shown(at: AppTest) -> str:
    """Every text the page shows."""
    parts = [*at.error, *at.success, *at.markdown, *at.info, *at.caption, *at.code, *at.subheader]
    return "\n".join(str(e.value) for e in parts)


def test_a_link_opens_an_abfss_table_with_options_from_the_setting(
    app, monkeypatch, azurite, tmp_path
):
    uri = azurite.upload(PARTITIONED).replace("az://tables", ABFSS_ROOT, 1)
    monkeypatch.setenv(
        "DELTA_INSPECTOR_STORAGE_OPTIONS",
        "\n".join(f"{k}={v}" for k, v in azurite.options.items()),
    )
    app.query_params.update(table=uri, version="1", view="version")
    at = app.run()

    assert not at.exception and not at.error, shown(at)
    assert "Version 1 · WRITE" in [h.value for h in at.subheader]
    assert at.query_params["table"] == uri
    recent = (tmp_path / "recent.json").read_text()
    assert json.loads(recent)[0] == uri
    assert AZURITE_KEY not in recent + shown(at)


def test_the_health_page_of_an_az_table_missing_its_newest_file_offers_version_13(
    app, monkeypatch, azurite, copy_table
):
    local = copy_table(APPENDS)
    uri = azurite.upload(local)
    azurite.delete(f"{uri}/{DeltaLog.open(str(local)).commit(14).adds[0].path}")
    for key, value in azurite.options.items():
        monkeypatch.setenv(key, value)
    app.query_params.update(table=uri, view="health")
    at = app.run()
    at.button(key="health_run").click().run()

    assert not at.exception
    assert "**incomplete**" in at.error[0].value
    assert [m.value for m in at.metric][:2] == ["14", "13"]
    assert "--to-version 13" in at.code[0].value
    assert AZURITE_KEY not in shown(at)


def test_a_wrong_account_key_is_an_error_that_does_not_show_it(app, monkeypatch, azurite):
    uri = azurite.upload(PARTITIONED)
    wrong = "bm90IHRoZSBrZXkgYnV0IGJhc2U2NCBhbGwgdGhlIHNhbWUgbm90IHRoZSBrZXk="
    options = {**azurite.options, "AZURE_STORAGE_ACCOUNT_KEY": wrong}
    monkeypatch.setenv(
        "DELTA_INSPECTOR_STORAGE_OPTIONS", "\n".join(f"{k}={v}" for k, v in options.items())
    )
    app.query_params.update(table=uri)
    at = app.run()

    assert not at.exception
    assert "refused access" in "\n".join(e.value for e in at.error)
    assert wrong not in shown(at) and AZURITE_KEY not in shown(at)
