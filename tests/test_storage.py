"""The storage layer: one interface, a local folder and an object store behave alike."""

from __future__ import annotations

import pytest

from inspector.delta.errors import ConcurrentModification, NotADeltaTable
from inspector.log.deltalog import DeltaLog
from inspector.storage import LocalStorage, open_storage, parse_location
from inspector.storage.objectstore import ObjectStorage
from tests.conftest import CORPUS

PARTITIONED = CORPUS / "dat-v0.0.2/multi_partitioned/delta"
CHECKPOINTED = CORPUS / "dat-v0.0.2/with_checkpoint/delta"


@pytest.mark.parametrize(
    "typed, kind, root",
    [
        ("/data/t/", "file", "/data/t"),
        ("file:///data/t", "file", "/data/t"),
        ("s3://bucket/t/", "s3", "s3://bucket/t"),
        ("s3a://bucket/t", "s3", "s3a://bucket/t"),
        ("abfss://c@acct.dfs.core.windows.net/t", "az", "abfss://c@acct.dfs.core.windows.net/t"),
        ("abfs://c@acct.dfs.core.windows.net/t", "az", "abfs://c@acct.dfs.core.windows.net/t"),
        ("az://container/t", "az", "az://container/t"),
        ("gs://bucket/t", "gs", "gs://bucket/t"),
    ],
)
def test_every_supported_location_is_recognised(typed, kind, root):
    location = parse_location(typed)
    assert (location.kind, location.root) == (kind, root)


def test_a_location_without_a_bucket_is_bad_input():
    with pytest.raises(NotADeltaTable, match="names no bucket"):
        parse_location("s3:///table")


def local_and_s3(s3_server, table):
    local = open_storage(str(table))
    remote = open_storage(s3_server.upload(table), options=s3_server.options)
    return local, remote


def test_a_local_folder_and_its_copy_in_s3_list_and_read_alike(s3_server):
    local, remote = local_and_s3(s3_server, CHECKPOINTED)
    assert isinstance(local, LocalStorage) and isinstance(remote, ObjectStorage)
    listed = [(m.path, m.size) for m in local.list("_delta_log")]
    assert [(m.path, m.size) for m in remote.list("_delta_log")] == listed
    after = listed[1][0]
    assert [m.path for m in remote.list("_delta_log", start_after=after)] == [
        p for p, _ in listed if p > after
    ]
    assert sorted((m.path, m.size) for m in remote.walk()) == sorted(
        (m.path, m.size) for m in local.walk()
    )
    first = listed[0][0]
    assert remote.read(first) == local.read(first)
    assert remote.read_range(first, 2, 9) == local.read_range(first, 2, 9)
    assert remote.read_many([p for p, _ in listed]) == local.read_many([p for p, _ in listed])
    assert remote.head(first).size == local.head(first).size
    assert remote.head("_delta_log/nothing.json") is None
    assert local.head("_delta_log/nothing.json") is None


@pytest.mark.parametrize("kind", ["local", "s3"])
def test_create_if_absent_never_overwrites(s3_server, tmp_path, kind):
    storage = (
        LocalStorage(str(tmp_path)) if kind == "local" else local_and_s3(s3_server, PARTITIONED)[1]
    )
    storage.put_if_absent("_delta_log/x.json", b"first\n")
    with pytest.raises(ConcurrentModification):
        storage.put_if_absent("_delta_log/x.json", b"second\n")
    assert storage.read("_delta_log/x.json") == b"first\n"


@pytest.mark.parametrize("table", [PARTITIONED, CHECKPOINTED], ids=["commits", "checkpoint"])
def test_the_log_read_from_s3_equals_the_log_read_locally(s3_server, table):
    local = DeltaLog.open(str(table))
    uri = s3_server.upload(table)
    remote = DeltaLog.open(uri, storage_options=s3_server.options)
    assert remote.table_root == uri
    assert [c.actions for c in remote.commits] == [c.actions for c in local.commits]
    for version in range(local.earliest_version, local.latest_version + 1):
        ours, theirs = remote.snapshot(version), local.snapshot(version)
        assert ours.files == theirs.files and ours.metadata == theirs.metadata
    assert remote.checkpoint_problems(verify_all=True) == local.checkpoint_problems(verify_all=True)
