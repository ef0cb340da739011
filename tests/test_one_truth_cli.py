"""One definition per fact: every command (and the postmortem export) says the same.

On copied tables written by Delta Lake with deletion vectors and a MERGE (the corpus's
tables are copies: their files' times are the copy's), each fact of a version is
computed once in the backend and every command renders it from there:

- time: the history timestamp (the writer's commitInfo time only beside it, labelled);
- rows inserted, deleted and updated, as Delta's operationMetrics define them;
- files added and removed as Delta counts them (a deletion-vector update is neither),
  the add and remove actions under their own names, and their bytes;
- rows at a version, deletion vectors subtracted.
"""

from __future__ import annotations

import json

import pytest

from inspector.delta.text import format_time
from inspector.diff.filediff import diff_files
from inspector.log.deltalog import DeltaLog
from inspector.present.report import markdown_report
from inspector.present.text.log import verdict_text
from inspector.table.compatibility import Support, Verdict
from inspector.table.history_time import iso
from tests.conftest import run_main
from tests.one_truth import assert_first_deletion_vectors, history_by_version

DV_TABLES = ["delta-spark/table-with-dv-small", "delta-kernel-rs/cdf-table-with-cdc-and-dvs"]
MERGE_TABLE = "delta-golden/basic-with-inserts-merge"
TABLES = [*DV_TABLES, MERGE_TABLE]


@pytest.mark.parametrize("name", TABLES)
def test_files_and_bytes_are_counted_as_deltas_own_metrics_count_them(name, corpus, capsys):
    checked = 0
    for version, e in history_by_version(capsys, corpus / name).items():
        metrics = e["operationMetrics"]
        if "numAddedFiles" in metrics:
            assert e["numAddedFiles"] == int(metrics["numAddedFiles"]), version
            assert e["numRemovedFiles"] == int(metrics["numRemovedFiles"]), version
            checked += 1
        if "numAddedBytes" in metrics:
            assert e["addedBytes"] == int(metrics["numAddedBytes"]), version
            assert e["removedBytes"] == int(metrics["numRemovedBytes"]), version
        assert_first_deletion_vectors(e, metrics)
        if not any(k.startswith(("numAdded", "numRemoved", "numTarget")) for k in metrics):
            # Without metrics, Delta's rule on the actions, which keep their own names.
            assert e["numAddActions"] == e["numAddedFiles"] + e["numDeletionVectorUpdates"]
            assert e["numRemoveActions"] == e["numRemovedFiles"] + e["numDeletionVectorUpdates"]
    assert checked or name == MERGE_TABLE


def test_a_deletion_vector_delete_adds_and_removes_no_file(corpus, capsys):
    deletes = [
        e
        for e in history_by_version(capsys, corpus / DV_TABLES[1]).values()
        if e["operation"] == "DELETE"
    ]
    assert deletes
    for e in deletes:
        assert (e["numAddedFiles"], e["numRemovedFiles"], e["addedBytes"]) == (0, 0, 0)
        assert e["numDeletionVectorUpdates"] >= 1 and e["rowsDeleted"] >= 1


def test_a_merge_reads_as_its_metrics_in_history_text_json_and_diff(corpus, capsys):
    table = corpus / MERGE_TABLE
    merge = history_by_version(capsys, table)[1]
    metrics = merge["operationMetrics"]
    assert merge["operation"] == "MERGE"
    assert (merge["rowsInserted"], merge["rowsDeleted"], merge["rowsUpdated"]) == (
        int(metrics["numTargetRowsInserted"]),
        int(metrics["numTargetRowsDeleted"]),
        int(metrics["numTargetRowsUpdated"]),
    )
    label = (
        f"+{merge['rowsInserted']:,} / −{merge['rowsDeleted']:,} / {merge['rowsUpdated']:,} updated"
    )
    _, text, _ = run_main(capsys, "history", table)
    assert label in text
    _, out, _ = run_main(capsys, "diff", table, "--from", "0", "--to", "1", "--json")
    by_commit = json.loads(out)["rowsFromLog"]["byCommit"]
    assert {k: by_commit[0][k] for k in ("rowsInserted", "rowsDeleted", "rowsUpdated")} == {
        k: merge[k] for k in ("rowsInserted", "rowsDeleted", "rowsUpdated")
    }
    _, text, _ = run_main(capsys, "diff", table, "--from", "0", "--to", "1")
    assert label in text


