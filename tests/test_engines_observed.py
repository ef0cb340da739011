"""The compatibility table's "reads" and "writes" hold for the engines installed here.

Overview once said delta-rs and Polars read a table with deletion vectors and column
mapping; deltalake 1.6.6's ``to_pyarrow_table`` refuses it and Polars refuses column
mapping. Here each claim of ``engine_support.json`` for deltalake and Polars is checked
by reading each table and appending to a copy of it. (DuckDB's delta extension is
downloaded at run time, which this test cannot do: its rows stay as cited.)
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import DeltaTable, QueryBuilder, write_deltalake

from inspector.delta.engines import Support, load_engines
from inspector.log.deltalog import DeltaLog
from inspector.table.compatibility import Access, judge
from tests.conftest import copy_corpus_table

polars = pytest.importorskip("polars")

TABLES = [
    "delta-golden/dv-with-columnmapping",  # deletion vectors + column mapping (name), partitioned
    "delta-kernel-rs/table-with-dv-small",  # deletion vectors
    "delta-kernel-rs/cdf-column-mapping-name-mode",  # change data feed + column mapping
    "delta-kernel-rs/cdf-table-with-cdc-and-dvs",  # change data feed + deletion vectors
    "delta-golden/basic-with-inserts-merge",  # legacy protocol
]


def _engine(key: str):
    return next(e for e in load_engines() if e.key == key)


def _reads(engine: str, root: str) -> bool:
    try:
        if engine == "polars":
            polars.read_delta(root)
        else:  # delta-rs's reader that handles most features: DataFusion
            QueryBuilder().register("t", DeltaTable(root)).execute("select * from t").read_all()
    except Exception as exc:  # an engine's refusal: any of its error types
        assert "not" in str(exc) and "support" in str(exc), exc  # a refusal, not a crash
        return False
    return True


def _writes(engine: str, root: str) -> bool:
    table = DeltaTable(root)
    empty = pa.Table.from_pylist([], schema=pa.schema(table.schema().to_arrow()))
    try:
        if engine == "polars":
            polars.from_arrow(empty).write_delta(root, mode="append")
        else:
            write_deltalake(root, empty, mode="append")
    except Exception as exc:  # an engine's refusal
        assert "not" in str(exc) and "support" in str(exc), exc
        return False
    return DeltaTable(root).version() == table.version() + 1


@pytest.mark.parametrize("engine", ["deltalake", "polars"])
@pytest.mark.parametrize("name", TABLES)
def test_reads_and_writes_are_what_the_table_says(engine, name, corpus, tmp_path):
    root = copy_corpus_table(name, tmp_path / "t")
    protocol = DeltaLog.open(str(root)).snapshot().protocol
    read = judge(_engine(engine), protocol, Access.READ)
    write = judge(_engine(engine), protocol, Access.WRITE)

    if read.support is not Support.UNKNOWN:
        assert _reads(engine, str(root)) == (read.support is Support.YES), read
    if write.support is not Support.UNKNOWN:
        assert _writes(engine, str(root)) == (write.support is Support.YES), write


def test_delta_rs_reads_deletion_vectors_only_with_datafusion_and_says_so(corpus):
    root = str(corpus / TABLES[0])
    read = judge(_engine("deltalake"), DeltaLog.open(root).snapshot().protocol, Access.READ)
    with pytest.raises(Exception, match="not yet supported by the deltalake reader"):
        DeltaTable(root).to_pyarrow_table()
    assert read.support is Support.YES
    assert any("to_pyarrow_table refuses" in c for c in read.caveats)
