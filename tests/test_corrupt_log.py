"""Damaged logs: every readable version is still listed, problems are reported
against the version they affect in plain words, and errors are the documented
ones (never a raw exception). Every test works on a COPY of a corpus table."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from inspector.delta.actions import Protocol
from inspector.delta.errors import CorruptLog, InspectorError, NotADeltaTable, VersionNotFound
from inspector.delta.protocol import describe_protocol
from inspector.health import check_table
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import history_record

# 0..14, classic checkpoint at 10, 30 live files at the end, no removes.
WITH_CHECKPOINT = "delta-kernel-java/basic-with-checkpoint"
# 0..46, checkpoints at 10, 20, 30, 40, deletion vectors.
MANY_CHECKPOINTS = "delta-kernel-java/basic-dv-with-checkpoint"
# 0..1, multi-part checkpoint (2 parts) at 1.
MULTI_PART = "delta-golden/multi-part-checkpoint"
# 0..2, V2 checkpoint at 2 with Parquet sidecars.
V2_SIDECARS = "delta-golden/v2-checkpoint-parquet"


def commit_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.json"


def checkpoint_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.checkpoint.parquet"


def cut_mid_line(path: Path) -> None:
    """Truncate a file in the middle of its last line, like an interrupted write."""
    data = path.read_bytes().rstrip(b"\n")
    last_line_start = data.rfind(b"\n") + 1
    path.write_bytes(data[: last_line_start + (len(data) - last_line_start) // 2])


def files_of(log: DeltaLog, version: int) -> set[str]:
    return {path for path, _dv in log.snapshot(version).files}


def exercise(log: DeltaLog) -> dict[int, object]:
    """What the app does with a table: history, table problems, every version's
    snapshot. Returns each version's snapshot or the InspectorError it raised;
    any other exception fails the test."""
    build_history(log, Settings())
    table_problems(log)
    outcome = {}
    for version in range(log.latest_version + 1):
        try:
            outcome[version] = log.snapshot(version)
        except InspectorError as exc:
            assert exc.message and exc.hint, "every error says what is wrong and what to do"
            outcome[version] = exc
    return outcome


def check_problems(log: DeltaLog) -> list[str]:
    """Every problem ``check`` reports (of the table and of the versions it examined)."""
    report = check_table(log, settings=Settings())
    return [*report.problems, *(p.message for v in report.versions for p in v.problems)]


def history_problems(log: DeltaLog) -> dict[int, tuple[str, ...]]:
    return {e.version: e.problems for e in build_history(log, Settings())}


def without_timestamp_problems(problems) -> list[str]:
    # Corpus copies all have fresh file times, so every version carries a
    # "probably copied" timestamp note; these tests look at the other problems.
    return [p for p in problems if "modification time" not in p]


# --- not a table at all -------------------------------------------------------------


def test_a_path_that_does_not_exist_is_not_a_delta_table(tmp_path):
    with pytest.raises(NotADeltaTable) as err:
        DeltaLog.open(str(tmp_path / "nowhere"))
    assert "does not exist" in err.value.message
    assert "_delta_log" in err.value.hint


def test_a_plain_folder_is_not_a_delta_table(tmp_path):
    (tmp_path / "data.parquet").write_bytes(b"PAR1")
    with pytest.raises(NotADeltaTable) as err:
        DeltaLog.open(str(tmp_path))
    assert "is not a Delta table: it has no _delta_log folder" in err.value.message
    assert "table root" in err.value.hint


def test_an_empty_delta_log_is_not_a_delta_table(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    for f in (table / "_delta_log").iterdir():
        f.unlink()
    with pytest.raises(NotADeltaTable) as err:
        DeltaLog.open(str(table))
    assert "has a _delta_log folder but no commit or checkpoint files" in err.value.message
    assert "backup" in err.value.hint


def test_a_delta_log_that_is_a_file_is_not_a_delta_table(tmp_path):
    (tmp_path / "_delta_log").write_text("oops")
    with pytest.raises(NotADeltaTable):
        DeltaLog.open(str(tmp_path))


# --- truncated and unparsable commits --------------------------------------------


def test_a_truncated_last_commit_is_reported_and_earlier_versions_stay_readable(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    cut_mid_line(commit_file(table, 14))

    log = DeltaLog.open(str(table))

    problems = history_problems(log)
    assert sorted(problems) == list(range(15)), "every version is still listed"
    assert any("is cut off: the file is truncated" in p for p in problems[14])
    assert all(not without_timestamp_problems(problems[v]) for v in range(14))
    assert log.snapshot(13).num_files == 28
    with pytest.raises(CorruptLog) as err:
        log.snapshot(14)
    assert (
        err.value.message
        == "Version 14 cannot be reconstructed: commit 14 is truncated or corrupt "
        f"({14:020d}.json: Line 3 of the commit is cut off: the file is truncated "
        "(an interrupted write or an incomplete copy))."
    )
    assert "Pick a version before the damage" in err.value.hint


def test_a_truncated_commit_in_the_middle_breaks_only_the_versions_up_to_the_next_checkpoint(
    copy_table,
):
    table = copy_table(WITH_CHECKPOINT)
    cut_mid_line(commit_file(table, 5))

    log = DeltaLog.open(str(table))
    outcome = exercise(log)

    assert [v for v, o in outcome.items() if isinstance(o, CorruptLog)] == [5, 6, 7, 8, 9]
    assert "commit 5 is truncated or corrupt" in outcome[7].message
    assert outcome[4].num_files == 10 and outcome[14].num_files == 30
    assert outcome[10].replayed_from == "checkpoint 10"
    assert any("Line" in p and "cut off" in p for p in history_problems(log)[5])


def test_a_commit_line_that_is_json_but_not_an_action_is_a_problem_not_a_crash(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    for version, bad_line in (
        (3, b"123"),
        (4, b'["add"]'),
        (6, b'{"commitInfo": "oops"}'),
        (7, b'{"add": {"path": 5, "size": 1}}'),
        (8, b'{"metaData": {"id": "x", "schemaString": "not json"}}'),
    ):
        with commit_file(table, version).open("ab") as fh:
            fh.write(bad_line + b"\n")

    log = DeltaLog.open(str(table))
    outcome = exercise(log)

    problems = history_problems(log)
    for version in (3, 4, 6, 7, 8):
        assert any("is not a valid action" in p for p in problems[version]), problems[version]
    assert isinstance(outcome[9], CorruptLog) and outcome[10].num_files == 22


def test_an_empty_commit_file_is_reported(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    commit_file(table, 12).write_bytes(b"")

    log = DeltaLog.open(str(table))

    assert any("The commit file is empty" in p for p in history_problems(log)[12])
    assert isinstance(exercise(log)[12], CorruptLog)


# --- missing commits --------------------------------------------------------------


def test_a_commit_deleted_in_the_middle_is_a_gap_reported_on_the_next_version(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    commit_file(table, 12).unlink()

    log = DeltaLog.open(str(table))
    outcome = exercise(log)

    problems = history_problems(log)
    assert 12 not in problems and sorted(problems) == [*range(12), 13, 14]
    assert any(
        "The commit files for version 12 are missing (a gap in the log)" in p for p in problems[13]
    )
    assert outcome[11].num_files == 24
    for version in (12, 13, 14):
        assert isinstance(outcome[version], CorruptLog)
    assert "commit files are missing for versions 12" in outcome[14].message


def test_a_gap_before_a_checkpoint_is_bridged_by_the_checkpoint(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    for version in (6, 7):
        commit_file(table, version).unlink()

    outcome = exercise(DeltaLog.open(str(table)))

    assert [v for v, o in outcome.items() if isinstance(o, InspectorError)] == [6, 7, 8, 9]
    assert "commit files are missing for versions 6..7" in outcome[9].message
    assert outcome[10].num_files == 22 and outcome[14].num_files == 30


def test_an_expired_log_starts_at_its_checkpoint(copy_table, corpus):
    table = copy_table(WITH_CHECKPOINT)
    for version in range(10):
        commit_file(table, version).unlink()
    original = DeltaLog.open(str(corpus / WITH_CHECKPOINT))

    log = DeltaLog.open(str(table))
    outcome = exercise(log)

    assert log.earliest_version == 10
    problems = history_problems(log)
    assert sorted(problems) == list(range(10, 15))
    assert any(
        "Commits before version 10 are not in the log (expired by log retention, or not "
        "copied); the earliest readable version is 10." in p
        for p in problems[10]
    )
    for version in range(10, 15):
        assert files_of(log, version) == files_of(original, version)
    with pytest.raises(VersionNotFound) as err:
        log.snapshot(4)
    assert "Version 4 has expired from the log (log retention)" in err.value.message
    assert "between 10 and 14" in err.value.hint
    assert all(isinstance(outcome[v], VersionNotFound) for v in range(10))


def test_a_version_with_only_its_checkpoint_left_is_listed_and_readable(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    for version in range(11):
        commit_file(table, version).unlink()

    log = DeltaLog.open(str(table))

    entry = build_history(log, Settings())[0]
    assert entry.version == 10 and entry.operation == "UNKNOWN"
    assert any("Only the checkpoint of this version remains" in p for p in entry.problems)
    assert log.snapshot(10).num_files == 22
    with pytest.raises(VersionNotFound) as err:
        log.commit(10)
    assert "only its checkpoint remains" in err.value.message


# --- _last_checkpoint -------------------------------------------------------------


def test_a_garbage_last_checkpoint_is_ignored_and_reported(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    (table / "_delta_log" / "_last_checkpoint").write_bytes(b"\x00\xffnot json{")

    log = DeltaLog.open(str(table))

    assert table_problems(log) == [
        "_last_checkpoint is unreadable (ValueError); it was ignored and the log "
        "folder was listed instead."
    ]
    assert log.snapshot().num_files == 30
    assert log.snapshot().replayed_from == "checkpoint 10 + commits 11..14"


def test_a_last_checkpoint_pointing_at_a_missing_checkpoint_is_reported(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    (table / "_delta_log" / "_last_checkpoint").write_text(json.dumps({"version": 12, "size": 3}))

    log = DeltaLog.open(str(table))

    assert table_problems(log) == [
        "_last_checkpoint names version 12, which has no checkpoint file; the log folder "
        "was listed instead."
    ]
    assert log.snapshot().num_files == 30


def test_a_deleted_checkpoint_named_by_last_checkpoint_falls_back_to_the_commits(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    checkpoint_file(table, 10).unlink()

    log = DeltaLog.open(str(table))

    assert any("names version 10, which has no checkpoint file" in p for p in table_problems(log))
    assert log.snapshot().replayed_from == "the empty table + commits 0..14"
    assert log.snapshot().num_files == 30


# --- damaged checkpoints ----------------------------------------------------------


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_corrupt_checkpoint_falls_back_to_the_commits_and_is_reported_on_its_version(
    copy_table, damage
):
    table = copy_table(WITH_CHECKPOINT)
    path = checkpoint_file(table, 10)
    data = path.read_bytes()
    path.write_bytes(
        {"garbage": b"this is not parquet" * 10, "truncated": data[: len(data) // 2], "empty": b""}[
            damage
        ]
    )

    log = DeltaLog.open(str(table))

    problems = history_problems(log)
    checkpoint_problems = [p for p in problems[10] if p.startswith("Checkpoint 10")]
    assert len(checkpoint_problems) == 1
    assert checkpoint_problems[0].startswith(
        "Checkpoint 10 cannot be used: checkpoint file 00000000000000000010.checkpoint.parquet "
        "is not a complete Parquet file (it is empty, cut short or overwritten)."
    )
    assert (
        "Versions from 10 on are read from an older checkpoint or from the commits instead"
        in checkpoint_problems[0]
    )
    snapshot = log.snapshot()
    assert snapshot.replayed_from == "the empty table + commits 0..14"
    assert snapshot.num_files == 30
    assert all(not without_timestamp_problems(problems[v]) for v in problems if v != 10)


def test_a_checkpoint_with_damaged_pages_but_an_intact_footer_is_found_when_read(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    path = checkpoint_file(table, 10)
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[4 : len(data) - footer - 8] = bytes(len(data) - footer - 12)  # zero every data page
    path.write_bytes(bytes(data))

    log = DeltaLog.open(str(table))

    # Every commit is present, so the history never reads the checkpoint: ``check`` does.
    assert not [p for p in history_problems(log).get(10, ()) if p.startswith("Checkpoint 10")]
    (problem,) = [p for p in check_problems(log) if p.startswith("Checkpoint 10")]
    assert problem.startswith(
        "Checkpoint 10 cannot be used: checkpoint file "
        "00000000000000000010.checkpoint.parquet is unreadable ("
    )
    assert log.snapshot().replayed_from == "the empty table + commits 0..14"


def test_a_damaged_old_checkpoint_is_reported_without_reading_it(copy_table):
    table = copy_table(MANY_CHECKPOINTS)
    path = checkpoint_file(table, 20)
    path.write_bytes(path.read_bytes()[:-100])

    log = DeltaLog.open(str(table))

    assert [p for p in history_problems(log)[20] if p.startswith("Checkpoint")] == [
        "Checkpoint 20 cannot be used: checkpoint file 00000000000000000020.checkpoint.parquet is "
        "not a complete Parquet file (it is empty, cut short or overwritten). Versions from 20 on "
        "are read from an older checkpoint or from the commits instead, where they exist."
    ]
    assert log.snapshot(25).replayed_from == "checkpoint 10 + commits 11..25"


def test_a_corrupt_newest_checkpoint_falls_back_to_the_older_checkpoint(copy_table, corpus):
    table = copy_table(MANY_CHECKPOINTS)
    checkpoint_file(table, 40).write_bytes(b"garbage")

    log = DeltaLog.open(str(table))

    snapshot = log.snapshot(46)
    assert snapshot.replayed_from == "checkpoint 30 + commits 31..46"
    assert (
        snapshot.files.keys()
        == DeltaLog.open(str(corpus / MANY_CHECKPOINTS)).snapshot(46).files.keys()
    )
    assert list(log.replay_problems()) == [40]
    log.snapshot(45), log.snapshot(44)
    assert len(log.replay_problems()[40]) == 1, "a bad checkpoint is reported once, not per replay"


def test_a_corrupt_checkpoint_with_its_commits_expired_leaves_those_versions_unreadable(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    for version in range(10):
        commit_file(table, version).unlink()
    checkpoint_file(table, 10).write_bytes(b"garbage")

    log = DeltaLog.open(str(table))
    outcome = exercise(log)

    assert all(isinstance(outcome[v], InspectorError) for v in range(15))
    assert "the checkpoints that could bridge this cannot be used" in outcome[12].message
    assert any(p.startswith("Checkpoint 10 cannot be used") for p in history_problems(log)[10])


def test_a_multi_part_checkpoint_with_a_part_missing_is_ignored_and_reported(copy_table):
    table = copy_table(MULTI_PART)
    (
        table / "_delta_log" / "00000000000000000001.checkpoint.0000000002.0000000002.parquet"
    ).unlink()

    log = DeltaLog.open(str(table))

    assert any(
        "Checkpoint 1 is a multi-part checkpoint with only 1 of its 2 parts present; "
        "it is ignored" in p
        for p in history_problems(log)[1]
    )
    assert any(
        "multi-part checkpoint of version 1 is missing parts" in p for p in table_problems(log)
    )
    assert log.snapshot(1).replayed_from == "the empty table + commits 0..1"
    assert log.snapshot(1).num_files == 10


def test_a_missing_sidecar_makes_a_v2_checkpoint_unusable(copy_table):
    table = copy_table(V2_SIDECARS)
    for sidecar in (table / "_delta_log" / "_sidecars").iterdir():
        sidecar.unlink()

    log = DeltaLog.open(str(table))

    # Every commit is present, so the history never reads the checkpoint: ``check`` does.
    assert any(
        p.startswith("Checkpoint 2 cannot be used: checkpoint file ") and "is missing" in p
        for p in check_problems(log)
    )
    assert log.snapshot(2).replayed_from == "the empty table + commits 0..2"


def test_a_checkpoint_without_metadata_is_not_used(corpus):
    log = DeltaLog.open(
        str(corpus / "delta-golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata")
    )

    assert log.snapshot(10).replayed_from == "the empty table + commits 0..10"
    assert history_problems(log)[10][0].startswith(
        "Checkpoint 10 cannot be used: it has no metaData action, which every checkpoint must carry."
    )


# --- a checkpoint that disagrees with its commits -----------------------------------


def verify_checkpoint(log: DeltaLog, version: int) -> list[str]:
    """How one version's checkpoint(s) disagree with their commits: the verdicts
    ``checkpoint_problems(verify_all=True)`` gathers, for one version."""
    return log.checkpoint_problems(verify_all=True).get(version, [])


def drop_add_from_checkpoint(path: Path) -> str:
    """Rewrite a checkpoint without its first add action; returns the dropped path."""
    checkpoint = pq.read_table(path)
    adds = checkpoint.column("add")
    first = next(i for i, row in enumerate(adds.to_pylist()) if row is not None)
    dropped = adds[first]["path"].as_py()
    keep = pa.array([i != first for i in range(checkpoint.num_rows)])
    pq.write_table(checkpoint.filter(keep), path)
    return dropped


def test_a_checkpoint_missing_an_add_disagrees_with_its_commits(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    dropped = drop_add_from_checkpoint(checkpoint_file(table, 10))

    log = DeltaLog.open(str(table))

    problems = verify_checkpoint(log, 10)
    assert problems == [
        "Checkpoint 10 lists 21 live files but its commits (the empty table + commits 0..10) "
        f"give 22: 1 file missing from the checkpoint ({dropped}). Readers that start from this "
        "checkpoint see a different table than the commits describe."
    ]
    assert problems[0] in history_problems(log)[10]
    # The snapshot shows what Delta readers see: they start from the checkpoint.
    assert log.snapshot(14).num_files == 29


def test_a_checkpoint_with_other_metadata_and_protocol_disagrees_with_its_commits(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    path = checkpoint_file(table, 10)
    checkpoint = pq.read_table(path).to_pylist()
    for row in checkpoint:
        if row["metaData"]:
            row["metaData"]["id"] = "another-table"
        if row["protocol"]:
            row["protocol"]["minWriterVersion"] = 4
    pq.write_table(pa.Table.from_pylist(checkpoint, schema=pq.read_schema(path)), path)

    problems = verify_checkpoint(DeltaLog.open(str(table)), 10)

    assert problems == [
        "Checkpoint 10 has different table metadata (id) than its commits "
        "(the empty table + commits 0..10).",
        "Checkpoint 10 has protocol 1/4 [appendOnly, changeDataFeed, checkConstraints, "
        "generatedColumns, invariants] but its commits (the empty table + commits 0..10) give "
        "1/2 [appendOnly, invariants].",
    ]


def test_a_checkpoint_protocol_disagreement_words_each_protocol_as_every_protocol_message(
    copy_table,
):
    """Versions and the features in force (those a legacy version implies too), as a
    restore's guards and verification word a protocol: one wording, describe_protocol."""
    table = copy_table(WITH_CHECKPOINT)
    path = checkpoint_file(table, 10)
    checkpoint = pq.read_table(path).to_pylist()
    for row in checkpoint:
        if row["protocol"]:
            row["protocol"]["minWriterVersion"] = 3
    pq.write_table(pa.Table.from_pylist(checkpoint, schema=pq.read_schema(path)), path)

    problems = verify_checkpoint(DeltaLog.open(str(table)), 10)

    in_checkpoint = describe_protocol(Protocol(min_reader_version=1, min_writer_version=3))
    in_commits = describe_protocol(Protocol(min_reader_version=1, min_writer_version=2))
    assert in_checkpoint == "1/3 [appendOnly, checkConstraints, invariants]"
    assert problems == [
        f"Checkpoint 10 has protocol {in_checkpoint} but its commits "
        f"(the empty table + commits 0..10) give {in_commits}."
    ]


