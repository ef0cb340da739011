"""Specification: the metadata at a version, read without the version's files, is the
snapshot's metadata.

It comes from the newest ``metaData`` and ``protocol`` among the commits down to the newest
checkpoint at or below the version, or from that checkpoint's two columns alone; anything
unusual goes to the snapshot, which says what is wrong (the same error). Checked at the
checkpoints, the versions after them and sampled versions (seeded) of every readable corpus
table, and at every version of a table whose 6,000 files are in checkpoint 0.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from bench.tablegen import make_files_table
from inspector.delta.errors import InspectorError
from inspector.delta.schema import logical_names
from inspector.log.deltalog import DeltaLog
from inspector.log.tablemeta import metadata_at
from inspector.table.versions import file_action_record
from tests.conftest import CORPUS, corpus_index, run_main


def _either(read, *args):  # noqa: ANN001, ANN202 - a value, or the error's type and message
    try:
        return read(*args)
    except InspectorError as exc:
        return (type(exc).__name__, exc.message)


def _snapshot_metadata(log: DeltaLog, version: int) -> object:
    return log.snapshot(version).metadata


def test_at_every_checkpoint_and_sampled_versions_of_every_corpus_table_it_is_the_snapshots() -> (
    None
):
    rng = random.Random(24)
    compared = 0
    for row in corpus_index():
        root = str(CORPUS / row["path"])
        try:
            log, fresh = DeltaLog.open(root), DeltaLog.open(root)
        except InspectorError:
            continue
        checkpoints = {cp.version for cp in log.listing.usable_checkpoints()}
        edges = {0, log.latest_version, *checkpoints, *(v + 1 for v in checkpoints)}
        sample = rng.sample(range(log.latest_version + 1), min(5, log.latest_version + 1))
        for version in sorted({*edges, *sample} & set(range(log.latest_version + 1))):
            expected = _either(_snapshot_metadata, log, version)
            assert _either(metadata_at, fresh, version) == expected, (row["path"], version)
            compared += 1
    assert compared > 800


def test_a_checkpoints_metadata_is_read_alone(tmp_path: Path) -> None:
    root = tmp_path / "t"
    make_files_table(str(root), 6000)  # 6,000 files in checkpoint 0, then 3 commits
    log = DeltaLog.open(str(root))

    found = [metadata_at(log, v) for v in range(log.latest_version + 1)]

    assert found == [DeltaLog.open(str(root)).snapshot(v).metadata for v in range(4)]


def test_files_of_a_big_commit_are_the_actions_the_columnar_read_gives(tmp_path: Path, capsys):
    # files parses a big commit into records at once; the log reads it by Arrow's JSON reader.
    root = tmp_path / "t"
    make_files_table(str(root), 12_000)  # version 1: a MERGE of 6,000 actions, 2 MB
    log = DeltaLog.open(str(root))
    commit = log.commit(1)
    names = logical_names(log.snapshot(1).schema)
    assert commit.columns is not None  # the columnar read

    code, out, _ = run_main(capsys, "files", root, "--version", 1, "--json")

    assert code == 0
    printed = json.loads(out)
    assert printed["added"] == [file_action_record(a, names) for a in commit.adds]
    assert printed["removed"] == [file_action_record(r, names) for r in commit.removes]
