"""Specification: a restore plan's file lists are anti-joins in Arrow, and a plan never starts Spark.

These tests run in the fast lane, which fails any run that imports pyspark
(``conftest.pytest_sessionfinish``): making a plan or a dry run must not.
"""

from __future__ import annotations

import pytest

from inspector.log.snapshot import Snapshot
from inspector.restore import plan_restore
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import sales_table


def _identities(snapshot: Snapshot) -> set[tuple[str, str | None]]:
    """Each live file as (path, deletion-vector id), the identity Delta's RESTORE compares."""
    files = snapshot.files_table
    paths, dvs = files.column("key_path").to_pylist(), files.column("dv_id").to_pylist()
    return {(path, dv or None) for path, dv in zip(paths, dvs, strict=True)}


@pytest.mark.parametrize("target", [0, 1, 2, 3])
def test_a_plan_re_adds_the_targets_missing_files_and_removes_the_current_extra_ones(
    tmp_path, settings, target
):
    table = open_table(sales_table(tmp_path / "sales"), Settings())
    log = table.log
    current, wanted = _identities(log.snapshot()), _identities(log.snapshot(target))

    plan = plan_restore(table, target, settings=settings)

    assert {a.key for a in plan.files_to_add} == wanted - current
    assert {a.key for a in plan.files_to_remove} == current - wanted
    assert [a.path for a in plan.files_to_add] == sorted(a.path for a in plan.files_to_add)
    assert plan.metrics.num_restored_files == len(wanted - current)


def test_a_file_whose_deletion_vector_changed_is_swapped_not_kept(copy_table, settings):
    table = open_table(str(copy_table("delta-rs/cdf-table-with-cdc-and-dvs")), Settings())
    log = table.log
    current, wanted = _identities(log.snapshot()), _identities(log.snapshot(23))
    swapped = {p for p, _ in wanted - current} & {p for p, _ in current - wanted}
    assert swapped, "the corpus table has a file whose deletion vector changed since version 23"

    plan = plan_restore(table, 23, settings=settings)

    assert {a.key[0] for a in plan.files_to_add} >= swapped
    assert {a.key[0] for a in plan.files_to_remove} >= swapped
