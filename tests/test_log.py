"""The log reader on tables the tests write: listing, every action kind, replay, caching."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.actions import (
    AddCDCFile,
    AddFile,
    CommitInfo,
    DomainMetadata,
    Metadata,
    Protocol,
    RemoveFile,
    Txn,
    UnknownAction,
)
from inspector.delta.errors import NotADeltaTable, VersionNotFound
from inspector.delta.parse import parse_action
from inspector.delta.paths import data_file_path
from inspector.log.deltalog import DeltaLog
from inspector.log.filetimes import commit_times
from tests.conftest import CORPUS, add_files, tombstones

SCHEMA = json.dumps(
    {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "long", "nullable": True, "metadata": {}},
            {"name": "day", "type": "string", "nullable": True, "metadata": {}},
        ],
    }
)


def write_commit(root: Path, version: int, *actions: dict) -> None:
    log = root / "_delta_log"
    log.mkdir(parents=True, exist_ok=True)
    (log / f"{version:020d}.json").write_text("\n".join(json.dumps(a) for a in actions) + "\n")


def add(path: str, size: int = 100, **extra) -> dict:
    return {
        "add": {
            "path": path,
            "partitionValues": {"day": "mon"},
            "size": size,
            "modificationTime": 1,
            "dataChange": True,
            **extra,
        }
    }


def remove(path: str, **extra) -> dict:
    return {"remove": {"path": path, "deletionTimestamp": 2, "dataChange": True, **extra}}


CREATE = (
    {"commitInfo": {"timestamp": 1_700_000_000_000, "operation": "CREATE TABLE"}},
    {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
    {
        "metaData": {
            "id": "t-1",
            "format": {"provider": "parquet", "options": {}},
            "schemaString": SCHEMA,
            "partitionColumns": ["day"],
            "configuration": {},
            "createdTime": 1_700_000_000_000,
        }
    },
)


@pytest.fixture
def written(tmp_path) -> Path:
    """A table written by deltalake: create, append, append (versions 0..2)."""
    root = tmp_path / "written"
    for _ in range(3):
        write_deltalake(str(root), pd.DataFrame({"id": [1, 2]}), mode="append")
    return root


def test_a_table_opens_by_path_by_file_uri_and_with_a_trailing_slash(written):
    for location in (str(written), f"file://{written}", f"{written}/"):
        log = DeltaLog.open(location)
        assert log.table_root == str(written)
        assert (log.earliest_version, log.latest_version) == (0, 2)


def test_an_unsupported_scheme_is_refused_in_plain_words():
    with pytest.raises(NotADeltaTable) as err:
        DeltaLog.open("hdfs://namenode/table")
    assert "uses the hdfs:// scheme" in err.value.message
    assert "s3://" in err.value.hint and "abfss://" in err.value.hint and "gs://" in err.value.hint


def test_versions_come_from_file_names_not_from_counting(tmp_path):
    root = tmp_path / "t"
    write_commit(root, 0, *CREATE)
    write_commit(root, 7, add("a.parquet"))
    (root / "_delta_log" / "00000000000000000007.crc").write_text("{}")
    (root / "_delta_log" / ".00000000000000000008.json.tmp").write_text("half a commit")
    (root / "_delta_log" / "notes.txt").write_text("not part of the log")

    log = DeltaLog.open(str(root))

    assert log.listing.commit_versions == [0, 7]
    assert list(log.listing.crcs) == [7]
    assert log.latest_version == 7
    assert [c.version for c in log.commits] == [0, 7]


def test_every_action_kind_is_parsed_into_its_record(tmp_path):
    root = tmp_path / "t"
    dv = {
        "storageType": "u",
        "pathOrInlineDv": "ab^-aqEH.-t@S}K{vb[*k^",
        "offset": 4,
        "sizeInBytes": 40,
        "cardinality": 3,
    }
    write_commit(root, 0, *CREATE, add("day=mon/a.parquet", stats='{"numRecords":10}'))
    write_commit(
        root,
        1,
        {
            "commitInfo": {
                "timestamp": 1_700_000_001_000,
                "operation": "DELETE",
                "operationParameters": {"predicate": '["id = 1"]'},
                "readVersion": 0,
                "engineInfo": "test",
                "userName": "ana",
            }
        },
        remove("day=mon/a.parquet", size=100),
        add(
            "day=mon/a.parquet",
            deletionVector=dv,
            stats='{"numRecords":10}',
            tags={"k": "v"},
            baseRowId=5,
            defaultRowCommitVersion=1,
        ),
        {
            "cdc": {
                "path": "_change_data/c.parquet",
                "partitionValues": {},
                "size": 7,
                "dataChange": False,
            }
        },
        {"txn": {"appId": "stream-1", "version": 42, "lastUpdated": 3}},
        {
            "domainMetadata": {
                "domain": "delta.rowTracking",
                "configuration": "{}",
                "removed": False,
            }
        },
        {"someFutureAction": {"x": 1}},
    )

    log = DeltaLog.open(str(root))
    commit = log.commit(1)

    kinds = [type(a) for a in commit.actions]
    assert kinds == [
        CommitInfo,
        RemoveFile,
        AddFile,
        AddCDCFile,
        Txn,
        DomainMetadata,
        UnknownAction,
    ]
    assert commit.is_complete and commit.problems == ()
    info = commit.commit_info
    assert (info.operation, info.read_version, info.user, info.engine_info) == (
        "DELETE",
        0,
        "ana",
        "test",
    )
    new = commit.adds[0]
    assert new.key == ("day=mon/a.parquet", "uab^-aqEH.-t@S}K{vb[*k^@4")
    assert (new.num_records, new.num_live_records) == (10, 7)
    assert (new.tags, new.base_row_id, new.default_row_commit_version) == ({"k": "v"}, 5, 1)
    assert commit.removes[0].key == ("day=mon/a.parquet", None)
    assert commit.cdc_files[0].size == 7
    assert commit.actions[-1].name == "someFutureAction", "unknown actions are kept, not dropped"
    assert isinstance(log.commit(0).metadata, Metadata) and isinstance(
        log.commit(0).protocol, Protocol
    )

    snapshot = log.snapshot(1)
    assert list(snapshot.files) == [new.key]
    assert snapshot.num_records == 7
    assert snapshot.app_transactions["stream-1"].version == 42
    assert list(snapshot.domain_metadata) == ["delta.rowTracking"]
    assert snapshot.partition_columns == ("day",)
    assert snapshot.schema.field_names() == ["id", "day"]


def test_a_removed_domain_and_a_re_added_file_replay_in_order(tmp_path):
    root = tmp_path / "t"
    domain = {"domain": "app.settings", "configuration": '{"a":1}', "removed": False}
    write_commit(root, 0, *CREATE, add("day=mon/a.parquet"), {"domainMetadata": domain})
    write_commit(
        root, 1, remove("day=mon/a.parquet"), {"domainMetadata": {**domain, "removed": True}}
    )
    write_commit(root, 2, add("day=mon/a.parquet", size=200))

    log = DeltaLog.open(str(root))

    assert log.snapshot(1).num_files == 0 and log.snapshot(1).domain_metadata == {}
    assert [r.path for r in tombstones(log.snapshot(1))] == ["day=mon/a.parquet"]
    assert [a.size for a in add_files(log.snapshot(2))] == [200]
    assert tombstones(log.snapshot(2)) == []


def test_url_encoded_and_plain_spellings_of_a_path_are_one_file(tmp_path):
    root = tmp_path / "t"
    write_commit(root, 0, *CREATE, add("day=mon/a%20b.parquet"))
    write_commit(root, 1, remove("day=mon/a b.parquet"))
    log = DeltaLog.open(str(root))
    assert list(log.snapshot(0).files) == [("day=mon/a b.parquet", None)]
    assert log.snapshot(1).num_files == 0
    assert data_file_path(log.table_root, add_files(log.snapshot(0))[0].path) == str(
        root / "day=mon/a b.parquet"
    )


def test_deletion_vector_ids_name_files_that_exist():
    root = CORPUS / "delta-golden/log-replay-dv-key-cases"
    log = DeltaLog.open(str(root))
    for version in (1, 2, 3):
        (add_file,) = add_files(log.snapshot(version))
        dv_path = add_file.deletion_vector.relative_or_absolute_path()
        assert dv_path.startswith("deletion_vector_") and (root / dv_path).is_file()


def test_snapshots_start_from_the_newest_checkpoint_and_are_cached(written):
    DeltaTable(str(written)).create_checkpoint()
    write_deltalake(str(written), pd.DataFrame({"id": [3]}), mode="append")

    log = DeltaLog.open(str(written))

    latest = log.snapshot()
    assert latest.replayed_from == "checkpoint 2 + commit 3"
    assert log.snapshot(3) is latest
    assert log.snapshot(1).replayed_from == "the empty table + commits 0..1"
    assert latest.num_files == 4 and latest.size_in_bytes == sum(a.size for a in add_files(latest))
    assert 2 not in log.checkpoint_problems(verify_all=True)


def test_unknown_versions_are_refused_with_the_valid_range(written):
    log = DeltaLog.open(str(written))
    for version in (3, 99, -1):
        with pytest.raises(VersionNotFound) as err:
            log.snapshot(version)
        assert "is not in this table's log; it has versions 0 to 2" in err.value.message
        assert err.value.hint == "Pick a version between 0 and 2."
    with pytest.raises(VersionNotFound):
        log.commit(5)


def test_the_raw_commit_text_is_available_for_display(written):
    log = DeltaLog.open(str(written))
    text = log.commit_text(1)
    assert text == (written / "_delta_log" / "00000000000000000001.json").read_text()
    assert '"commitInfo"' in text


@pytest.mark.parametrize(
    "stats, expected",
    [
        ('{"numRecords":5,"minValues":{"a":1}}', 5),
        ('{"minValues":{"numRecords":3},"numRecords":7}', 7),  # a column called numRecords
        ('{"numRecords": 12 }', 12),
        ('{"numRecords":"many"}', None),
        ("not json", None),
        (None, None),
    ],
)
def test_record_counts_come_from_the_top_level_numRecords(stats, expected):
    extra = {"stats": stats} if stats is not None else {}
    assert parse_action(add("x.parquet", **extra)).num_records == expected


@pytest.mark.parametrize(
    "name",
    [
        "delta-kernel-java/basic-with-checkpoint",
        "delta-rs/checkpoints_vacuumed",
        "dat-v0.0.2/no_stats/delta",
    ],
)
def test_the_commit_times_a_page_chains_from_are_the_whole_listings(name):
    log = DeltaLog.open(str(CORPUS / name))
    listed = {v: f.modification_time for v, f in log.listing.commits.items()}
    below = max(listed)

    assert commit_times(DeltaLog.open(str(CORPUS / name)), below) == {
        v: t for v, t in listed.items() if v < below
    }
