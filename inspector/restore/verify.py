"""Proving a restore did what its plan said: files, metadata, protocol, checksum and rows.

The new version is read back and compared with the target version; rows are counted by
Delta Lake on Spark (the target without the files left out on purpose), and deltalake, an
independent implementation, must read the same multiset of rows at both versions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.connection import StorageOptions
from inspector.delta.actions import Metadata
from inspector.delta.errors import InspectorError, UnsupportedFeature
from inspector.delta.jsonvalue import camel_json
from inspector.delta.properties import COLUMN_MAPPING_MAX_ID
from inspector.delta.protocol import covers, describe_protocol
from inspector.delta.schema import IDENTITY_HIGH_WATER_MARK
from inspector.delta.text import counted
from inspector.health.checksum import (
    TableState,
    check_checksum,
    read_checksums,
    recorded_metadata,
)
from inspector.health.records import ChecksumStatus
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey, Snapshot
from inspector.restore.actions import ICT_KEYS, metadata_json
from inspector.restore.guards import Overridden
from inspector.restore.planrecord import RestorePlan
from inspector.settings import Settings

#: Above this many rows the in-memory deltalake cross-check is skipped (it holds all rows).
DELTALAKE_CHECK_MAX_ROWS = 1_000_000


class CheckStatus(StrEnum):
    """The outcome of one verification check."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, kw_only=True)
class VerificationCheck:
    """One check of a restore."""

    name: str
    status: CheckStatus
    message: str

    def to_json(self) -> dict[str, str]:
        return camel_json(self)


_Outcome = tuple[CheckStatus, str]


@dataclass(frozen=True, kw_only=True)
class Verification:
    """The checks run against the restored version; ``ok`` when none failed."""

    version: int
    target_version: int
    checks: tuple[VerificationCheck, ...]

    @property
    def ok(self) -> bool:
        """True when no check failed (skipped checks say why they were skipped)."""
        return not self.failures

    @property
    def failures(self) -> list[VerificationCheck]:
        return [c for c in self.checks if c.status == CheckStatus.FAILED]

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "version", "target_version", "ok"),
            "checks": [c.to_json() for c in self.checks],
        }


def verify_restore(
    plan: RestorePlan, version: int, flags: Overridden, *, settings: Settings, spark: Any = None
) -> Verification:
    """Check ``version``, the commit of a restore by ``plan`` with the overrides ``flags``
    used, against its target version.

    Never raises: the commit exists, so a failed or broken check is recorded instead.
    """
    target_version = plan.target_version
    try:
        log = plan.table.latest_log()  # the commit was made after the plan read it
        new, target = log.snapshot(version), log.snapshot(target_version)
    except Exception as exc:
        message = f"Version {version} cannot be read back from the log: {exc}"
        failed = VerificationCheck(name="readable", status=CheckStatus.FAILED, message=message)
        return Verification(version=version, target_version=target_version, checks=(failed,))
    dropped = set(plan.problem_paths) if flags.allow_missing_files else set()
    table = plan.table
    options = StorageOptions() if table.location.is_local else table.storage_options
    checks = [
        _safely("files", _files_check, new, target, dropped),
        _safely("metadata", _metadata_check, new, target),
        _safely("protocol", _protocol_check, new, plan, flags.allow_protocol_downgrade),
        _safely("checksum", _checksum_check, log, new, target_version, dropped),
        _safely("row_count", _rows_check, new, target, dropped, spark, settings),
        _safely("deltalake_rows", _deltalake_check, new, target, dropped, options),
    ]
    return Verification(version=version, target_version=target_version, checks=tuple(checks))


def _safely(name: str, check: Callable[..., _Outcome], *args: Any) -> VerificationCheck:
    """Run one check; an unexpected error becomes a failed check (the commit already exists)."""
    try:
        status, message = check(*args)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        status, message = CheckStatus.FAILED, f"The check could not run: {error}"
    return VerificationCheck(name=name, status=status, message=message)


