"""Column-mapped tables show logical column names everywhere; the physical name is a detail.

The log's partition values and file statistics use physical names
(``col-9f0743fd-…``); Overview and Preview show ``value``. Insights, ``files --json``
and the Diff export now say ``value`` too.
"""

from __future__ import annotations

import json

from inspector.delta.schema import logical_names
from inspector.log.deltalog import DeltaLog
from inspector.table.insights import layout_insights
from tests.conftest import run_main

DV_MAPPED = "delta-spark/table-with-dv-small"  # deletion vectors + column mapping (name)
PARTITIONED_MAPPED = "delta-golden/dv-with-columnmapping"  # partitioned, column mapping, DVs


def test_insights_name_stats_columns_logically_with_the_physical_name_as_a_detail(corpus):
    log = DeltaLog.open(str(corpus / DV_MAPPED))
    stats = layout_insights(log.snapshot()).stats
    assert stats.observed_columns == ("value",)
    assert stats.physical_names["value"].startswith("col-")


def test_files_json_uses_logical_names_for_partitions_and_stats(corpus, capsys):
    root = corpus / PARTITIONED_MAPPED
    log = DeltaLog.open(str(root))
    logical = {path[-1] for path in logical_names(log.snapshot().schema).values()}
    code, out, _ = run_main(capsys, "files", root, "--version", "0", "--json")
    assert code == 0
    for add in json.loads(out)["added"]:
        keys = set(add["partitionValues"]) | set(add["minValues"] or {})
        assert keys and keys <= logical, keys
        assert not any(k.startswith("col-") for k in keys)


def test_the_diffs_partitions_are_named_logically(corpus):
    from inspector.diff.filediff import diff_files

    log = DeltaLog.open(str(corpus / PARTITIONED_MAPPED))
    diff = diff_files(log, log.earliest_version, log.latest_version)
    assert diff.by_partition
    logical = {path[-1] for path in logical_names(log.snapshot().schema).values()}
    for change in diff.by_partition:
        assert {name for name, _ in change.partition_values} <= logical
        assert "col-" not in change.label