@pytest.mark.parametrize("name", TABLES)
def test_a_copied_tables_times_agree_in_history_detail_diff_and_the_postmortem(
    name, corpus, capsys
):
    table = corpus / name
    history = history_by_version(capsys, table)
    latest = max(history)
    _, out, _ = run_main(capsys, "detail", table, "--json")
    assert json.loads(out)["lastModified"] == history[latest]["timestamp"]
    _, out, _ = run_main(capsys, "history", table, "--limit", "1", "--json")
    assert json.loads(out)[0]["timestamp"] == history[latest]["timestamp"]

    first = min(history)
    _, out, _ = run_main(capsys, "diff", table, "--from", first, "--to", latest, "--json")
    for c in json.loads(out)["commits"]:
        assert c["timestamp"] == history[c["version"]]["timestamp"]
        assert c["commitInfoTimestamp"] == history[c["version"]]["commitInfoTimestamp"]

    log = DeltaLog.open(str(table))
    report = markdown_report(diff_files(log, first, latest), table=str(table))
    for c in diff_files(log, first, latest).by_commit:
        assert iso(c.timestamp) == history[c.version]["timestamp"]
        assert (
            f"| {c.version} | {format_time(c.timestamp)} | {format_time(c.commit_info_timestamp)} |"
            in report
        )
    assert "writer's commitInfo time" in report


@pytest.mark.parametrize("name", DV_TABLES)
def test_insights_rows_are_the_overviews_rows_at_every_version(name, corpus, capsys):
    table = corpus / name
    for version in list(history_by_version(capsys, table))[::5]:
        _, out, _ = run_main(capsys, "detail", table, "--version", str(version), "--json")
        detail = json.loads(out)
        _, out, _ = run_main(capsys, "insights", table, "--version", str(version), "--json")
        insights = json.loads(out)
        assert insights["rows"] == detail["numRecords"], version
        assert insights["records"] - insights["dvDeletedRows"] == insights["rows"]


def test_a_refused_plan_is_only_a_refusal(corpus, capsys, audit):
    table = corpus / MERGE_TABLE
    code, text, _ = run_main(capsys, "restore", table, "--to-version", "99", "--dry-run")
    assert code == 3
    assert "None" not in text and "?" not in text
    assert "re-add" not in text and "rows (from stats)" not in text
    assert "Version 99 is newer than the current version (1)" in text
    assert "engines: " in text
    assert "spark_engine is own" not in text or "jars are not loaded" in text


def test_a_copied_tables_history_names_the_copy_once_and_counts_the_rest_in_words(corpus, capsys):
    code, out, _ = run_main(capsys, "history", corpus / MERGE_TABLE)  # 2 versions, both copied

    assert code == 0
    assert out.count("the table was probably copied or replicated") == 1
    assert out.rstrip().endswith(
        "! 1 more version has the same mismatch of commit time and file time (--json lists each)."
    )


def test_an_engines_verdict_reads_the_same_in_detail_and_on_the_overview() -> None:
    verdict = Verdict(
        support=Support.NO, blocking=("deletionVectors", "columnMapping"), caveats=("no CDF",)
    )
    supported = Verdict(support=Support.YES, since="3.0", caveats=("no CDF",))

    assert verdict_text(verdict) == "no [deletionVectors, columnMapping] (with caveats: no CDF)"
    assert verdict_text(verdict, caveats_below=True) == (
        "no [deletionVectors, columnMapping] (with caveats, below)"
    )
    assert verdict_text(supported, caveats_below=True) == "yes (since 3.0) (with caveats, below)"
