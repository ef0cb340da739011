"""Typed records for the actions of the Delta transaction log.

Field names follow ``PROTOCOL.md`` in snake_case; ``raw`` keeps the action's JSON object so
that RESTORE re-emits it faithfully, fields this tool does not model included.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from inspector.delta.fields import (
    as_int,
    as_long,
    as_str,
    json_type_name,
    mapping_or_empty,
    opt_epoch_ms,
    opt_long,
    text_or_none,
)
from inspector.delta.jsonvalue import camel_json
from inspector.delta.paths import canonical_path as canonical_path  # re-exported (a path rule)
from inspector.delta.properties import COLUMN_MAPPING_MODE
from inspector.delta.schema import StructType, parse_schema

_Z85_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_INDEX = {c: i for i, c in enumerate(_Z85_CHARS)}


def z85_decode(text: str) -> bytes:
    """Decode Z85 text (ZeroMQ RFC 32), which Delta uses for deletion-vector ids (ValueError
    if invalid).

    A last block starting with ``#`` is a padded tail as the Rust ``z85`` crate writes it
    (delta-kernel-rs's inline DVs): ``k`` leading ``#`` mean ``4 - k`` bytes. No RFC block
    starts with ``#`` (84 * 85**4 exceeds 32 bits).
    """
    if len(text) % 5:
        raise ValueError("Z85 text length must be a multiple of 5")
    out = bytearray()
    for start in range(0, len(text), 5):
        block = text[start : start + 5]
        pad = len(block) - len(block.lstrip("#")) if start + 5 == len(text) else 0
        if pad > 3:
            raise ValueError("a padded Z85 tail must keep at least one byte")
        value = 0
        for char in block[pad:]:
            value = value * 85 + _Z85_INDEX[char]
        out += value.to_bytes(4 - pad, "big")
    return bytes(out)


@dataclass(frozen=True, kw_only=True)
class DeletionVector:
    """A ``deletionVector`` descriptor; ``storage_type`` is ``u`` (relative path from a
    UUID), ``i`` (inline) or ``p`` (absolute path)."""

    storage_type: str
    path_or_inline_dv: str
    offset: int | None
    size_in_bytes: int
    cardinality: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> DeletionVector | None:
        """Build a descriptor from its JSON object, or None when absent."""
        if not obj:
            return None
        if not isinstance(obj, Mapping):
            raise ValueError(f"'deletionVector' must be an object, found {json_type_name(obj)}")
        return cls(
            storage_type=as_str(obj["storageType"], "deletionVector.storageType"),
            path_or_inline_dv=as_str(obj["pathOrInlineDv"], "deletionVector.pathOrInlineDv"),
            offset=opt_long(obj.get("offset"), "deletionVector.offset"),
            size_in_bytes=as_long(obj.get("sizeInBytes") or 0, "deletionVector.sizeInBytes"),
            cardinality=as_long(obj.get("cardinality") or 0, "deletionVector.cardinality"),
        )

    def to_json(self) -> dict[str, Any]:
        """The descriptor as the log writes it (the inverse of :meth:`from_json`)."""
        return camel_json(self)

    @property
    def unique_id(self) -> str:
        """The spec's unique id: storage type + path or inline data (+ ``@offset``)."""
        base = f"{self.storage_type}{self.path_or_inline_dv}"
        return f"{base}@{self.offset}" if self.offset is not None else base

    @property
    def required_file_size(self) -> int:
        """The DV file's least size: at ``offset``, a 4-byte size, the bitmap, a checksum."""
        return (self.offset or 0) + 4 + self.size_in_bytes + 4

    def relative_or_absolute_path(self) -> str | None:
        """Where the DV file lives (relative to the table root for ``u``); None for inline."""
        if self.storage_type == "i":
            return None
        if self.storage_type == "p":
            return self.path_or_inline_dv
        prefix, uuid_z85 = self.path_or_inline_dv[:-20], self.path_or_inline_dv[-20:]
        name = f"deletion_vector_{uuid.UUID(bytes=z85_decode(uuid_z85))}.bin"
        return f"{prefix}/{name}" if prefix else name


class _FileAction:
    """What add and remove actions share: the replay identity and the stats' record count."""

    path: str
    stats: str | None
    deletion_vector: DeletionVector | None

    @property
    def key(self) -> tuple[str, str | None]:
        """The replay identity: canonical path (URL-decoded, as Delta does: the spec stores
        URIs) + deletion-vector id."""
        dv = self.deletion_vector
        return (canonical_path(self.path), dv.unique_id if dv else None)

    @property
    def num_records(self) -> int | None:
        """``numRecords`` from stats, or None when stats are absent."""
        return num_records_of(self.stats)


@dataclass(frozen=True, kw_only=True)
class AddFile(_FileAction):
    """An ``add`` action: a data file (plus optional deletion vector) becomes live."""

    path: str
    partition_values: Mapping[str, str | None]
    size: int
    modification_time: int
    data_change: bool
    stats: str | None = None
    tags: Mapping[str, str] | None = None
    deletion_vector: DeletionVector | None = None
    base_row_id: int | None = None
    default_row_commit_version: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def parsed_stats(self) -> Mapping[str, Any]:
        """The JSON ``stats`` as a dict (empty when absent or unparsable)."""
        return _parse_stats(self.stats)

    @property
    def num_live_records(self) -> int | None:
        """Records minus those marked deleted by the deletion vector."""
        if self.num_records is None:
            return None
        dv_rows = self.deletion_vector.cardinality if self.deletion_vector else 0
        return self.num_records - dv_rows


@dataclass(frozen=True, kw_only=True)
class RemoveFile(_FileAction):
    """A ``remove`` action: a file (plus optional deletion vector) becomes a tombstone."""

    path: str
    deletion_timestamp: int | None
    data_change: bool
    partition_values: Mapping[str, str | None] | None = None
    size: int | None = None
    stats: str | None = None
    tags: Mapping[str, str] | None = None
    deletion_vector: DeletionVector | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class Metadata:
    """A ``metaData`` action: schema, partitioning and configuration of the table."""

    id: str
    name: str | None
    description: str | None
    format_provider: str
    schema_string: str
    partition_columns: tuple[str, ...]
    configuration: Mapping[str, str]
    created_time: int | None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def schema(self) -> StructType:
        """The logical schema parsed from ``schemaString``."""
        return parse_schema(self.schema_string)

    @property
    def column_mapping_mode(self) -> str:
        """``none``, ``name`` or ``id`` (``delta.columnMapping.mode``)."""
        return self.configuration.get(COLUMN_MAPPING_MODE, "none") or "none"


@dataclass(frozen=True, kw_only=True)
class Protocol:
    """A ``protocol`` action: reader/writer versions and table features."""

    min_reader_version: int
    min_writer_version: int
    reader_features: tuple[str, ...] | None = None
    writer_features: tuple[str, ...] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def features(self) -> tuple[str, ...]:
        """All table features named by the protocol, reader and writer, sorted."""
        names = set(self.reader_features or ()) | set(self.writer_features or ())
        return tuple(sorted(names))


@dataclass(frozen=True, kw_only=True)
class CommitInfo:
    """A ``commitInfo`` action: provenance of a commit. Free-form by the spec."""

    raw: Mapping[str, Any]

    @property
    def operation(self) -> str:
        """The operation name (WRITE, MERGE, ...), or ``UNKNOWN``."""
        return str(self.raw.get("operation") or "UNKNOWN")

    @property
    def operation_parameters(self) -> Mapping[str, Any]:
        """Operation parameters as written (values are often JSON strings); {} if not an object."""
        return mapping_or_empty(self.raw.get("operationParameters"))

    @property
    def operation_metrics(self) -> Mapping[str, Any]:
        """Operation metrics as written (values are strings in Spark's log); {} if not an object."""
        return mapping_or_empty(self.raw.get("operationMetrics"))

    @property
    def timestamp(self) -> int | None:
        """The writer's wall-clock time in ms since the epoch."""
        return opt_epoch_ms(self.raw.get("timestamp"))

    @property
    def in_commit_timestamp(self) -> int | None:
        """The in-commit timestamp (``inCommitTimestamp``) in ms, when written."""
        return opt_epoch_ms(self.raw.get("inCommitTimestamp"))

    @property
    def read_version(self) -> int | None:
        """The version the writer read before committing."""
        return as_int(self.raw.get("readVersion"))

    @property
    def engine_info(self) -> str | None:
        """The engine that wrote the commit, e.g. ``Apache-Spark/3.5.0 Delta-Lake/3.1.0``."""
        return text_or_none(self.raw.get("engineInfo") or self.raw.get("clientVersion"))

    @property
    def user(self) -> str | None:
        """The user name (or id) recorded by the writer."""
        return text_or_none(self.raw.get("userName") or self.raw.get("userId"))


@dataclass(frozen=True, kw_only=True)
class Txn:
    """A ``txn`` action: an application's transaction version (idempotent writes)."""

    app_id: str
    version: int


@dataclass(frozen=True, kw_only=True)
class AddCDCFile:
    """A ``cdc`` action: a change-data file written by this commit."""

    path: str
    partition_values: Mapping[str, str | None]
    size: int
    data_change: bool


@dataclass(frozen=True, kw_only=True)
class DomainMetadata:
    """A ``domainMetadata`` action."""

    domain: str
    configuration: str
    removed: bool


@dataclass(frozen=True, kw_only=True)
class CheckpointMetadata:
    """A ``checkpointMetadata`` action (V2 checkpoints only)."""

    version: int
    tags: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=True)