def _files_check(new: Snapshot, target: Snapshot, dropped: set[FileKey]) -> _Outcome:
    expected = set(target.files) - dropped
    extra, missing = set(new.files) - expected, expected - set(new.files)
    if not extra and not missing:
        left_out = f" ({len(dropped)} missing files left out on purpose)" if dropped else ""
        return CheckStatus.PASSED, (
            f"Version {new.version} has exactly the {len(expected)} files of "
            f"version {target.version}{left_out}."
        )
    return CheckStatus.FAILED, (
        f"Version {new.version} differs from version {target.version}: "
        f"{len(extra)} unexpected files ({_few(p for p, _ in extra)}), "
        f"{len(missing)} files missing ({_few(p for p, _ in missing)})."
    )


def _metadata_check(new: Snapshot, target: Snapshot) -> _Outcome:
    got, want = _comparable(new.metadata), _comparable(target.metadata)
    if got == want:
        return CheckStatus.PASSED, (
            f"Schema, partition columns and properties equal version {target.version}'s."
        )
    differing = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    return CheckStatus.FAILED, (
        f"The metadata differs from version {target.version}'s in: {', '.join(differing)}."
    )


def _comparable(metadata: Metadata) -> dict[str, Any]:
    """Metadata without the parts a restore legitimately keeps from the current version."""
    body = metadata_json(metadata)
    body.pop("createdTime", None)
    kept = (*ICT_KEYS, COLUMN_MAPPING_MAX_ID)  # never go back: kept from the pre-restore version
    body["configuration"] = {k: v for k, v in body["configuration"].items() if k not in kept}
    schema = json.loads(body["schemaString"])
    for f in schema.get("fields", []):
        (f.get("metadata") or {}).pop(IDENTITY_HIGH_WATER_MARK, None)
    body["schemaString"] = schema
    return body


def _checksum_check(
    log: DeltaLog, new: Snapshot, target_version: int, dropped: set[FileKey]
) -> _Outcome:
    """The new version against the target version's ``.crc`` (its writer's own record): the
    files' count and bytes (unless files were left out on purpose) and the metadata. The
    protocol, set transactions and row-id high-water marks legitimately differ after a
    restore, so they are not compared."""
    found = read_checksums(log, [target_version])
    if target_version not in found:
        return CheckStatus.SKIPPED, (
            f"Version {target_version} has no checksum file (.crc) to compare with."
        )
    fields = () if dropped else ("tableSizeBytes", "numFiles")
    check = check_checksum(target_version, found[target_version], TableState.of(new), fields=fields)
    if check.status is ChecksumStatus.UNREADABLE:
        return CheckStatus.SKIPPED, (
            f"Version {target_version}'s checksum file cannot be parsed: {check.detail}."
        )
    differs = [check.detail] if check.fields else []
    recorded = recorded_metadata(found[target_version])
    if recorded is not None and _comparable(recorded) != _comparable(new.metadata):
        differs.append("the metadata differs")
    if differs:
        return CheckStatus.FAILED, (
            f"Version {new.version} differs from what version {target_version}'s checksum "
            f"(.crc) records: {'; '.join(differs)}."
        )
    what = "metadata" if dropped else "files, bytes and metadata"
    return CheckStatus.PASSED, (
        f"Version {new.version}'s {what} equal what version {target_version}'s checksum "
        "(.crc) records."
    )


def _protocol_check(new: Snapshot, plan: RestorePlan, downgrade: bool) -> _Outcome:
    baseline = plan.target_protocol if downgrade else plan.current_protocol
    assert baseline is not None  # a committed restore read its target version
    word = "the target's" if downgrade else "the pre-restore"
    ok = covers(new.protocol, baseline)
    return CheckStatus.PASSED if ok else CheckStatus.FAILED, (
        f"Protocol {describe_protocol(new.protocol)} is {'at least' if ok else 'lower than'} "
        f"{word} {describe_protocol(baseline)}."
    )


