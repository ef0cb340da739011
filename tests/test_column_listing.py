"""A whole listing made from a listing record's columns (a later open on an object store) is
the listing a full listing gives: the same commits, checksums, checkpoints, compacted files
and hint, each commit's ``LogFile`` made only when asked for."""

from __future__ import annotations

import pytest

from inspector.delta.errors import InspectorError
from inspector.delta.paths import LOG_DIR
from inspector.log.columnlisting import ColumnFiles, listing_of_columns
from inspector.log.index.listed import ListingRecord
from inspector.log.listing import list_entries, list_log
from inspector.storage import LocalStorage
from tests.conftest import CORPUS, corpus_index

TABLES = [entry["path"] for entry in corpus_index()]


@pytest.mark.parametrize("path", TABLES)
def test_a_listing_from_columns_equals_the_full_listing(path):
    storage = LocalStorage(str(CORPUS / path))
    try:
        expected = list_log(storage)
    except InspectorError:
        return  # not a table: a record is made only of a listed log
    entries = list_entries(storage)
    logs = [e for e in entries if e.name[:1].isdigit()]
    record = ListingRecord.of(logs)
    columns = (record.paths, record.sizes, record.times, record.etags)
    made = listing_of_columns(
        storage, columns, [e for e in entries if e not in logs], last=expected.last_checkpoint
    )
    assert dict(made.commits) == dict(expected.commits)
    assert dict(made.crcs) == dict(expected.crcs)
    assert made.checkpoints == expected.checkpoints
    assert made.compacted == expected.compacted
    assert made.last_checkpoint == expected.last_checkpoint
    assert made == listing_of_columns(
        storage, columns, [e for e in entries if e not in logs], last=expected.last_checkpoint
    )


def test_a_changed_file_makes_two_column_listings_differ(tmp_path):
    storage = LocalStorage(str(CORPUS / TABLES[0]))
    paths = [f"{LOG_DIR}/{v:020d}.json" for v in range(3)]
    one = ColumnFiles(storage, (paths, [1, 2, 3], [5, 5, 5], [None] * 3), {0: 0, 1: 1, 2: 2})
    same = ColumnFiles(storage, (paths, [1, 2, 3], [5, 5, 5], [None] * 3), {0: 0, 1: 1, 2: 2})
    other = ColumnFiles(storage, (paths, [1, 2, 4], [5, 5, 5], [None] * 3), {0: 0, 1: 1, 2: 2})
    assert one == same and one != other and one == dict(same)
    assert 2 in one and 3 not in one and one[2].size == 3 and list(one) == [0, 1, 2]