class Sidecar:
    """A ``sidecar`` action: a V2 checkpoint's file of add/remove actions."""

    path: str
    size_in_bytes: int
    modification_time: int | None = None


@dataclass(frozen=True, kw_only=True)
class UnknownAction:
    """An action this tool does not model; kept so nothing is silently lost."""

    name: str
    raw: Mapping[str, Any]


Action = (
    AddFile
    | RemoveFile
    | Metadata
    | Protocol
    | CommitInfo
    | Txn
    | AddCDCFile
    | DomainMetadata
    | CheckpointMetadata
    | Sidecar
    | UnknownAction
)


# Writers put numRecords first; reading it without parsing all the column stats
# makes the history of a 10,000-commit table much cheaper.
_LEADING_NUM_RECORDS = re.compile(r'\{\s*"numRecords"\s*:\s*(\d+)\s*[,}]')


def num_records_of(stats: str | None) -> int | None:
    """``numRecords`` of a file's JSON stats (None when absent or unreadable)."""
    if not stats:
        return None
    if leading := _LEADING_NUM_RECORDS.match(stats):
        return int(leading.group(1))
    return as_int(_parse_stats(stats).get("numRecords"))


def _parse_stats(stats: str | None) -> Mapping[str, Any]:
    if not stats:
        return {}
    try:
        parsed = json.loads(stats)
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
