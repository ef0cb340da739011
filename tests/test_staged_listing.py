"""Specification: on every object store a catalog-managed log's staged commits
(``_delta_log/_staged_commits/<version>.<uuid>.json``) are counted from the refresh's own
listing, as a local folder's listing counts them, and a refresh sees one go though no version
was published (S3's request count: ``tests/test_log_index_s3.py``)."""

from __future__ import annotations

import pytest

from inspector.delta.paths import LOG_DIR
from inspector.log.deltalog import DeltaLog
from tests.conftest import one_row_appends


@pytest.mark.parametrize("store", ["s3_server", "gcs_server", "azurite"])
def test_the_staged_commits_in_an_object_store_are_counted_as_in_a_local_copy(
    request, tmp_path, store
):
    from deltalake import DeltaTable

    server = request.getfixturevalue(store)
    local = tmp_path / "t"
    one_row_appends(local, 12, seed=7)
    DeltaTable(str(local)).create_checkpoint()  # the refresh lists from it (start-after)
    staged = local / LOG_DIR / "_staged_commits"
    staged.mkdir()
    names = [f"{v:020d}.3a0d65cd-4056-49b8-937b-95f9e3ee90e{v % 10}.json" for v in (12, 13)]
    for name in names:
        (staged / name).write_bytes((local / LOG_DIR / f"{11:020d}.json").read_bytes())
    uri = server.upload(local)

    log = DeltaLog.open(uri, storage_options=server.options)
    assert len(log.staged_files) == len(DeltaLog.open(str(local)).staged_files) == 2
    server.delete(f"{uri}/{LOG_DIR}/_staged_commits/{names[0]}")
    assert not log.refresh() and len(log.staged_files) == 1
