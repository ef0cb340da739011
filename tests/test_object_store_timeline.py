"""Specification: on an object store the app's first Timeline screen reads a short newest
page, and the rest of the history follows in the background, the same as read whole.

Every commit is a request on an object store, so the first page holds
:data:`ui.history_load.REMOTE_FIRST_PAGE` versions (down to just after a checkpoint), not a
whole window. The log of a streaming job's table of 700 commits (``bench/tablegen.py``, a
checkpoint every 100 versions) is uploaded to moto's S3 server on loopback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.tablegen import make_commits_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from ui.history_load import REMOTE_FIRST_PAGE, HistoryLoad

COMMITS = 700


@pytest.fixture(scope="module")
def s3_log_uri(s3_server, tmp_path_factory: pytest.TempPathFactory) -> str:
    made = tmp_path_factory.mktemp("timeline-s3")
    make_commits_table(str(made / "table"), COMMITS)
    log_only = made / "log-only"  # the Timeline reads no data file
    shutil.copytree(made / "table" / "_delta_log", log_only / "_delta_log")
    return s3_server.upload(Path(log_only), "c700")


def test_the_first_page_on_an_object_store_is_short(s3_server, s3_log_uri):
    log = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)

    load = HistoryLoad(log, Settings())

    versions = [e.version for e in load.entries]
    assert versions[-1] == COMMITS - 1 and not load.done
    assert REMOTE_FIRST_PAGE <= len(versions) < REMOTE_FIRST_PAGE + 100  # to a checkpoint


def test_the_rest_read_in_the_background_is_the_whole_history(s3_server, s3_log_uri):
    log = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)
    load = HistoryLoad(log, Settings())

    load.start_background()
    whole = load.whole()

    fresh = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)
    assert list(whole) == build_history(fresh, Settings())
