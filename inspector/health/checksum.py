"""The log's own checksums: a version's ``.crc`` file against its replayed state.

The protocol's state validation recomputes a version checksum by log replay and compares: a
discrepancy means the table at that version is not what its writer recorded. What is
compared and what is not, and what reading them costs: docs/health.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.delta.actions import Action, DomainMetadata, Metadata, Protocol, Txn
from inspector.delta.parse import parse_action
from inspector.health.records import ChecksumCheck, ChecksumStatus, VersionHealth
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot

# The fields compared, in the order the protocol lists them.
FIELDS = (
    "tableSizeBytes",
    "numFiles",
    "numMetadata",
    "numProtocol",
    "numTransactions",  # Delta 0.x's count of set transactions
    "setTransactions",
    "domainMetadata",
    "metadata",
    "protocol",
)


@dataclass(frozen=True, kw_only=True)
class TableState:
    """What a version checksum records, as a replay of the log gives it."""

    num_files: int
    table_size_bytes: int
    metadata: Metadata
    protocol: Protocol
    set_transactions: Mapping[str, int] = field(default_factory=dict)  # appId -> version
    domain_metadata: Mapping[str, str] = field(default_factory=dict)  # domain -> configuration

    @classmethod
    def of(cls, snap: Snapshot) -> TableState:
        """A snapshot's state."""
        return cls(
            num_files=snap.num_files,
            table_size_bytes=snap.size_in_bytes,
            metadata=snap.metadata,
            protocol=snap.protocol,
            set_transactions={app: t.version for app, t in snap.app_transactions.items()},
            domain_metadata={d: m.configuration for d, m in snap.domain_metadata.items()},
        )

    def applied(self, actions: Iterable[Action]) -> TableState:
        """The state after a commit's metadata, protocol, txn and domainMetadata actions."""
        metadata, protocol = self.metadata, self.protocol
        txns, domains = dict(self.set_transactions), dict(self.domain_metadata)
        for action in actions:
            if isinstance(action, Metadata):
                metadata = action
            elif isinstance(action, Protocol):
                protocol = action
            elif isinstance(action, Txn):
                txns[action.app_id] = action.version
            elif isinstance(action, DomainMetadata) and action.removed:
                domains.pop(action.domain, None)
            elif isinstance(action, DomainMetadata):
                domains[action.domain] = action.configuration
        return replace(
            self,
            metadata=metadata,
            protocol=protocol,
            set_transactions=txns,
            domain_metadata=domains,
        )


def check_checksum(
    version: int, data: bytes | OSError, state: TableState, *, fields: Iterable[str] = FIELDS
) -> ChecksumCheck:
    """A version's checksum file (its bytes, or the error reading it) against its replayed
    state, on ``fields`` (a restore compares only some)."""
    try:
        recorded = _parse(data)
    except ValueError as exc:
        return ChecksumCheck(version=version, status=ChecksumStatus.UNREADABLE, detail=str(exc))
    replayed = _replayed(state)
    differ = [(n, recorded.get(n), replayed[n]) for n in fields]
    differ = [(n, said, got) for n, said, got in differ if said is not None and said != got]
    if not differ:
        return ChecksumCheck(version=version, status=ChecksumStatus.MATCHES)
    detail = "; ".join(_difference(n, said, got) for n, said, got in differ)
    return ChecksumCheck(
        version=version,
        status=ChecksumStatus.DIFFERS,
        fields=tuple(n for n, _, _ in differ),
        detail=detail,
    )


def with_checksum(health: VersionHealth, check: ChecksumCheck | None) -> VersionHealth:
    """A version's verdict with its checksum (and the problem it is, if any)."""
    if check is None:
        return health
    problem = check.problem
    problems = health.problems + ((problem,) if problem is not None else ())
    return replace(health, checksum=check, problems=problems)


def read_checksums(log: DeltaLog, versions: Iterable[int]) -> dict[int, bytes | OSError]:
    """The ``.crc`` files of those versions that have one, read together (one request each)."""
    files = [(v, log.listing_at(v).crcs.get(v)) for v in versions]
    listed = [(v, f) for v, f in files if f is not None]
    contents = log.storage.read_many([f.path for _, f in listed])
    return {v: data for (v, _), data in zip(listed, contents, strict=True)}


