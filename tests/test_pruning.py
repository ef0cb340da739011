"""Data skipping from the log (no Spark): partition values and statistics of corpus tables.

The predicates are the records Spark's parsed filter becomes (tests/test_explain.py
checks the whole way against Delta's planner); here each rule is pinned on real tables.
"""

from __future__ import annotations

from datetime import date

import pyarrow.compute as pc

from inspector.files.predicate import Compare, Join, Junction, Negated, Op, Unusable, conjuncts
from inspector.files.pruning import prune, split_filters
from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS

MULTI = CORPUS / "dat-v0.0.2/multi_partitioned/delta"  # letter, date, data partitions; number
NO_REPLAY = CORPUS / "dat-v0.0.2/no_replay/delta"  # letter, int, date with statistics
NO_STATS = CORPUS / "dat-v0.0.2/no_stats/delta"


def _kept(root, predicate) -> tuple[int, int, int]:
    snapshot = DeltaLog.open(str(root)).snapshot()
    filters = split_filters(
        predicate, snapshot.schema, snapshot.partition_columns, snapshot.metadata.configuration
    )
    masks = prune(snapshot.files_table, snapshot.schema, filters)
    count = lambda mask: int(pc.sum(mask).as_py() or 0)  # noqa: E731
    return snapshot.num_files, count(masks.partitions), count(masks.stats)


def test_a_partition_filter_is_evaluated_exactly_on_partition_values():
    assert _kept(MULTI, Compare(column="letter", op=Op.EQ, values=("b",))) == (2, 1, 1)
    assert _kept(MULTI, Compare(column="letter", op=Op.EQ, values=("/%20%f",))) == (2, 1, 1)
    assert _kept(MULTI, Compare(column="date", op=Op.LT, values=(date(1970, 1, 1),))) == (2, 0, 0)


def test_a_data_filter_is_judged_on_minimum_and_maximum():
    assert _kept(MULTI, Compare(column="number", op=Op.GT, values=(6,))) == (2, 2, 1)
    assert _kept(MULTI, Compare(column="number", op=Op.EQ, values=(6,))) == (2, 2, 1)
    assert _kept(MULTI, Compare(column="number", op=Op.IN, values=(1, 9))) == (2, 2, 2)
    assert _kept(MULTI, Compare(column="number", op=Op.IN, values=(1, 5))) == (2, 2, 0)


def test_not_is_pushed_into_the_comparison_as_delta_does():
    negated = Negated(part=Compare(column="number", op=Op.LE, values=(6,)))
    assert conjuncts(negated) == [Compare(column="number", op=Op.GT, values=(6,))]
    assert _kept(MULTI, negated) == (2, 2, 1)
    either = Negated(
        part=Junction(join=Join.AND, parts=(Compare(column="number", op=Op.LT, values=(7,)),))
    )
    assert _kept(MULTI, either) == (2, 2, 1)


def test_parts_that_cannot_be_judged_skip_nothing_and_are_named():
    mixed = Junction(
        join=Join.OR,
        parts=(
            Compare(column="letter", op=Op.EQ, values=("b",)),
            Compare(column="number", op=Op.EQ, values=(100,)),
        ),
    )
    snapshot = DeltaLog.open(str(MULTI)).snapshot()
    filters = split_filters(
        mixed, snapshot.schema, snapshot.partition_columns, snapshot.metadata.configuration
    )
    assert [u.reason for u in filters.unusable] == ["it mixes partition and data columns"]
    assert _kept(MULTI, mixed) == (2, 2, 2)
    assert _kept(MULTI, Unusable(sql="upper(letter) = 'B'", reason="a function")) == (2, 2, 2)


def test_files_without_statistics_are_kept():
    total, _, kept = _kept(NO_STATS, Compare(column="int", op=Op.EQ, values=(-12345,)))
    assert kept == total > 0


def test_dates_and_strings_are_compared_in_their_own_types():
    total, _, kept = _kept(NO_REPLAY, Compare(column="date", op=Op.LT, values=(date(1900, 1, 1),)))
    assert (total, kept) == (total, 0)
    total, _, kept = _kept(NO_REPLAY, Compare(column="letter", op=Op.STARTS_WITH, values=("zz",)))
    assert kept == 0


def test_columns_delta_no_longer_indexes_are_not_judged_whatever_old_files_carry():
    # dataSkippingNumIndexedCols is 0 now; older files still carry col1's statistics
    root = CORPUS / "delta-golden/data-skipping-change-stats-collected-across-versions"
    snapshot = DeltaLog.open(str(root)).snapshot()
    filters = split_filters(
        Compare(column="col1", op=Op.GT, values=(0,)),
        snapshot.schema,
        snapshot.partition_columns,
        snapshot.metadata.configuration,
    )
    assert filters.data == () and "no statistics for col1" in filters.unusable[0].reason
    assert _kept(root, Compare(column="col1", op=Op.GT, values=(0,))) == (3, 3, 3)
