"""Specification: the health check compares the log's own checksums (``.crc``) with the replay.

Delta writes a version checksum beside most commits: the live files' count and bytes, the
metadata, the protocol, and in newer writers the live set transactions and domain metadata.
The check replays each version it reads a ``.crc`` for and compares: a field that differs
is a ``checksum_mismatch`` naming the field, a file that cannot be parsed a
``checksum_unreadable``; a version without a ``.crc`` is no problem. The fast check reads
the latest version's ``.crc``, ``--all-versions`` every retained one (one request each).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.health import ProblemKind, check_table
from inspector.health.checksum import version_checksum
from inspector.health.records import ChecksumStatus
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.counting_storage import counted_log

CDF_DV = "delta-rs/cdf-table-with-cdc-and-dvs"  # 26 versions, each with a full .crc

WRITERS = [
    CDF_DV,
    "delta-rs/table_with_deletion_logs",
    "delta-rs/checkpoint-v2-table",
    "delta-kernel-rs/v2-checkpoints-parquet-with-sidecars",
    "delta-kernel-java/spark-variant-stable-feature-checkpoint",
    "delta-spark/transaction_log_schema_evolvability",  # Delta 0.x: no metadata nor protocol
    "delta-spark/identity_test_written_by_version_5",
]


def _crc(root: Path, version: int) -> Path:
    return root / "_delta_log" / f"{version:020d}.crc"


def _alter(root: Path, version: int, change) -> None:
    path = _crc(root, version)
    recorded = json.loads(path.read_text())
    change(recorded)
    path.write_text(json.dumps(recorded))


def _problems(health, kind: ProblemKind) -> list[str]:
    return [p.message for p in health.problems if p.kind is kind]


@pytest.mark.parametrize("table", WRITERS)
def test_every_checksum_the_writers_left_matches_the_replay(copy_table, table):
    root = copy_table(table)

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    checked = [v for v in report.versions if v.checksum is not None]
    crcs = {int(p.name[:20]) for p in (root / "_delta_log").glob("*.crc") if p.name[0] != "."}
    assert {v.version for v in checked} == crcs
    assert all(v.checksum.status is ChecksumStatus.MATCHES for v in checked)
    assert not any(p.kind.startswith("checksum") for v in report.versions for p in v.problems)


def test_the_every_version_replay_and_each_versions_snapshot_give_the_same_verdicts(copy_table):
    root = copy_table(CDF_DV)
    _alter(root, 7, lambda c: c.update(numFiles=c["numFiles"] + 1))
    _alter(root, 12, lambda c: c.update(tableSizeBytes=1))

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    log = DeltaLog.open(str(root))
    assert [v.checksum for v in report.versions] == [
        version_checksum(log, v.version) for v in report.versions
    ]
    assert [v.version for v in report.versions if v.checksum.fields] == [7, 12]


def _add_transaction(crc: dict) -> None:
    crc["setTransactions"].append({"appId": "job", "version": 3, "lastUpdated": 1})


def _add_domain(crc: dict) -> None:
    crc["domainMetadata"].append({"domain": "x", "configuration": "{}", "removed": False})


def _other_configuration(crc: dict) -> None:
    crc["metadata"]["configuration"]["delta.appendOnly"] = "true"


def _other_protocol(crc: dict) -> None:
    crc["protocol"]["minWriterVersion"] = 6


ALTERATIONS = {
    "tableSizeBytes": lambda c: c.update(tableSizeBytes=c["tableSizeBytes"] + 10),
    "numFiles": lambda c: c.update(numFiles=c["numFiles"] - 1),
    "numMetadata": lambda c: c.update(numMetadata=2),
    "numProtocol": lambda c: c.update(numProtocol=0),
    "setTransactions": _add_transaction,
    "domainMetadata": _add_domain,
    "metadata": _other_configuration,
    "protocol": _other_protocol,
}


@pytest.mark.parametrize("field", sorted(ALTERATIONS))
def test_a_field_altered_in_the_latest_checksum_is_a_mismatch_naming_it(copy_table, field):
    root = copy_table(CDF_DV)
    latest = DeltaLog.open(str(root)).latest_version
    _alter(root, latest, ALTERATIONS[field])

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert report.latest.checksum.status is ChecksumStatus.DIFFERS
    assert report.latest.checksum.fields == (field,)
    (message,) = _problems(report.latest, ProblemKind.CHECKSUM_MISMATCH)
    assert f"{latest:020d}.crc" in message and field in message
    assert report.is_consistent  # the files are all there: the checksum is its own finding


def test_a_field_altered_in_an_older_checksum_is_found_by_the_every_version_check(copy_table):
    root = copy_table(CDF_DV)
    _alter(root, 3, ALTERATIONS["numFiles"])

    fast = check_table(DeltaLog.open(str(root)), settings=Settings())
    full = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert fast.latest.checksum.status is ChecksumStatus.MATCHES  # only the latest is read
    (three,) = [v for v in full.versions if v.checksum.status is ChecksumStatus.DIFFERS]
    assert (three.version, three.checksum.fields) == (3, ("numFiles",))
    assert three.checksum.detail.startswith("numFiles records ")


@pytest.mark.parametrize(
    "text", ["{not json", "[]", '{"numFiles": 1}', '{"tableSizeBytes":1,"numFiles":"2"}']
)
def test_a_checksum_that_cannot_be_parsed_is_unreadable(copy_table, text):
    root = copy_table(CDF_DV)
    latest = DeltaLog.open(str(root)).latest_version
    _crc(root, latest).write_text(text)

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert report.latest.checksum.status is ChecksumStatus.UNREADABLE
    (message,) = _problems(report.latest, ProblemKind.CHECKSUM_UNREADABLE)
    assert "cannot be parsed" in message


def test_a_version_without_a_checksum_is_no_problem(copy_table):
    root = copy_table(CDF_DV)
    latest = DeltaLog.open(str(root)).latest_version
    _crc(root, latest).unlink()  # as after a RESTORE, for which Delta writes none

    report = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())

    assert report.latest.checksum is None and not report.latest.problems
    assert report.versions[-2].checksum.status is ChecksumStatus.MATCHES


def test_the_every_version_check_reads_one_checksum_per_version(copy_table):
    root = copy_table(CDF_DV)
    log, storage = counted_log(root, count_open=True)

    fast = check_table(log, settings=Settings())
    fast_reads = {name: n for name, n in storage.reads.items() if name.endswith(".crc")}
    storage.reset()
    check_table(log, all_versions=True, settings=Settings())
    full_reads = {name: n for name, n in storage.reads.items() if name.endswith(".crc")}

    assert fast_reads == {f"{fast.latest_version:020d}.crc": 1}
    assert full_reads == {f"{v:020d}.crc": 1 for v in range(fast.latest_version + 1)}


def test_the_json_contract_gives_each_versions_checksum(copy_table, capsys):
    root = copy_table(CDF_DV)
    latest = DeltaLog.open(str(root)).latest_version
    _alter(root, latest, ALTERATIONS["tableSizeBytes"])

    code = main(["check", str(root), "--json"])
    out = json.loads(capsys.readouterr().out)

    assert code == 0
    checksum = out["versions"][-1]["checksum"]
    assert checksum["status"] == "differs" and checksum["fields"] == ["tableSizeBytes"]
    assert "tableSizeBytes" in checksum["detail"]


def test_a_checksum_that_records_files_the_commit_lacks_is_a_mismatch(copy_table):
    root = copy_table("delta-kernel-rs/crc-full")  # a kernel fixture: a .crc of 10 files

    report = check_table(DeltaLog.open(str(root)), settings=Settings())

    assert report.latest.checksum.status is ChecksumStatus.DIFFERS
    assert {"numFiles", "tableSizeBytes"} <= set(report.latest.checksum.fields)
