"""Every table of the corpus, read by our log reader and checked against deltalake.

deltalake (delta-rs 1.6.6) is the oracle wherever it can load a version: the live
files (paths and sizes, and deletion vectors), the protocol and the metadata must
be the same. Where deltalake cannot load a version, we must still either read it
or raise one of our documented errors, never anything else. Log-only: no Spark.
"""

from __future__ import annotations

import os
from collections import Counter

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from inspector.delta.actions import canonical_path
from inspector.delta.errors import CorruptLog, InspectorError, NotADeltaTable
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.log.snapshot import Snapshot
from inspector.settings import Settings
from inspector.table.history import build_history
from tests.conftest import CORPUS, corpus_index

TABLES = corpus_index()

# deltalake does not canonicalize paths during log replay: an add of
# "/some/unqualified/absolute/path" and a remove of "file:/some/unqualified/absolute/path"
# (or "file:///...") are the same file, so Delta (DeltaLogSuite "paths should be
# canonicalized", standalone's TestLog_paths_should_be_canonicalized_*) finds NO file at
# version 1. delta-kernel-rs, which deltalake is built on, skips these golden tables with
# "BUG: path canonicalization" (kernel/tests/golden_tables.rs). We follow Delta.
DELTALAKE_CANONICALIZATION_BUG = {
    f"delta-kernel-rs-golden/canonicalized-paths-{kind}/delta"
    for kind in ("normal-a", "normal-b", "special-a", "special-b")
}

# Folders in the corpus that are not Delta tables, by design of the upstream fixture.
NOT_TABLES = {
    "delta-golden/no-delta-log-folder": "it has no _delta_log folder",
    "delta-kernel-rs-golden/no-delta-log-folder/delta": "it has no _delta_log folder",
    "delta-kernel-rs/crc-malformed": "no commit or checkpoint files",
}


def _param(entry: dict):
    marks = []
    if entry["path"] in DELTALAKE_CANONICALIZATION_BUG:
        marks.append(
            pytest.mark.xfail(
                strict=True,
                reason=(
                    "deltalake/delta-kernel-rs bug: no path canonicalization in log replay "
                    "(delta-kernel-rs golden_tables.rs: 'BUG: path canonicalization'); Delta finds no "
                    "file at version 1, and so do we (test_paths_are_canonicalized_like_delta)"
                ),
            )
        )
    return pytest.param(entry, id=entry["path"], marks=marks)


def relative(path: str, root: str) -> str:
    """A log path URL-decoded once and made relative to the table root."""
    path = canonical_path(path)
    # deltalake reports some paths with symlinks resolved (the corpus may sit behind one).
    for prefix in (root, os.path.realpath(root)):
        if path.startswith(prefix + "/"):
            return path[len(prefix) + 1 :]
    return path


def our_files(snapshot: Snapshot) -> Counter:
    return Counter((relative(a.path, snapshot.table_root), a.size) for a in snapshot.files.values())


def deltalake_files(table: DeltaTable, root: str) -> Counter:
    adds = pa.table(table.get_add_actions(flatten=False)).select(["path", "size_bytes"]).to_pylist()
    return Counter((relative(a["path"], root), a["size_bytes"]) for a in adds)


def deltalake_deleted_rows(table: DeltaTable, root: str) -> dict[str, int] | None:
    """Rows marked deleted per file, from deltalake's deletion vectors (None if it cannot say)."""
    try:
        vectors = pa.table(table.deletion_vectors()).to_pylist()
    except Exception:  # DV files absent from some fixtures; deltalake then cannot tell
        return None
    return {
        relative(v["filepath"].removeprefix("file://"), root): v["selection_vector"].count(False)
        for v in vectors
    }


def our_deleted_rows(snapshot: Snapshot) -> dict[str, int]:
    return {
        relative(a.path, snapshot.table_root): a.deletion_vector.cardinality
        for a in snapshot.files.values()
        if a.deletion_vector
    }


def assert_same_state(ours: Snapshot, theirs: DeltaTable, entry: dict) -> None:
    root, version = ours.table_root, ours.version
    assert our_files(ours) == deltalake_files(theirs, root), (
        f"live files differ at version {version}"
    )
    protocol = theirs.protocol()
    assert (ours.protocol.min_reader_version, ours.protocol.min_writer_version) == (
        protocol.min_reader_version,
        protocol.min_writer_version,
    )
    assert set(ours.protocol.reader_features or ()) == set(protocol.reader_features or ())
    assert set(ours.protocol.writer_features or ()) == set(protocol.writer_features or ())
    metadata = theirs.metadata()
    assert ours.metadata.id == metadata.id
    assert list(ours.partition_columns) == list(metadata.partition_columns)
    assert dict(ours.metadata.configuration) == dict(metadata.configuration)
    if "deletion-vectors" in entry["features"]:
        theirs_deleted = deltalake_deleted_rows(theirs, root)
        if theirs_deleted is not None:
            assert our_deleted_rows(ours) == theirs_deleted, f"deletion vectors differ at {version}"


