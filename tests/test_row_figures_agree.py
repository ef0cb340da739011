"""The rows a commit inserted, deleted and updated read the same on every page and in the CLI.

Before, the Timeline's hover summed the records of the files a commit added
(a DELETE of 180 rows read "+1,620": the rows copied into rewritten files), while
the Version and Diff pages used operation metrics. Now one rule
(``inspector.table.rowcounts``) feeds the hover, the history table, the Version and
Diff pages and ``history --json``.
"""

from __future__ import annotations

import json
import re

import pytest

from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.table.rowcounts import commit_rows
from tests.conftest import run_app, run_main

CORPUS_TABLES = [
    "delta-spark/table-with-dv-small",  # deletion vectors + column mapping
    "delta-kernel-rs/cdf-table-with-cdc-and-dvs",  # DV updates, merges, optimizes
    "delta-golden/basic-with-inserts-merge",
    "delta-kernel-rs/cdf-column-mapping-name-mode",
]


def _hover_rows(table: str, monkeypatch, tmp_path) -> dict[int, str]:
    """The "rows ..." line of each mark's hover on the Timeline, by version."""
    at = run_app(monkeypatch, tmp_path, timeout=180, table=table, view="timeline")
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    out = {}
    for trace in figure["data"]:
        for text in trace.get("hovertext") or ():
            version = int(re.match(r"<b>v(\d+) ", text).group(1))
            out[version] = next(p for p in text.split("<br>") if p.startswith("rows "))
    return out


def _expected(entry: dict) -> str:
    """The hover's rows line as the JSON says it: inserted / deleted / updated, as Delta's
    operationMetrics define them (an updated row is in neither of the first two)."""
    inserted, deleted, updated = (entry[k] for k in ("rowsInserted", "rowsDeleted", "rowsUpdated"))
    if inserted is None or deleted is None:
        return "estimate"
    text = f"rows +{inserted:,} / −{deleted:,}"
    return text + (f" / {updated:,} updated" if updated else "")


@pytest.fixture(scope="module")
def demo_table(tmp_path_factory) -> str:
    return write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders"))


@pytest.mark.parametrize("name", ["demo", *CORPUS_TABLES])
def test_the_timeline_hover_says_what_history_json_says_for_every_version(
    name, corpus, demo_table, capsys, monkeypatch, tmp_path
):
    table = demo_table if name == "demo" else str(corpus / name)
    code, out, _ = run_main(capsys, "history", table, "--json")
    assert code == 0
    entries = {e["version"]: e for e in json.loads(out)}
    hovers = _hover_rows(table, monkeypatch, tmp_path)

    assert set(hovers) == set(entries)
    for version, entry in entries.items():
        expected = _expected(entry)
        if expected == "estimate":  # the log cannot know: the hover marks the figures "~"
            assert "~" in hovers[version] or "?" in hovers[version], (version, hovers[version])
        else:
            assert hovers[version] == expected, (version, entry)


def test_history_json_counts_a_merge_by_its_metrics_not_its_rewritten_files(demo_table, capsys):
    code, out, _ = run_main(capsys, "history", demo_table, "--json")
    entries = {e["version"]: e for e in json.loads(out)}
    merge = entries[5]
    assert merge["operation"] == "MERGE"
    assert (merge["rowsInserted"], merge["rowsDeleted"], merge["rowsUpdated"]) == (22, 0, 38)
    assert commit_rows(DeltaLog.open(demo_table), 5).label() == "+22 / −0 / 38 updated"
    delete = entries[3]
    assert (delete["rowsInserted"], delete["rowsDeleted"], delete["rowsUpdated"]) == (0, 116, 0)
