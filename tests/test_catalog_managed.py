"""Specification: a catalog-managed table's staged commits are shown and marked, and nothing
offers to change such a table by path.

The tables are the corpus's catalog-managed ones, written by Delta on Spark with their
staged commits as the protocol lays them out (``_delta_log/_staged_commits/<version>.<uuid>.json``,
PROTOCOL.md "Catalog-managed tables"): ``delta-kernel-rs/uc__catalog_managed_0``
(``catalogManaged``, version 0 published, 1 and 2 staged),
``delta-kernel-java/catalog-owned-preview`` (the same table from Delta's own tests) and
``delta-kernel-java/benchmark-basic_catalog_managed`` (0 and 1 published, 2 and 3 staged).
The older name, ``catalogOwned-preview`` (Delta 4.0), is written here into a copy of the
first one's protocol: no table in the corpus carries it. Opened by path there is no
catalog to ask, so each staged commit is "staged, status unknown";
``tests/test_catalog_unity_live.py`` asks a live Unity Catalog server which it ratified.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.delta.errors import ExitCode
from tests.conftest import one_error_line, open_app
from tests.conftest import run_main as run

MANAGED = "delta-kernel-rs/uc__catalog_managed_0"
PREVIEW = "delta-kernel-java/catalog-owned-preview"
TWO_PUBLISHED = "delta-kernel-java/benchmark-basic_catalog_managed"
UNKNOWN = "staged, status unknown"


def as_catalog_owned_preview(root: Path) -> Path:
    """The table's protocol with Delta 4.0's name for the feature (``catalogOwned-preview``)."""
    first = root / "_delta_log" / f"{0:020d}.json"
    first.write_text(first.read_text().replace('"catalogManaged"', '"catalogOwned-preview"'))
    return root


@pytest.mark.parametrize("feature", ["catalogManaged", "catalogOwned-preview"])
def test_the_history_shows_staged_commits_first_each_marked_status_unknown(
    capsys, copy_table, feature
):
    root = copy_table(MANAGED)
    if feature != "catalogManaged":
        as_catalog_owned_preview(root)
    code, out, err = run(capsys, "history", root, "--json")
    assert code == 0, err
    history = json.loads(out)
    assert [(e["version"], e["staged"]) for e in history] == [(2, UNKNOWN), (1, UNKNOWN), (0, None)]
    assert history[0]["operation"] == "WRITE"  # read from the staged commit itself

    code, out, err = run(capsys, "history", root)
    assert out.count(f"~ staged commit: {UNKNOWN}") == 2


def test_a_plain_table_with_an_empty_staged_folder_has_no_staged_commits(capsys, copy_table):
    root = copy_table("dat-v0.0.2/basic_append/delta")
    (root / "_delta_log" / "_staged_commits").mkdir()  # Delta 4.4 leaves one on plain tables
    code, out, err = run(capsys, "history", root, "--json")
    assert code == 0, err
    assert {e["staged"] for e in json.loads(out)} == {None}


def test_staged_files_of_a_table_that_is_not_catalog_managed_are_not_versions(capsys, copy_table):
    root = copy_table("dat-v0.0.2/basic_append/delta")
    staged = root / "_delta_log" / "_staged_commits"
    staged.mkdir()
    newest = max((root / "_delta_log").glob("*.json"))
    version = int(newest.name[:20]) + 1
    (staged / f"{version:020d}.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json").write_bytes(
        newest.read_bytes()
    )
    code, out, err = run(capsys, "history", root, "--json")
    assert code == 0, err
    assert max(e["version"] for e in json.loads(out)) == version - 1


def test_the_health_check_lists_the_staged_commits_with_their_status(capsys, copy_table):
    root = copy_table(TWO_PUBLISHED)
    code, out, err = run(capsys, "check", root, "--json")
    assert code == 0, err
    staged = json.loads(out)["stagedCommits"]
    assert [(s["version"], s["status"]) for s in staged] == [(2, UNKNOWN), (3, UNKNOWN)]
    assert staged[0]["file"].startswith("_delta_log/_staged_commits/00000000000000000002.")

    code, out, err = run(capsys, "check", root)
    assert "~ staged commit, version 3 (00000000000000000003." in out


def test_a_restore_by_path_is_refused_with_one_reason_that_nothing_in_the_plan_contradicts(
    capsys, copy_table
):
    root = copy_table(TWO_PUBLISHED)
    code, out, err = run(capsys, "restore", root, "--to-version", "0", "--dry-run", "--json")
    assert code == ExitCode.RESTORE_REFUSED, err
    answer = json.loads(out)
    plan = answer["plan"]
    failing = [g for g in answer["guards"] if not g["passed"]]
    assert [g["name"] for g in failing] == ["not_catalog_managed"]
    reason = failing[0]["message"]
    assert "catalog-managed (catalogManaged)" in reason
    assert "uc://CATALOG.SCHEMA.TABLE" in reason  # opened by path: by its catalog name
    assert "RESTORE TABLE CATALOG.SCHEMA.TABLE TO VERSION AS OF 0" in reason
    assert plan["engines"]["commit"] == "catalog"

    code, out, err = run(capsys, "restore", root, "--to-version", "0", "--dry-run")
    assert "Delta Lake commits" not in out and "Delta Inspector commits" not in out
    assert "with Spark and Delta Lake instead" not in out
    assert "only the table's catalog commits" in out


def test_the_catalog_managed_reason_gives_the_unity_catalog_table_id(capsys, copy_table):
    root = copy_table(MANAGED)
    # Only version 0 is published: no earlier version to restore to, so the vacuum plan
    # shows the reason here.
    code, out, err = run(capsys, "vacuum-plan", root)
    assert code == ExitCode.BAD_INPUT
    line = one_error_line(err)
    assert "catalog-managed (catalogManaged)" in line and "only its catalog may vacuum it" in line
    assert "table id is 64dcd182-b3b4-4ee0-88e0-63c159a4121c" in line
    assert "`VACUUM CATALOG.SCHEMA.TABLE`" in line


def test_a_vacuum_plan_by_path_is_refused_in_one_line(capsys, copy_table):
    root = as_catalog_owned_preview(copy_table(PREVIEW))
    code, out, err = run(capsys, "vacuum-plan", root, "--json")
    assert code == ExitCode.BAD_INPUT
    assert json.loads(out)["error"]["type"] == "UnsupportedFeature"
    assert "catalogOwned-preview" in one_error_line(err)


@pytest.mark.parametrize("view", ["timeline", "health"])
def test_the_timeline_and_the_health_page_mark_the_staged_commits(
    copy_table, monkeypatch, tmp_path, view
):
    root = copy_table(TWO_PUBLISHED)
    at = open_app(monkeypatch, tmp_path, timeout=60, table=str(root))
    at.query_params["view"] = view
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("**2 staged commit(s)**" in w.value for w in at.warning)
    (shown,) = [d.value for d in at.dataframe if "staged" in d.value.columns]
    assert list(zip(shown["version"], shown["staged"], strict=True)) == [(3, UNKNOWN), (2, UNKNOWN)]
