"""The app on tables in Azure Blob / ADLS Gen2 (Azurite on loopback, AppTest): the Health
page of an ``az://`` table with the options from the ``AZURE_*`` variables, and a wrong key
in the ``storage_options`` setting; the account key is never shown. (Opening one by an
``abfss://`` link: ``tests/test_app_object_storage.py``.)"""

from __future__ import annotations

import pytest

from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS, open_app, page_text
from tests.object_stores import AZURITE_KEY, clear_cloud_env, options_text

PARTITIONED = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh app session with no cloud variables and its recent tables in a temp dir."""
    clear_cloud_env(monkeypatch)
    return open_app(monkeypatch, tmp_path)


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
    assert AZURITE_KEY not in page_text(at)


def test_a_wrong_account_key_is_an_error_that_does_not_show_it(app, monkeypatch, azurite):
    uri = azurite.upload(PARTITIONED)
    wrong = "bm90IHRoZSBrZXkgYnV0IGJhc2U2NCBhbGwgdGhlIHNhbWUgbm90IHRoZSBrZXk="
    options = {**azurite.options, "AZURE_STORAGE_ACCOUNT_KEY": wrong}
    monkeypatch.setenv("DELTA_INSPECTOR_STORAGE_OPTIONS", options_text(options))
    app.query_params.update(table=uri)
    at = app.run()

    assert not at.exception
    assert "refused access" in "\n".join(e.value for e in at.error)
    assert wrong not in page_text(at) and AZURITE_KEY not in page_text(at)
