"""The Timeline's filters by user and engine (AppTest), beside those by operation and time.

A version is shown when its userName or engineInfo is one of those chosen; choosing none
shows every version. Tables: Databricks's in the corpus, whose commits record a userName,
and open-source Delta's, whose commits record none but name two engines.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS

DATABRICKS = CORPUS / "delta-kernel-rs" / "cdf-table-with-cdc-and-dvs"
TWO_ENGINES = CORPUS / "delta-rs" / "checkpoint-cdf-table"  # versions 3 to 5, Spark and Delta


def _timeline(at: AppTest, table: object) -> AppTest:
    at.query_params["table"] = str(table)
    return at.run()


def _shown(at: AppTest) -> list[int]:
    return list(at.dataframe[0].value["version"])


def test_choosing_an_engine_shows_the_versions_it_wrote(app):
    at = _timeline(app, TWO_ENGINES)
    assert _shown(at) == [5, 4, 3]

    at.multiselect(key="timeline_engines").select("Apache-Spark/3.5.1 Delta-Lake/3.2.1").run()

    assert not at.exception and not at.error
    assert _shown(at) == [5, 4]


def test_on_open_source_delta_the_user_filter_says_no_version_records_a_user(app):
    at = _timeline(app, TWO_ENGINES)

    users = at.multiselect(key="timeline_users")
    assert users.disabled and users.options == []
    assert "No version records a userName" in users.placeholder


def test_user_and_operation_filters_combine(app):
    at = _timeline(app, DATABRICKS)
    assert len(_shown(at)) == 26

    at.multiselect(key="timeline_users").select("patrick.jin@databricks.com").run()
    assert len(_shown(at)) == 26  # one user wrote every version
    at.multiselect(key="timeline_ops").select("DELETE").run()

    assert not at.exception and not at.error
    assert set(at.dataframe[0].value["operation"]) == {"DELETE"}
    assert set(at.dataframe[0].value["user"]) == {"patrick.jin@databricks.com"}
