"""Specification: a small checkpoint is read without pyarrow, and gives what pyarrow gives.

The pure-Python reader (:mod:`inspector.log.parquet_lite`) reads every checkpoint of the
corpus as pyarrow reads it, or declines it cleanly (``NotSupportedHere``: pyarrow then
reads it); a table's detail and snapshot are the same whichever reader read the checkpoint;
and ``python -m inspector detail`` of a table with a small checkpoint imports neither
pyarrow nor numpy.
"""

from __future__ import annotations

import collections
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench.tablegen import make_commits_table
from inspector.delta.actions import AddFile, DeletionVector, RemoveFile
from inspector.delta.parse import parse_action
from inspector.log import checkpoint_lite, columnar
from inspector.log.checkpoint_lite import ACTION_COLUMNS, DERIVED_FIELDS
from inspector.log.deltalog import DeltaLog
from inspector.log.parquet_format import NotSupportedHere, unsnappy
from inspector.log.parquet_lite import read_columns
from inspector.log.reconcile import reconcile, reconcile_records
from inspector.settings import Settings
from inspector.table.overview import table_detail
from tests.conftest import CORPUS, REPO, one_error_line, run_main
from tests.object_stores import CLOUD_VARIABLES

CHECKPOINT_FILES = sorted(p for p in CORPUS.glob("**/_delta_log/**/*.parquet"))
CHECKPOINT_TABLES = sorted({p.parent.parent for p in CORPUS.glob("**/_delta_log/*.checkpoint*")})


def without_derived(value: Any) -> Any:
    """pyarrow's values without the derived fields the reader is told to skip."""
    if isinstance(value, dict):
        return {k: without_derived(v) for k, v in value.items() if k not in DERIVED_FIELDS}
    if isinstance(value, list):
        return [without_derived(v) for v in value]
    if isinstance(value, tuple):
        return tuple(without_derived(v) for v in value)
    return value


def pyarrow_columns(source: Path | pa.BufferReader, names: tuple[str, ...]) -> dict[str, list]:
    parquet = pq.ParquetFile(source)
    present = [n for n in names if n in parquet.schema_arrow.names]
    table = parquet.read(columns=present)
    return {n: without_derived(table.column(n).to_pylist()) for n in present}


# --- the reader against pyarrow -----------------------------------------------------------


def test_every_corpus_checkpoint_reads_as_pyarrow_reads_it_or_is_declined():
    declined: collections.Counter[str] = collections.Counter()
    for path in CHECKPOINT_FILES:
        try:
            got = read_columns(path.read_bytes(), ACTION_COLUMNS, skip=DERIVED_FIELDS)
        except NotSupportedHere as exc:
            declined[str(exc)] += 1
            continue
        assert got == pyarrow_columns(path, ACTION_COLUMNS), path

    read = len(CHECKPOINT_FILES) - declined.total()
    print(f"\nparquet_lite: {read} corpus checkpoint files read, {declined.total()} declined:")
    for reason, count in declined.most_common():
        print(f"  {count} x {reason}")
    assert len(CHECKPOINT_FILES) >= 150 and read >= 150
    # Only writers' commitInfo with a timestamp type (not a plain long) is declined so far.
    assert set(declined) <= {"column commitInfo.timestamp's type"}