def _rows_check(
    new: Snapshot, target: Snapshot, dropped: set[FileKey], spark: Any, settings: Settings
) -> _Outcome:
    from inspector.rows.delta_engine import read_files, read_snapshot
    from inspector.rows.session import get_spark

    try:
        spark = spark or get_spark(settings)
        workers = settings.check_workers
        got = read_snapshot(new, spark=spark, check_workers=workers).count()
        kept = [a for k, a in target.files.items() if k not in dropped]
        want = (
            read_files(target, kept, spark=spark, check_workers=workers)
            if dropped
            else read_snapshot(target, spark=spark, check_workers=workers)
        ).count()
    except UnsupportedFeature as exc:
        return CheckStatus.SKIPPED, f"Rows could not be read with Spark: {exc}"
    except InspectorError as exc:
        return CheckStatus.FAILED, f"Rows could not be read with Spark: {exc}"
    if got == want:
        return CheckStatus.PASSED, (
            f"Spark reads {counted(got, 'row')} at version {new.version}, as at version "
            f"{target.version}{' (without the files left out)' if dropped else ''}."
        )
    return CheckStatus.FAILED, (
        f"Spark reads {counted(got, 'row')} at version {new.version} but {want:,} at version "
        f"{target.version}."
    )


def _deltalake_check(
    new: Snapshot, target: Snapshot, dropped: set[FileKey], options: StorageOptions
) -> _Outcome:
    if dropped:
        return CheckStatus.SKIPPED, (
            "Skipped: the target version's missing files cannot be read, so "
            "its rows cannot be compared."
        )
    if (target.num_records or 0) > DELTALAKE_CHECK_MAX_ROWS:
        return CheckStatus.SKIPPED, (
            f"Skipped: more than {counted(DELTALAKE_CHECK_MAX_ROWS, 'row')} to hold in memory."
        )
    try:
        got, want = _deltalake_rows(new, options), _deltalake_rows(target, options)
    except Exception as exc:  # deltalake refuses features it does not support, in many ways
        from deltalake.exceptions import DeltaProtocolError

        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        # A refused feature is a fact about the table, not a check that broke.
        if isinstance(exc, DeltaProtocolError) or _DATAFUSION_REFUSAL in str(exc):
            return CheckStatus.SKIPPED, (
                f"Skipped: deltalake does not support this table ({reason[:200]})."
            )
        # A check that could not run (no access, no options, no network) proves nothing:
        # it fails, saying why; it is never skipped in silence.
        return CheckStatus.FAILED, (
            f"deltalake could not read the table to compare its rows ({reason[:200]}); "
            "nothing proves that other engines read what Spark reads."
        )
    if got == want:
        return CheckStatus.PASSED, (
            f"deltalake reads the same {counted(sum(got.values()), 'row')} at versions "
            f"{new.version} and {target.version}."
        )
    surplus, lacking = got - want, want - got
    return CheckStatus.FAILED, (
        f"deltalake reads different rows at version {new.version}: "
        f"{sum(surplus.values())} extra, {sum(lacking.values())} missing "
        f"compared with version {target.version}."
    )


#: How deltalake's DataFusion reader refuses a table feature it does not support (a
#: ``DeltaError``, not a ``DeltaProtocolError``), e.g. ``Unsupported table features
#: required: [TypeWidening]`` for a table Delta 4.4 widened.
_DATAFUSION_REFUSAL = "Unsupported table features required"


def _deltalake_rows(snapshot: Snapshot, options: StorageOptions) -> Counter[str]:
    """The multiset of rows deltalake reads at a version (rows as canonical JSON text)."""
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder

    table = DeltaTable(
        snapshot.table_root, version=snapshot.version, storage_options=dict(options) or None
    )
    # DataFusion reads in Rust (deletion vectors and column mapping included). Not
    # ``to_pyarrow_table``: its dataset reads through a Python filesystem with pre-buffering,
    # and Arrow's I/O threads could still hold those Python buffers at interpreter exit, where
    # releasing one aborted the process ("terminate called without an active exception",
    # exit -6) after a committed restore (issue #26). The scan holds the GIL until it
    # returns: a store served by a thread of this process could not answer it.
    data = pa.table(QueryBuilder().register("t", table).execute("SELECT * FROM t").read_all())
    return Counter(json.dumps(row, sort_keys=True, default=str) for row in data.to_pylist())


def _few(paths: Iterable[str]) -> str:
    items = sorted(paths)
    return ", ".join(items[:3]) + (" ..." if len(items) > 3 else "") if items else "none"
