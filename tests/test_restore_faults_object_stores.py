"""Specification: on an object store, a commit crashed at any step leaves no commit or a whole one.

The same deterministic crash points as ``tests/test_restore_faults.py``, on moto's S3 and on
Azurite: the object store's writer reports each step it finishes (the create-if-absent
probe object created, then removed; the commit object put), and a child process writing a
commit ends itself with ``os._exit`` right after one step, as on a SIGKILL. Afterwards the
log must be whole: no partial and no duplicated version, the latest version the old one
(crash before the put) or the new one (after it), deltalake agreeing, and the next commit
(the next plan's) possible.
"""

from __future__ import annotations

import pytest
from deltalake import DeltaTable

from inspector.log.commit_writer import write_commit
from inspector.log.deltalog import DeltaLog
from inspector.storage.location import open_storage
from inspector.storage.objectstore import ObjectCommitStep
from tests.conftest import CORPUS, add_files, crash_in_child

TABLE = CORPUS / "dat-v0.0.2/basic_append/delta"

NEW_VERSION_AFTER = {
    ObjectCommitStep.PROBE_CREATED: False,
    ObjectCommitStep.PROBE_REMOVED: False,
    ObjectCommitStep.PUT: True,
}


def test_every_step_of_the_object_store_writer_is_covered():
    assert set(NEW_VERSION_AFTER) == set(ObjectCommitStep)


def crash_writing(uri: str, options: dict, version: int, actions: list, step: ObjectCommitStep):
    """Write ``actions`` as ``version`` in a child process that crashes right after ``step``."""
    job = {"uri": uri, "options": options, "version": version, "actions": actions, "step": step}
    crash_in_child(job)


@pytest.mark.parametrize("store", ["s3_server", "azurite"])
@pytest.mark.parametrize("step", list(ObjectCommitStep))
def test_a_commit_crashed_after_any_step_leaves_no_commit_or_a_whole_one(request, store, step):
    server = request.getfixturevalue(store)
    uri = server.upload(TABLE)
    log = DeltaLog.open(uri, storage_options=server.options)
    old_version = log.latest_version
    gone = add_files(log.snapshot())[0]
    actions = [
        {"commitInfo": {"operation": "DELETE", "timestamp": 1_700_000_000_000}},
        {"remove": {"path": gone.path, "deletionTimestamp": 1_700_000_000_000, "dataChange": True}},
    ]

    crash_writing(uri, server.options, old_version + 1, actions, step)

    new = NEW_VERSION_AFTER[step]
    expected = old_version + 1 if new else old_version
    after = DeltaLog.open(uri, storage_options=server.options)
    assert all(c.is_complete for c in after.commits), "a partial commit is visible"
    commits = [k for k in server.keys(uri) if k.startswith("_delta_log/") and k.endswith(".json")]
    versions = [int(k.rsplit("/", 1)[1][:20]) for k in commits if not k.rsplit("/")[-1][0] == "."]
    assert sorted(versions) == sorted(set(versions)) and max(versions) == expected
    assert after.latest_version == expected
    assert DeltaTable(uri, storage_options=server.options).version() == expected
    if new:
        assert after.commit(expected).commit_info.operation == "DELETE"
    # The next writer (the next plan's commit) sees the truth and is not blocked.
    storage = open_storage(uri, options=server.options)
    write_commit(storage, expected + 1, [{"commitInfo": {"operation": "WRITE"}}])
    assert DeltaLog.open(uri, storage_options=server.options).latest_version == expected + 1