@pytest.mark.parametrize("entry", [_param(e) for e in TABLES])
def test_every_version_matches_deltalake_where_deltalake_can_load_it(entry):
    root = str(CORPUS / entry["path"])
    if entry["path"] in NOT_TABLES:
        with pytest.raises(NotADeltaTable) as err:
            DeltaLog.open(root)
        assert NOT_TABLES[entry["path"]] in err.value.message
        return
    log = DeltaLog.open(root)
    build_history(log, Settings())
    table_problems(log)
    compared = 0
    # Versions named by a file; gaps (one fixture jumps to 9999) only need our own error.
    listed = sorted(set(log.listing.commits) | set(log.listing.checkpoints))
    for version in sorted(set(listed) | set(range(listed[-1] + 2)) - _deep_gaps(listed)):
        try:
            theirs = DeltaTable(root, version=version)
        except Exception:  # deltalake cannot load it: we read it or say why, nothing else
            try:
                log.snapshot(version)
            except InspectorError as exc:
                assert exc.message and exc.hint
            continue
        assert_same_state(log.snapshot(version), theirs, entry)
        compared += 1
    if entry["deltalake_1_6_6"]["load_ok"]:
        assert compared, "deltalake loads this table, so at least one version was compared"


def _deep_gaps(listed: list[int]) -> set[int]:
    """Versions inside gaps of the log, except the first of each gap."""
    return {v for a, b in zip(listed, listed[1:], strict=False) for v in range(a + 2, b)}


def test_the_corpus_is_all_there():
    assert len(TABLES) == 375
    assert sum(e["deltalake_1_6_6"]["load_ok"] for e in TABLES) == 338


# --- the tricky parts of the protocol, one by one ---------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "delta-golden/canonicalized-paths-normal-a",
        "delta-golden/canonicalized-paths-normal-b",
        "delta-golden/canonicalized-paths-special-a",
        "delta-golden/canonicalized-paths-special-b",
        *sorted(DELTALAKE_CANONICALIZATION_BUG),
    ],
)
def test_paths_are_canonicalized_like_delta(path):
    log = DeltaLog.open(str(CORPUS / path))
    assert log.snapshot(0).num_files == 1
    assert log.snapshot(1).num_files == 0, "the add and the file: URI remove name the same file"


def test_special_characters_in_paths_are_url_decoded_once():
    removed = DeltaLog.open(str(CORPUS / "delta-golden/log-replay-special-characters"))
    assert removed.snapshot(1).num_files == 0
    kept = DeltaLog.open(str(CORPUS / "delta-golden/log-replay-special-characters-b"))
    assert [path for path, _dv in kept.snapshot().files] == ["special p@#h"]
    partitioned = DeltaLog.open(str(CORPUS / "dat-v0.0.2/multi_partitioned/delta"))
    paths = sorted(path for path, _dv in partitioned.snapshot(2).files)
    # The log says letter=%252F%252520%2525f: one decoding gives the folder on disk.
    assert paths[0].startswith("letter=%2F%2520%25f/")
    assert (CORPUS / "dat-v0.0.2/multi_partitioned/delta" / "letter=%2F%2520%25f").is_dir()


def test_deletion_vectors_are_part_of_a_files_identity():
    log = DeltaLog.open(str(CORPUS / "delta-golden/log-replay-dv-key-cases"))
    path = "part-00000-90177277-75c2-48db-92a2-20dcba39fd06-c000.snappy.parquet"
    assert list(log.snapshot(0).files) == [(path, None)]
    for version, dv_id, deleted in (
        (1, "uh{&8fAg]=QYJvl-}c!yH@1", 1),
        (2, "uj=hZPftg7qJYIw^L+Oz9@1", 2),
        (3, "u^jP?.<zvDfIGb{C.FPij@1", 3),
    ):
        files = log.snapshot(version).files
        assert list(files) == [(path, dv_id)], (
            "the remove of the old (path, DV) leaves only the new"
        )
        assert files[(path, dv_id)].deletion_vector.cardinality == deleted