CHECKPOINT_LIKE = pa.table(
    {
        "add": pa.array(
            [
                None,
                {
                    "path": "a=1/part-0.parquet",
                    "partitionValues": [("a", "1")],
                    "size": 10,
                    "dataChange": True,
                    "stats": '{"numRecords":3}',
                    "tags": None,
                    "deletionVector": None,
                },
                {
                    "path": "a=2/part-1.parquet",
                    "partitionValues": [("a", None)],
                    "size": 2**40,
                    "dataChange": False,
                    "stats": None,
                    "tags": [],
                    "deletionVector": {"storageType": "u", "pathOrInlineDv": "x", "offset": 1},
                },
            ]
            * 700,
            pa.struct(
                [
                    ("path", pa.string()),
                    ("partitionValues", pa.map_(pa.string(), pa.string())),
                    ("size", pa.int64()),
                    ("dataChange", pa.bool_()),
                    ("stats", pa.string()),
                    ("tags", pa.map_(pa.string(), pa.string())),
                    (
                        "deletionVector",
                        pa.struct(
                            [
                                ("storageType", pa.string()),
                                ("pathOrInlineDv", pa.string()),
                                ("offset", pa.int32()),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        "protocol": pa.array(
            [{"minReaderVersion": 3, "readerFeatures": ["deletionVectors", "v2Checkpoint"]}]
            + [None] * 1398
            + [{"minReaderVersion": 1, "readerFeatures": []}] * 701,
            pa.struct(
                [("minReaderVersion", pa.int32()), ("readerFeatures", pa.list_(pa.string()))]
            ),
        ),
    }
)


NESTED_TYPE = pa.struct(
    [
        ("runs", pa.list_(pa.struct([("n", pa.int64()), ("tags", pa.list_(pa.string()))]))),
        ("deep", pa.map_(pa.string(), pa.map_(pa.string(), pa.string()))),
    ]
)
NESTED = [
    {"runs": [{"n": 1, "tags": ["a", None]}, {"n": None, "tags": []}], "deep": [("k", [])]},
    None,
    {"runs": [], "deep": [("k", [("x", "y"), ("z", None)]), ("l", None)]},
    {"runs": None, "deep": None},
    {"runs": [None, {"n": 2, "tags": None}], "deep": []},
]
CHECKPOINT_LIKE = CHECKPOINT_LIKE.append_column(
    "nested", pa.array(NESTED * (CHECKPOINT_LIKE.num_rows // len(NESTED)), NESTED_TYPE)
)


@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
@pytest.mark.parametrize("compression", ["snappy", "gzip", "none"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_pages_v1_and_v2_dictionaries_and_codecs_read_as_pyarrow_reads_them(
    page_version, compression, dictionary
):
    sink = pa.BufferOutputStream()
    pq.write_table(
        CHECKPOINT_LIKE,
        sink,
        data_page_version=page_version,
        compression=compression,
        use_dictionary=dictionary,
        data_page_size=512,  # many pages per column chunk
        row_group_size=900,  # and two row groups
    )
    data = sink.getvalue().to_pybytes()

    got = read_columns(data, ("add", "protocol", "nested", "absent"))

    assert got == pyarrow_columns(pa.BufferReader(data), ("add", "protocol", "nested"))


def written(table: pa.Table, **options: Any) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **options)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize(
    "why, data",
    [
        ("zstd", written(CHECKPOINT_LIKE, compression="zstd")),
        (
            "delta encoding",
            written(
                pa.table({"txn": pa.array([{"version": 1}], pa.struct([("version", pa.int64())]))}),
                use_dictionary=False,
                column_encoding={"txn.version": "DELTA_BINARY_PACKED"},
            ),
        ),
        ("a double", written(pa.table({"add": pa.array([{"x": 1.5}])}))),
        ("binary", written(pa.table({"add": pa.array([{"x": b"\x00"}])}))),
        ("truncated", written(CHECKPOINT_LIKE)[:-100]),
        ("cut in the middle", written(CHECKPOINT_LIKE)[:2000] + written(CHECKPOINT_LIKE)[-2000:]),
        ("empty", b""),
    ],
)
def test_what_the_reader_does_not_read_it_declines(why, data):
    with pytest.raises(NotSupportedHere):
        read_columns(data, ("add", "txn"))


def test_snappy_blocks_decompress_to_what_was_compressed():
    rng = random.Random(7)
    samples = [
        b"",
        bytes(rng.randrange(256) for _ in range(5000)),  # long literals
        b"abc" * 3000,  # overlapping copies
        json.dumps(
            [{"numRecords": rng.randrange(9), "minValues": {"id": i}} for i in range(900)]
        ).encode(),
    ]
    for data in samples:
        block = pa.compress(data, "snappy", asbytes=True)
        assert unsnappy(block) == data


# --- one reconciliation rule, two representations ----------------------------------------


def test_typed_and_arrow_reconciliation_keep_the_same_newest_actions():
    rng = random.Random(11)
    paths = [f"part-{i}.parquet" for i in range(30)]
    actions: list[tuple[int, AddFile | RemoveFile]] = []
    for seq in range(400):
        path = rng.choice(paths)
        dv = {"storageType": "u", "pathOrInlineDv": "dv", "offset": rng.randrange(2)}
        extra = {"deletionVector": dv} if rng.random() < 0.3 else {}
        if rng.random() < 0.6:
            body = {"path": path, "size": seq, "modificationTime": seq, "dataChange": True}
            action = parse_action({"add": {**body, "partitionValues": {}, **extra}})
        else:
            action = parse_action({"remove": {"path": path, "deletionTimestamp": seq, **extra}})
        assert isinstance(action, AddFile | RemoveFile)
        actions.append((seq, action))
    tables = {}
    for kind in ("add", "remove"):
        found = [(s, a) for s, a in actions if isinstance(a, AddFile) == (kind == "add")]
        table = columnar.from_records(kind, [a for _, a in found])
        seqs = pa.array([s for s, _ in found], pa.int64())
        tables[kind] = [table.append_column("seq", seqs)]

    adds, removes = reconcile_records(actions)
    live, dead = reconcile(tables["add"], tables["remove"])

    assert [a.key for a in adds] == list(columnar.keys(live))
    assert [r.key for r in removes] == list(columnar.keys(dead))
    assert [a.size for a in adds] == live.column("size").to_pylist()
    assert isinstance(adds[0].deletion_vector, DeletionVector | None)


# --- detail and snapshots, whichever reader read the checkpoint ---------------------------


def as_json(raw: dict[str, Any]) -> str:
    """An action's JSON, a null field as an absent one (the Arrow path drops nulls)."""
    return json.dumps({k: v for k, v in raw.items() if v is not None}, sort_keys=True)


def described(path: Path) -> tuple[dict[str, Any], list, list, bool] | str:
    """The table's detail, live files and tombstones; or the error it gives."""
    try:
        log = DeltaLog.open(str(path))
        detail, compatibility = table_detail(log, Settings())
        snap = log.snapshot()
    except Exception as exc:  # the same error either way is part of the answer
        return f"{type(exc).__name__}: {exc}"
    files = sorted((k[0], k[1] or "", as_json(a.raw)) for k, a in snap.files.items())
    tombstones = sorted((k[0], k[1] or "", as_json(r.raw)) for k, r in snap.tombstones.items())
    typed = snap.live.records is not None
    return {**detail.to_json(), "engines": compatibility.to_json()}, files, tombstones, typed


def test_detail_and_snapshot_are_the_same_whichever_reader_read_the_checkpoint(monkeypatch):
    lite = {table: described(table) for table in CHECKPOINT_TABLES}
    monkeypatch.setattr(checkpoint_lite, "LITE_MAX_BYTES", -1)  # pyarrow reads every one
    arrow = {table: described(table) for table in CHECKPOINT_TABLES}

    typed = 0
    for table in CHECKPOINT_TABLES:
        if isinstance(lite[table], str):
            assert lite[table] == arrow[table], table
            continue
        assert lite[table][:3] == arrow[table][:3], table
        typed += lite[table][3] and not arrow[table][3]  # the lite reader read its checkpoint
    print(f"\n{typed} of {len(CHECKPOINT_TABLES)} corpus tables' checkpoints read without pyarrow")
    assert typed >= len(CHECKPOINT_TABLES) // 2


@pytest.fixture(scope="module")
def streaming_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lite") / "commits450"
    make_commits_table(str(root), 450)  # checkpoint 400 (one part, about 20 KB), 49 commits
    return root


def test_detail_of_a_generated_table_is_the_same_through_either_reader(
    streaming_table, monkeypatch
):
    lite = described(streaming_table)
    monkeypatch.setattr(checkpoint_lite, "LITE_MAX_BYTES", -1)
    arrow = described(streaming_table)

    assert not isinstance(lite, str) and not isinstance(arrow, str)
    assert lite[:3] == arrow[:3] and (lite[3], arrow[3]) == (True, False)
    assert lite[0]["numFiles"] > 0 and lite[0]["numRecords"] > 0


def heavy_imports_of_detail(location: str, options: dict[str, str] | None = None) -> str:
    """What ``detail`` imported of pyarrow and numpy, and its exit code, in a new process."""
    probe = (
        "import sys; from inspector.cli.main import main; "
        f"code = main(['detail', {location!r}, '--json']); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pyarrow', 'numpy'}), code)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLOUD_VARIABLES)}
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env | (options or {}),
        check=True,
    ).stdout
    return out.strip().splitlines()[-1]


def test_detail_of_a_table_with_a_small_checkpoint_imports_neither_pyarrow_nor_numpy(
    streaming_table,
):
    assert heavy_imports_of_detail(str(streaming_table)) == "[] 0"


def test_nor_does_detail_of_such_a_table_in_s3(streaming_table, s3_server):
    uri = s3_server.upload(streaming_table)

    assert heavy_imports_of_detail(uri, s3_server.options) == "[] 0"


def damaged(data: bytes, how: str) -> bytes:
    footer = int.from_bytes(data[-8:-4], "little")
    if how == "cut short":
        return data[: len(data) // 2]
    if how == "pages zeroed":  # the footer intact: only reading the pages finds it
        return data[:4] + bytes(len(data) - footer - 12) + data[len(data) - footer - 8 :]
    return b"garbage"


@pytest.mark.parametrize("how", ["cut short", "pages zeroed", "garbage"])
def test_a_damaged_small_checkpoint_gives_the_same_error_line_and_exit_code_as_before(
    capsys, copy_table, monkeypatch, how
):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")  # checkpoint 10 of 0..14
    for version in range(10):  # no commits to fall back on
        (table / "_delta_log" / f"{version:020d}.json").unlink()
    checkpoint = table / "_delta_log" / f"{10:020d}.checkpoint.parquet"
    checkpoint.write_bytes(damaged(checkpoint.read_bytes(), how))

    lite = run_main(capsys, "detail", table), run_main(capsys, "detail", table, "--json")
    monkeypatch.setattr(checkpoint_lite, "LITE_MAX_BYTES", -1)
    arrow = run_main(capsys, "detail", table), run_main(capsys, "detail", table, "--json")

    assert lite == arrow
    code, out, err = lite[0]
    assert code == 6 and out == "" and "cannot be reconstructed" in one_error_line(err)