def test_only_the_newest_checkpoint_is_compared_unless_asked(copy_table):
    table = copy_table(MANY_CHECKPOINTS)
    drop_add_from_checkpoint(checkpoint_file(table, 20))
    log = DeltaLog.open(str(table))

    assert 20 not in log.checkpoint_problems()
    assert log.checkpoint_problems(verify_all=True)[20][0].startswith("Checkpoint 20 lists")
    history = build_history(log, Settings())  # shows what the check found
    assert any(p.startswith("Checkpoint 20 lists") for p in history[20].problems)


def test_a_checkpoint_whose_commits_expired_cannot_be_compared(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    drop_add_from_checkpoint(checkpoint_file(table, 10))
    commit_file(table, 3).unlink()

    assert verify_checkpoint(DeltaLog.open(str(table)), 10) == []


# --- never a raw exception ----------------------------------------------------------


def _truncate_random_commits(table: Path) -> None:
    for version in (2, 9, 13):
        cut_mid_line(commit_file(table, version))


def _scramble_every_third_file(table: Path) -> None:
    """Every third file of ``_delta_log`` becomes 64 random bytes (seeded): commits 1, 4, 7
    and 12, the checkpoint, ``_last_checkpoint`` and some ``.crc`` files."""
    rng = random.Random(20240611)
    log = table / "_delta_log"
    for f in sorted(log.iterdir())[::3]:
        if f.is_file():
            f.write_bytes(rng.randbytes(64))


@pytest.mark.parametrize(
    "damage, readable",
    [
        # a cut commit breaks the versions after it up to the checkpoint at 10, and after it
        (_truncate_random_commits, {0, 1, 10, 11, 12}),
        # only version 0 is left whole: every later one needs commit 1 or the checkpoint
        (_scramble_every_third_file, {0}),
    ],
    ids=["truncated commits", "scrambled files"],
)
def test_heavily_damaged_logs_never_raise_raw_exceptions(copy_table, damage, readable):
    table = copy_table(WITH_CHECKPOINT)
    damage(table)

    outcome = exercise(DeltaLog.open(str(table)))

    assert {v for v, o in outcome.items() if not isinstance(o, InspectorError)} == readable


# --- odd values written by odd writers ------------------------------------------------


def test_odd_commit_info_and_table_properties_do_not_break_the_history(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    # Version 11 turns on in-commit timestamps with a garbage enablement version ...
    raw = dict(DeltaLog.open(str(table)).snapshot(10).metadata.raw)
    raw["configuration"] = {
        **raw.get("configuration", {}),
        "delta.enableInCommitTimestamps": "true",
        "delta.inCommitTimestampEnablementVersion": "soon",
    }
    with commit_file(table, 11).open("a") as fh:
        fh.write(json.dumps({"metaData": raw}) + "\n")
    # ... and version 12's commitInfo has values of the wrong types.
    lines = commit_file(table, 12).read_text().splitlines()
    info = {
        "commitInfo": {
            "timestamp": "not a number",
            "inCommitTimestamp": 5,
            "operationParameters": "mode=Append",
            "operationMetrics": [1, 2],
            "operation": 7,
            "userName": 42,
        }
    }
    commit_file(table, 12).write_text("\n".join([json.dumps(info)] + lines[1:]) + "\n")

    entry = build_history(DeltaLog.open(str(table)), Settings())[12]

    assert entry.operation == "7"
    assert entry.operation_parameters == {} and entry.operation_metrics == {}
    assert entry.timestamps.commit_info is None
    assert entry.timestamps.in_commit == 5 and entry.timestamps.source == "inCommitTimestamp"
    assert history_record(entry)["operationParameters"] == {}


def test_a_commit_file_deleted_after_opening_gives_a_plain_error(copy_table):
    table = copy_table(WITH_CHECKPOINT)
    log = DeltaLog.open(str(table))  # lists the log from its checkpoint (version 10) on
    commit_file(table, 12).unlink()
    with pytest.raises(CorruptLog) as err:
        log.commit_text(12)
    assert err.value.message == (
        "The commit file of version 12 cannot be read any more (No such file or directory)."
    )
    assert "refresh" in err.value.hint.lower()
