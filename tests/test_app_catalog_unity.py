"""Specification: in the app, a table opened by its Unity Catalog name (a ``?table=uc://...``
link, the sidebar, the catalog browser) shows what its location shows, and the app asks
the catalog for read credentials to look and for write credentials only to commit.

The server is the real one of ``tests/unity_server.py``; the app is driven with AppTest; the
operation of every credentials request is read off a recording proxy in front of the
server, so nothing here depends on how the app resolves tables inside.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from inspector.restore.audit import read_audit
from tests.conftest import open_app, page_text


def shown(at: AppTest) -> str:
    """What a page shows, but its header's first line: the table's name, or its folder (the
    line under it gives the location, which a name was "resolved to")."""
    assert not at.exception and not at.error, [e.value for e in at.error]
    lines = page_text(at).replace("resolved to ", "").splitlines()
    return "\n".join(line for line in lines if not line.startswith("#### "))


@pytest.mark.parametrize("view", ["version", "overview", "timeline", "health"])
@pytest.mark.parametrize("where", ["local", "in_s3"])
def test_a_page_by_name_shows_what_the_page_by_path_shows(
    request, where, view, monkeypatch, tmp_path, proxy
):
    name, path = request.getfixturevalue(where)
    pages = []
    for table in (name, path):
        at = open_app(monkeypatch, tmp_path, table=table, version="1", view=view)
        pages.append(shown(at.run()))
    assert pages[0] == pages[1]
    assert set(proxy.operations()) == {"READ"}


def test_the_catalog_browser_opens_a_unity_table_by_name(local, schema, monkeypatch, tmp_path):
    name, _ = local
    at = open_app(monkeypatch, tmp_path).run()
    at = at.toggle(key="_browse_on").set_value(True).run()
    at = at.selectbox(key="_browse_kind").select("Unity Catalog").run()
    at = at.selectbox(key="_browse_catalog").select("unity").run()
    at = at.selectbox(key="_browse_schema").select(schema).run()
    assert any(c.value.startswith(name.replace("_", "\\_")) for c in at.sidebar.caption)
    at = at.button(key=f"_browse_open_{name}").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["table"] == name


@pytest.mark.spark
def test_the_restore_page_asks_for_write_credentials_only_when_it_commits(
    spark, local, proxy, monkeypatch, tmp_path
):
    name, root = local
    at = open_app(monkeypatch, tmp_path, operator=True, table=name, view="restore")
    at.run()
    at.text_input(key="restore_target").input("1")
    at.button(key="restore_plan_button").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert set(proxy.operations()) == {"READ"}  # looking and planning read

    full = name.removeprefix("uc://")
    at.text_input(key="restore_confirm_table").input(full)
    at.text_input(key="restore_confirm_version").input("1")
    at.text_area(key="restore_reason").input("undo the bad delete").run()
    at.button(key="restore_commit").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert proxy.operations()[-1] == "READ_WRITE"  # asked at commit time
    entries = read_audit(str(tmp_path / "audit.jsonl"))
    assert [(e.name, e.outcome) for e in entries][-1] == (name, "committed")
    assert root  # the table at its location took the commit (the audit names both)


def test_vended_credentials_never_reach_the_page_the_link_or_recent_tables(
    in_s3, proxy, monkeypatch, tmp_path
):
    name, _ = in_s3
    at = open_app(monkeypatch, tmp_path, table=name, view="overview").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    vended = proxy.vends()[-1].answer["aws_temp_credentials"]  # from moto's STS
    recent = (tmp_path / "recent.json").read_text()
    assert json.loads(recent)[0] == name
    for secret in (vended["secret_access_key"], vended["session_token"]):
        assert secret not in page_text(at) + json.dumps(dict(at.query_params)) + recent
