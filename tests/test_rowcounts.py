"""Rows added and removed per commit, from the log alone, and the same on both pages.

Before, a deletion-vector DELETE of one row showed "250 / –" (the rows of the file it
touched) and the demo MERGE "476 / –". Now the figures come from the writer's
operationMetrics, else from file stats and deletion vectors, and say which.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.demo import write_demo_table
from inspector.diff.filediff import diff_files
from inspector.log.deltalog import DeltaLog
from inspector.table.rowcounts import commit_rows, rows_between, why_they_differ
from inspector.table.rowrule import RowSource

DV_DELETE = "delta-kernel-rs/table-with-dv-small"  # v1: DELETE of 2 rows by deletion vector
MERGE = "delta-golden/basic-with-inserts-merge"  # v1: MERGE, 50 in, 50 updated, 10 deleted
UPDATE = "delta-golden/basic-with-inserts-updates"  # v1: UPDATE of 50 rows
CDC_DVS = "delta-kernel-rs/cdf-table-with-cdc-and-dvs"  # DV updates, merges, optimizes


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> DeltaLog:
    return DeltaLog.open(write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders")))


def figures(change) -> tuple:
    return change.added, change.removed, change.updated, change.source, change.exact


def test_the_demo_delete_update_and_merge_count_the_rows_they_touched(demo):
    assert figures(commit_rows(demo, 3)) == (0, 116, 0, RowSource.OPERATION_METRICS, True)
    assert figures(commit_rows(demo, 4)) == (154, 154, 154, RowSource.OPERATION_METRICS, True)
    merge = commit_rows(demo, 5)
    assert figures(merge) == (60, 38, 38, RowSource.OPERATION_METRICS, True)
    assert merge.label() == "+22 / −0 / 38 updated"  # as Delta's metrics: 22 inserted
    assert commit_rows(demo, 10).source is RowSource.NO_DATA_CHANGE  # OPTIMIZE


def test_a_deletion_vector_delete_removes_only_the_deleted_rows(corpus):
    log = DeltaLog.open(str(corpus / DV_DELETE))
    assert figures(commit_rows(log, 1)) == (0, 2, 0, RowSource.OPERATION_METRICS, True)


@pytest.mark.parametrize(
    ("table", "version", "expected"),
    [
        (MERGE, 1, (100, 60, 50)),
        (UPDATE, 1, (50, 50, 50)),
        (CDC_DVS, 12, (1, 1, 1)),  # UPDATE with a deletion vector and one new file
        (CDC_DVS, 18, (3, 1, 1)),  # MERGE with a deletion vector
        (CDC_DVS, 24, (0, 6, 0)),  # DELETE by deletion vector
    ],
)
def test_corpus_merges_updates_and_deletes(corpus, table, version, expected):
    change = commit_rows(DeltaLog.open(str(corpus / table)), version)
    assert (change.added, change.removed, change.updated) == expected
    assert change.exact and change.source is RowSource.OPERATION_METRICS


def test_every_commit_nets_what_the_file_stats_net(corpus, demo):
    """Metrics and stats agree on the net change wherever both exist (else: an estimate)."""
    for log in (demo, *(DeltaLog.open(str(corpus / t)) for t in (MERGE, UPDATE, CDC_DVS))):
        for commit in log.commits[1:]:
            change = commit_rows(log, commit.version)
            diff = diff_files(log, commit.version - 1, commit.version)
            stats_net = diff.to_side.num_records - diff.from_side.num_records
            assert change.net == stats_net
            assert change.added - change.removed == stats_net, (log.table_root, commit.version)


def test_the_diff_page_figures_equal_the_version_page_for_each_pair(corpus, demo):
    for log in (demo, DeltaLog.open(str(corpus / CDC_DVS))):
        for commit in log.commits[1:]:
            v = commit.version
            assert rows_between(log, v - 1, v).total == commit_rows(log, v)


def test_backwards_swaps_added_and_removed(demo):
    forwards, backwards = rows_between(demo, 4, 5).total, rows_between(demo, 5, 4).total
    assert (backwards.added, backwards.removed) == (forwards.removed, forwards.added)
    assert backwards.net == -forwards.net


def test_a_range_sums_its_commits_and_says_it_is_not_exact(demo):
    total = rows_between(demo, 2, 5).total
    assert (total.added, total.removed, total.commits) == (214, 308, 3)
    assert not total.exact and total.note.startswith("sum over 3 commits, from operation metrics;")
    assert total.net == demo.snapshot(5).num_records - demo.snapshot(2).num_records


def _strip_metrics(table: Path, version: int) -> None:
    path = table / "_delta_log" / f"{version:020d}.json"
    lines = []
    for line in path.read_text().splitlines():
        action = json.loads(line)
        action.get("commitInfo", {}).pop("operationMetrics", None)
        lines.append(json.dumps(action))
    path.write_text("\n".join(lines) + "\n")


def test_without_metrics_a_dv_delete_is_counted_exactly_from_deletion_vectors(copy_table):
    table = copy_table(DV_DELETE)
    _strip_metrics(table, 1)
    change = commit_rows(DeltaLog.open(str(table)), 1)
    assert figures(change) == (0, 2, None, RowSource.FILE_STATS, True)
    assert change.note == "from file stats and deletion vectors"


def test_without_metrics_a_rewrite_says_only_its_exact_net(copy_table):
    table = copy_table(MERGE)
    _strip_metrics(table, 1)
    change = commit_rows(DeltaLog.open(str(table)), 1)
    assert (change.added, change.removed, change.net) == (140, 100, 40)
    assert not change.exact and change.label() == "? / ? (net +40)"
    assert change.history_json() == {"rowsInserted": None, "rowsDeleted": None, "rowsUpdated": None}
    assert "added 140 rows and removed 100" in change.note
    assert "net change (+40) is exact" in change.note


def test_tables_written_by_deltalake(tmp_path):
    path = str(tmp_path / "t")
    ids = pa.array(range(10), pa.int64())
    write_deltalake(path, pa.table({"id": ids, "qty": pa.array([1] * 10, pa.int64())}))
    DeltaTable(path).delete("id < 3")
    DeltaTable(path).update(updates={"qty": "qty + 1"}, predicate="id >= 8")
    source = pa.table({"id": pa.array([9, 10, 11], pa.int64()), "qty": pa.array([5] * 3)})
    (
        DeltaTable(path)
        .merge(source, "t.id = s.id", source_alias="s", target_alias="t")
        .when_matched_update(updates={"qty": "s.qty"})
        .when_not_matched_insert_all()
        .execute()
    )
    log = DeltaLog.open(path)
    assert [c.commit_info.operation for c in log.commits] == ["WRITE", "DELETE", "UPDATE", "MERGE"]
    assert [figures(commit_rows(log, v))[:3] for v in range(4)] == [
        (10, 0, 0),
        (0, 3, 0),
        (2, 2, 2),
        (3, 1, 1),
    ]
    counts = [DeltaTable(path, version=v).to_pyarrow_dataset().count_rows() for v in range(4)]
    assert [commit_rows(log, v).net for v in range(1, 4)] == [
        b - a for a, b in zip(counts, counts[1:], strict=False)
    ]


def _page(table: str, version: int, view: str, monkeypatch, tmp_path):
    from tests.conftest import run_app

    return run_app(monkeypatch, tmp_path, timeout=180, table=table, version=str(version), view=view)


@pytest.mark.parametrize(("table", "version"), [(DV_DELETE, 1), (MERGE, 1), (UPDATE, 1)])
def test_the_version_and_diff_pages_show_the_same_row_figures(
    corpus, table, version, monkeypatch, tmp_path
):
    root = str(corpus / table)
    expected = commit_rows(DeltaLog.open(root), version).label()

    version_page = _page(root, version, "version", monkeypatch, tmp_path)
    diff_page = _page(root, version, "diff", monkeypatch, tmp_path)

    label = "Rows +inserted / −deleted / updated"
    assert {m.label: m.value for m in version_page.metric}[label] == expected
    assert any(f"{label}: {expected}" in m.value for m in diff_page.markdown)
    commits = next(d.value for d in diff_page.dataframe if "rows from" in d.value.columns)
    assert commits["rows from"].tolist() == ["operation metrics"]
    assert commits["rows +inserted / −deleted / updated"].tolist() == [expected]


def test_the_diff_summary_and_a_row_diff_agree_or_say_why_in_one_line(demo):
    merge = commit_rows(demo, 5)  # 22 inserted, 38 updated
    assert why_they_differ(merge, added=22, removed=0, changed=38) is None
    assert why_they_differ(merge, added=60, removed=38, changed=None) is None
    total = rows_between(demo, 2, 5).total
    why = why_they_differ(total, added=1, removed=2, changed=3)
    assert why is not None and "\n" not in why and why.startswith("They differ because")
