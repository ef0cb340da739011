"""Health and ``check`` on a log with a 10,000-version gap: runs, not 10,000 rows.

Contiguous versions with the same state and problem collapse into one run, the runs
that matter (the latest version, the last consistent one) come first, and each
damaged file is listed once with the versions that need it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.health import ProblemKind, check_table
from inspector.health.runs import damaged_files, grouped_record, version_runs
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.conftest import open_app

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
GAP = 10_000


@pytest.fixture
def gapped(copy_table) -> Path:
    """Commits 0..13, then 10,000 commit files missing (14..10,013), a checkpoint at 10,014
    and commits 10,015..10,018; the data file of commit 1 is gone."""
    root = copy_table(APPENDS)
    log = root / "_delta_log"
    (log / "_last_checkpoint").unlink()
    (log / f"{10:020d}.checkpoint.parquet").rename(log / f"{14 + GAP:020d}.checkpoint.parquet")
    for version in (11, 12, 13, 14):
        shutil.copy(log / f"{version:020d}.json", log / f"{version + GAP + 4:020d}.json")
    (log / f"{14:020d}.json").unlink()
    (root / DeltaLog.open(str(root)).commit(1).adds[0].path).unlink()
    return root


def test_a_gap_is_one_run_and_the_versions_that_matter_come_first(gapped):
    report = check_table(DeltaLog.open(str(gapped)), all_versions=True, settings=Settings())
    runs = version_runs(report)

    assert len(report.versions) == 10_019
    assert [(r.label, r.status, r.summary, r.role) for r in runs] == [
        ("versions 10,015–10,018", "incomplete", "1 file missing", "latest"),
        ("version 0", "complete", "complete", "last consistent"),
        ("version 10,014", "incomplete", "1 file missing", None),
        ("versions 14–10,013", "unreadable", "commit files missing", None),
        ("versions 1–13", "incomplete", "1 file missing", None),
    ]


def test_damaged_commits_form_one_run_by_their_kind_whatever_each_message_says(copy_table):
    root = copy_table(APPENDS)
    for version, cut in ((12, 40), (13, 7)):  # cut off at different places: different messages
        commit = root / "_delta_log" / f"{version:020d}.json"
        commit.write_bytes(commit.read_bytes()[:-cut])
    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    damaged = next(r for r in version_runs(report) if r.first <= 12 <= r.last)
    kinds = [[p.kind for p in report.versions[v].problems] for v in (12, 13)]

    assert kinds == [[ProblemKind.COMMIT_DAMAGED], [ProblemKind.COMMIT_DAMAGED]]
    assert (damaged.label, damaged.summary) == ("versions 12–13", "commit file damaged")


def test_each_damaged_file_is_listed_once_with_the_versions_that_need_it(gapped):
    report = check_table(DeltaLog.open(str(gapped)), all_versions=True, settings=Settings())
    lost = DeltaLog.open(str(gapped)).commit(1).adds[0].path

    (damaged,) = damaged_files(report)
    assert (damaged.path, damaged.problem) == (lost, "missing")
    assert damaged.versions == ((1, 13), (10_014, 10_018))
    assert damaged.versions_text == "versions 1–13, 10,014–10,018"


def test_check_json_adds_runs_and_damaged_files_and_keeps_versions(gapped, capsys):
    assert main(["check", str(gapped), "--all-versions", "--json"]) == 4
    record = json.loads(capsys.readouterr().out)

    assert len(record["versions"]) == 10_019  # the existing contract is unchanged
    assert record["lastConsistentVersion"] == 0
    gap = next(r for r in record["runs"] if r["status"] == "unreadable")
    assert gap == {
        "firstVersion": 14,
        "lastVersion": 10_013,
        "versionCount": 10_000,
        "status": "unreadable",
        "summary": "commit files missing",
        "problems": ["Its commit file is missing from _delta_log."],
        "missingCount": 0,
        "sizeMismatchCount": 0,
        "unreadableCount": 0,
        "role": None,
    }
    assert record["runs"][0]["role"] == "latest"
    (damaged,) = record["damagedFiles"]
    assert damaged["versions"] == [{"first": 1, "last": 13}, {"first": 10_014, "last": 10_018}]
    assert damaged["versionCount"] == 18
    assert record == {
        **record,
        **grouped_record(check_table(DeltaLog.open(str(gapped)), settings=Settings())),
    }


def test_check_text_names_the_gap_once_and_each_file_once(gapped, capsys):
    assert main(["check", str(gapped)]) == 4
    out = capsys.readouterr().out
    lost = DeltaLog.open(str(gapped)).commit(1).adds[0].path

    assert len(out.splitlines()) < 30
    assert out.count("versions 14–10,013") == 1 and "commit files missing" in out
    assert out.count(lost) == 1
    assert "needed by versions 1–13, 10,014–10,018" in out
    assert out.index("<- latest") < out.index("<- last consistent") < out.index("versions 14–")


def test_the_health_page_shows_runs_and_files_once(gapped, monkeypatch, tmp_path):
    at = open_app(monkeypatch, tmp_path, table=str(gapped), view="health")
    at.run()
    at.button(key="health_run").click().run()

    assert not at.exception
    runs = next(d.value for d in at.dataframe if "what" in d.value.columns)
    assert runs["versions"].tolist()[:2] == ["10,015–10,018", "0"]
    assert len(runs) == 5
    files = next(d.value for d in at.dataframe if "needed by" in d.value.columns)
    assert files["needed by"].tolist() == ["versions 1–13, 10,014–10,018"]