def version_checksum(log: DeltaLog, version: int) -> ChecksumCheck | None:
    """One version's checksum against its snapshot (None when it has no ``.crc``).

    Raises:
        InspectorError: When the version cannot be read.
    """
    found = read_checksums(log, [version])
    if version not in found:
        return None
    return check_checksum(version, found[version], TableState.of(log.snapshot(version)))


def recorded_metadata(data: bytes | OSError) -> Metadata | None:
    """The ``metadata`` a checksum records (None when it records none, as Delta 0.x's).

    Raises:
        ValueError: When the checksum cannot be parsed.
    """
    found = _parse(data).get("metaData")
    return found if isinstance(found, Metadata) else None


def _parse(data: bytes | OSError) -> dict[str, Any]:
    """The checksum's fields as comparable values (raises ValueError saying what is wrong)."""
    if isinstance(data, OSError):
        raise ValueError(f"it cannot be read ({data})")
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    counts = ("tableSizeBytes", "numFiles", "numMetadata", "numProtocol")
    for name in counts:
        if type(raw.get(name)) is not int:
            raise ValueError(f"{name} is missing or not a whole number")
    for name in ("metadata", "protocol"):  # required now; Delta 0.x wrote neither
        if raw.get(name) is not None and not isinstance(raw[name], dict):
            raise ValueError(f"{name} is not an object")
    if raw.get("numTransactions") is not None and type(raw["numTransactions"]) is not int:
        raise ValueError("numTransactions is not a whole number")
    out = {n: raw.get(n) for n in (*counts, "numTransactions")}
    try:
        if raw.get("metadata") is not None:
            out["metaData"] = parse_action({"metaData": raw["metadata"]})
            out["metadata"] = _metadata(out["metaData"])
        if raw.get("protocol") is not None:
            out["protocol"] = _protocol(parse_action({"protocol": raw["protocol"]}))
        if raw.get("setTransactions") is not None:
            txns = [parse_action({"txn": t}) for t in raw["setTransactions"]]
            out["setTransactions"] = {t.app_id: t.version for t in txns if isinstance(t, Txn)}
        if raw.get("domainMetadata") is not None:
            found = [parse_action({"domainMetadata": d}) for d in raw["domainMetadata"]]
            out["domainMetadata"] = {
                d.domain: d.configuration
                for d in found
                if isinstance(d, DomainMetadata) and not d.removed
            }
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"an action in it is malformed ({exc})") from None
    return out


def _replayed(state: TableState) -> dict[str, Any]:
    """The fields as the replay gives them (the checksum's may be absent: None)."""
    return {
        "tableSizeBytes": state.table_size_bytes,
        "numFiles": state.num_files,
        "numMetadata": 1,
        "numProtocol": 1,
        "numTransactions": len(state.set_transactions),
        "setTransactions": dict(state.set_transactions),
        "domainMetadata": dict(state.domain_metadata),
        "metadata": _metadata(state.metadata),
        "protocol": _protocol(state.protocol),
    }


def _metadata(action: Any) -> dict[str, Any]:
    """What of a ``metaData`` action is compared (its fields, not its JSON spelling), by
    their names in the file."""
    if not isinstance(action, Metadata):
        raise ValueError("metadata is not a metaData action")
    return {
        "id": action.id,
        "name": action.name,
        "description": action.description,
        "format": action.format_provider,
        "schemaString": action.schema_string,
        "partitionColumns": action.partition_columns,
        "configuration": tuple(sorted(action.configuration.items())),
        "createdTime": action.created_time,
    }


def _protocol(action: Any) -> dict[str, Any]:
    """What of a ``protocol`` action is compared (features as sets: order and ``[]``
    against absent are spelling)."""
    if not isinstance(action, Protocol):
        raise ValueError("protocol is not a protocol action")
    return {
        "minReaderVersion": action.min_reader_version,
        "minWriterVersion": action.min_writer_version,
        "readerFeatures": tuple(sorted(action.reader_features or ())),
        "writerFeatures": tuple(sorted(action.writer_features or ())),
    }


def _difference(name: str, recorded: Any, replayed: Any) -> str:
    """One field's difference in words."""
    if name in ("metadata", "protocol"):
        parts = [part for part, value in recorded.items() if value != replayed[part]]
        return f"{name} differs in {', '.join(parts)}"
    if isinstance(recorded, dict):
        return f"{name} records {_count(recorded)}, the replay has {_count(replayed)}"
    return f"{name} records {recorded:,}, the replay gives {replayed:,}"


def _count(entries: dict[str, Any]) -> str:
    return f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