@pytest.mark.parametrize(
    "path, kind, version",
    [
        ("delta-golden/multi-part-checkpoint", "multi-part", 1),
        ("delta-kernel-java/kernel-pagination-multi-part-checkpoints", "multi-part", None),
        ("delta-golden/v2-checkpoint-json", "v2", 2),
        ("delta-golden/v2-checkpoint-parquet", "v2", 2),
        ("delta-kernel-rs/v2-checkpoints-json-with-sidecars", "v2", None),
        ("delta-kernel-rs/v2-checkpoints-parquet-with-sidecars", "v2", None),
        ("delta-kernel-rs/v2-checkpoints-parquet-without-sidecars", "v2", None),
    ],
)
def test_snapshots_start_from_multi_part_and_v2_checkpoints(path, kind, version):
    log = DeltaLog.open(str(CORPUS / path))
    checkpoint = log.listing.usable_checkpoints()[0]
    assert checkpoint.kind == kind
    assert version is None or checkpoint.version == version
    snapshot = log.snapshot(checkpoint.version)
    assert snapshot.replayed_from == f"checkpoint {checkpoint.version}"
    assert checkpoint.version not in log.checkpoint_problems(verify_all=True)
    theirs = DeltaTable(str(CORPUS / path), version=checkpoint.version)
    assert our_files(snapshot) == deltalake_files(theirs, snapshot.table_root)


def test_a_version_that_only_has_a_checkpoint_is_readable_and_listed():
    path = "delta-rs/table-with-domain-metadata"
    log = DeltaLog.open(str(CORPUS / path))
    assert log.commits == [] and log.earliest_version == log.latest_version == 108
    snapshot = log.snapshot(108)
    assert our_files(snapshot) == deltalake_files(
        DeltaTable(str(CORPUS / path)), snapshot.table_root
    )
    assert set(snapshot.domain_metadata) == {
        "delta.clustering",
        "com.databricks.liquid",
        "delta.rowTracking",
    }
    assert [e.version for e in build_history(log, Settings())] == [108]


def test_log_compaction_files_are_listed_but_not_needed():
    log = DeltaLog.open(str(CORPUS / "delta-kernel-rs/compacted-log-files-table"))
    assert [f.name for f in log.listing.compacted] == [
        "00000000000000000000.00000000000000000005.compacted.json",
        "00000000000000000006.00000000000000000010.compacted.json",
        "00000000000000000006.00000000000000000015.compacted.json",
    ]
    assert log.snapshot().replayed_from == f"the empty table + commits 0..{log.latest_version}"
    assert [
        e.problems
        for e in build_history(log, Settings())
        if any("compact" in p for p in e.problems)
    ] == []


def test_column_mapping_tables_expose_physical_names():
    log = DeltaLog.open(str(CORPUS / "delta-golden/table-with-columnmapping-mode-name"))
    metadata = log.snapshot().metadata
    assert metadata.column_mapping_mode == "name"
    field = metadata.schema.fields[0]
    assert field.physical_name.startswith("col-") and field.column_id is not None


def test_catalog_managed_staged_commits_are_reported_not_read():
    log = DeltaLog.open(str(CORPUS / "delta-kernel-rs/uc__catalog_managed_0"))
    assert any("2 staged commit file(s)" in p for p in table_problems(log))


def test_every_checkpoint_in_the_corpus_agrees_with_its_commits_but_known_bad_ones():
    disagreeing, unusable = {}, {}
    for entry in TABLES:
        if entry["path"] in NOT_TABLES:
            continue
        log = DeltaLog.open(str(CORPUS / entry["path"]))
        for _version, problems in log.checkpoint_problems(verify_all=True).items():
            for problem in problems:
                bucket = unusable if "cannot be used" in problem else disagreeing
                bucket.setdefault(entry["path"], []).append(problem)
    # A hand-assembled fixture: its multi-part checkpoint carries another table's metaData.
    assert disagreeing == {
        "delta-kernel-rs/parquet_row_group_skipping": [
            "Checkpoint 1 has different table metadata (id, schema, configuration) than its commits "
            "(the empty table + commits 0..1)."
        ]
    }
    # Golden tables built to test exactly this: checkpoints without metaData / protocol.
    assert sorted(unusable) == sorted(
        f"{prefix}deltalog-state-reconstruction-from-checkpoint-missing-{what}{suffix}"
        for prefix, suffix in (("delta-golden/", ""), ("delta-kernel-rs-golden/", "/delta"))
        for what in ("metadata", "protocol")
    )


@pytest.mark.parametrize(
    "path, message",
    [
        (
            "delta-golden/versions-not-contiguous",
            "Version 2 cannot be reconstructed: commit files are missing for versions 1.",
        ),
        (
            "delta-golden/deltalog-state-reconstruction-without-metadata",
            "Version 0 has no metaData action in its log; the table's state cannot be determined.",
        ),
        (
            "delta-golden/deltalog-state-reconstruction-without-protocol",
            "Version 0 has no protocol action in its log; the table's state cannot be determined.",
        ),
    ],
)
def test_broken_golden_tables_give_plain_errors(path, message):
    log = DeltaLog.open(str(CORPUS / path))
    with pytest.raises(CorruptLog) as err:
        log.snapshot()
    assert err.value.message == message
