"""The built-in demo table: a realistic history every view and command can show."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from inspector.delta.errors import InvalidInput
from inspector.delta.paths import data_file_path
from inspector.demo import write_demo_table
from inspector.diff.metadiff import diff_metadata
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.settings import Settings
from inspector.table.history import build_history
from tests.conftest import add_files


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> str:
    """One demo table for the module's read-only tests."""
    return write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders"))


def _deltalake_files(root: str, version: int) -> dict[str, int]:
    actions = pa.table(DeltaTable(root, version=version).get_add_actions(flatten=True))
    return {
        os.path.join(root, path): size
        for path, size in zip(
            actions["path"].to_pylist(), actions["size_bytes"].to_pylist(), strict=False
        )
    }


def test_every_version_of_the_demo_matches_deltalake(demo):
    log = DeltaLog.open(demo)

    for version in range(log.earliest_version, log.latest_version + 1):
        snapshot = log.snapshot(version)
        ours = {
            data_file_path(snapshot.table_root, add.path): add.size for add in add_files(snapshot)
        }
        assert ours == _deltalake_files(demo, version), f"version {version}"
        assert sorted(DeltaTable(demo, version=version).file_uris()) == sorted(ours)


def test_the_demo_history_tells_a_realistic_story(demo):
    history = build_history(DeltaLog.open(demo), Settings())

    operations = {entry.operation for entry in history}
    assert {"WRITE", "DELETE", "UPDATE", "MERGE", "OPTIMIZE"} <= operations
    assert {"ADD CONSTRAINT", "SET TBLPROPERTIES"} <= operations
    modes = {entry.operation_parameters.get("mode") for entry in history}
    assert {"ErrorIfExists", "Append", "Overwrite"} <= modes
    assert len(history) >= 12
    assert any(entry.user_metadata for entry in history), "some commits carry userMetadata"


def test_the_demo_evolves_its_schema_and_protocol(demo):
    log = DeltaLog.open(demo)

    diffs = {}
    for commit in log.commits[1:]:
        if commit.metadata or commit.protocol:
            before, after = log.snapshot(commit.version - 1), log.snapshot(commit.version)
            diffs[commit.version] = diff_metadata(
                (before.metadata, before.protocol), (after.metadata, after.protocol)
            )

    added = [c.name for d in diffs.values() for c in d.columns_added]
    assert added == ["channel"], "one append adds a column (schema evolution)"
    assert any(d.protocol for d in diffs.values()), "ADD CONSTRAINT upgrades the writer protocol"
    assert any(p.key == "delta.targetFileSize" for d in diffs.values() for p in d.properties)
    assert log.snapshot().partition_columns == ("region",)


def test_the_demo_has_a_checkpoint_that_replay_uses(demo):
    log = DeltaLog.open(demo)

    assert log.listing.checkpoints, "the demo must exercise checkpoint reading"
    assert log.listing.last_checkpoint is not None
    assert log.snapshot().replayed_from.startswith("checkpoint")
    assert 0 in log.listing.commits, "commits before the checkpoint are kept"


def test_the_demo_opens_without_any_problem(demo):
    log = DeltaLog.open(demo)

    assert table_problems(log) == []
    assert [e.problems for e in build_history(log, Settings()) if e.problems] == []


def test_the_demo_timeline_spreads_over_days_with_agreeing_timestamps(demo):
    history = build_history(DeltaLog.open(demo), Settings())

    stamps = [e.timestamps for e in history]
    assert all(s.commit_info == s.file_modification == s.history for s in stamps)
    assert [s.history for s in stamps] == sorted(s.history for s in stamps)
    assert stamps[-1].history - stamps[0].history > 7 * 24 * 3600 * 1000


def test_the_demo_data_is_the_same_every_time(demo, tmp_path):
    again = write_demo_table(str(tmp_path / "again"))

    def rows(root):
        return DeltaTable(root).to_pyarrow_table().sort_by("order_id").to_pylist()

    first = rows(demo)
    assert first == rows(again)
    assert 500 < len(first) < 2000


def test_writing_the_demo_again_keeps_the_existing_table(tmp_path):
    path = write_demo_table(str(tmp_path / "demo"))
    before = DeltaLog.open(path).snapshot().metadata.id

    assert write_demo_table(path) == path
    assert DeltaLog.open(path).snapshot().metadata.id == before


def test_force_replaces_the_demo_and_leaves_no_staging_folder(tmp_path):
    path = write_demo_table(str(tmp_path / "demo"))
    before = DeltaLog.open(path).snapshot().metadata.id

    assert write_demo_table(path, force=True) == path

    assert DeltaLog.open(path).snapshot().metadata.id != before
    assert os.listdir(tmp_path) == ["demo"]


def test_the_demo_accepts_an_empty_folder_and_a_file_uri(tmp_path):
    (tmp_path / "empty").mkdir()

    assert write_demo_table(str(tmp_path / "empty")) == str(tmp_path / "empty")
    assert write_demo_table(f"file://{tmp_path}/fresh") == str(tmp_path / "fresh")
    assert DeltaLog.open(str(tmp_path / "fresh")).latest_version >= 12


@pytest.mark.parametrize("force", [False, True])
def test_the_demo_refuses_to_overwrite_a_folder_that_is_not_a_delta_table(tmp_path, force):
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")

    with pytest.raises(InvalidInput) as raised:
        write_demo_table(str(folder), force=force)

    assert "not a Delta table" in raised.value.message and raised.value.hint
    assert os.listdir(folder) == ["notes.txt"]
    assert os.listdir(tmp_path) == ["precious"]


def test_the_demo_refuses_a_path_that_is_a_file_or_under_one(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")

    with pytest.raises(InvalidInput, match="is a file"):
        write_demo_table(str(blocker))
    with pytest.raises(InvalidInput, match="could not be written") as raised:
        write_demo_table(str(blocker / "demo"))
    assert raised.value.hint
