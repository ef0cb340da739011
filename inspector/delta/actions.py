"""Typed records for the actions of the Delta transaction log.

Field names follow the Delta protocol (``PROTOCOL.md``) in snake_case. Each record
keeps the action's original JSON object in ``raw`` so that a writer (RESTORE) can
re-emit it faithfully, including fields this tool does not model.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from inspector.delta.schema import StructType, parse_schema

_Z85_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_INDEX = {c: i for i, c in enumerate(_Z85_CHARS)}


def z85_decode(text: str) -> bytes:
    """Decode Z85 text (ZeroMQ RFC 32), which Delta uses for deletion-vector ids.

    Args:
        text: Z85 text whose length is a multiple of 5.

    Returns:
        The decoded bytes (4 for every 5 characters).

    Raises:
        ValueError: If the text is not valid Z85.
    """
    if len(text) % 5:
        raise ValueError("Z85 text length must be a multiple of 5")
    out = bytearray()
    for start in range(0, len(text), 5):
        value = 0
        for char in text[start : start + 5]:
            value = value * 85 + _Z85_INDEX[char]
        out += value.to_bytes(4, "big")
    return bytes(out)


@dataclass(frozen=True)
class DeletionVector:
    """A deletion-vector descriptor (``deletionVector`` field of add/remove).

    ``storage_type`` is ``u`` (relative path from a UUID), ``i`` (inline) or ``p``
    (absolute path).
    """

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
            raise ValueError(f"'deletionVector' must be an object, found {_kind(obj)}")
        return cls(
            storage_type=_as_str(obj["storageType"], "deletionVector.storageType"),
            path_or_inline_dv=_as_str(obj["pathOrInlineDv"], "deletionVector.pathOrInlineDv"),
            offset=_opt_long(obj.get("offset"), "deletionVector.offset"),
            size_in_bytes=_as_long(obj.get("sizeInBytes") or 0, "deletionVector.sizeInBytes"),
            cardinality=_as_long(obj.get("cardinality") or 0, "deletionVector.cardinality"),
        )

    @property
    def unique_id(self) -> str:
        """The spec's unique id: storage type + path or inline data (+ ``@offset``)."""
        base = f"{self.storage_type}{self.path_or_inline_dv}"
        return f"{base}@{self.offset}" if self.offset is not None else base

    @property
    def required_file_size(self) -> int:
        """How many bytes the DV's file must have: on disk a DV is stored at ``offset``
        as a 4-byte size, the bitmap (``sizeInBytes``) and a 4-byte checksum."""
        return (self.offset or 0) + 4 + self.size_in_bytes + 4

    def relative_or_absolute_path(self) -> str | None:
        """Where the DV file lives: relative to the table root for ``u``, absolute for ``p``.

        Returns:
            The path, or None for an inline (``i``) deletion vector.
        """
        if self.storage_type == "i":
            return None
        if self.storage_type == "p":
            return self.path_or_inline_dv
        encoded = self.path_or_inline_dv
        prefix, uuid_z85 = encoded[:-20], encoded[-20:]
        file_id = uuid.UUID(bytes=z85_decode(uuid_z85))
        name = f"deletion_vector_{file_id}.bin"
        return f"{prefix}/{name}" if prefix else name


@dataclass(frozen=True)
class AddFile:
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

    @property
    def key(self) -> tuple[str, str | None]:
        """Logical file identity used by log replay: (path, deletion-vector id)."""
        return file_key(self.path, self.deletion_vector)

    @cached_property
    def parsed_stats(self) -> Mapping[str, Any]:
        """The JSON ``stats`` as a dict (empty when absent or unparsable)."""
        return _parse_stats(self.stats)

    @property
    def num_records(self) -> int | None:
        """``numRecords`` from stats, or None when stats are absent."""
        return _num_records(self.stats)

    @property
    def num_live_records(self) -> int | None:
        """Records minus those marked deleted by the deletion vector."""
        if self.num_records is None:
            return None
        dv_rows = self.deletion_vector.cardinality if self.deletion_vector else 0
        return self.num_records - dv_rows


@dataclass(frozen=True)
class RemoveFile:
    """A ``remove`` action: a file (plus optional deletion vector) becomes a tombstone."""

    path: str
    deletion_timestamp: int | None
    data_change: bool
    extended_file_metadata: bool | None = None
    partition_values: Mapping[str, str | None] | None = None
    size: int | None = None
    stats: str | None = None
    tags: Mapping[str, str] | None = None
    deletion_vector: DeletionVector | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str | None]:
        """Logical file identity used by log replay: (path, deletion-vector id)."""
        return file_key(self.path, self.deletion_vector)

    @property
    def num_records(self) -> int | None:
        """``numRecords`` from stats when the remove carries them."""
        return _num_records(self.stats)


FileAction = AddFile | RemoveFile


@dataclass(frozen=True)
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
        return self.configuration.get("delta.columnMapping.mode", "none") or "none"


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
        return _mapping_or_empty(self.raw.get("operationParameters"))

    @property
    def operation_metrics(self) -> Mapping[str, Any]:
        """Operation metrics as written (values are strings in Spark's log); {} if not an object."""
        return _mapping_or_empty(self.raw.get("operationMetrics"))

    @property
    def timestamp(self) -> int | None:
        """The writer's wall-clock time in ms since the epoch."""
        return _opt_epoch_ms(self.raw.get("timestamp"))

    @property
    def in_commit_timestamp(self) -> int | None:
        """The in-commit timestamp (``inCommitTimestamp``) in ms, when written."""
        return _opt_epoch_ms(self.raw.get("inCommitTimestamp"))

    @property
    def read_version(self) -> int | None:
        """The version the writer read before committing."""
        return _as_int(self.raw.get("readVersion"))

    @property
    def engine_info(self) -> str | None:
        """The engine that wrote the commit, e.g. ``Apache-Spark/3.5.0 Delta-Lake/3.1.0``."""
        return _text_or_none(self.raw.get("engineInfo") or self.raw.get("clientVersion"))

    @property
    def user(self) -> str | None:
        """The user name (or id) recorded by the writer."""
        return _text_or_none(self.raw.get("userName") or self.raw.get("userId"))


@dataclass(frozen=True)
class Txn:
    """A ``txn`` action: an application's transaction version (idempotent writes)."""

    app_id: str
    version: int
    last_updated: int | None = None


@dataclass(frozen=True)
class AddCDCFile:
    """A ``cdc`` action: a change-data file written by this commit."""

    path: str
    partition_values: Mapping[str, str | None]
    size: int
    data_change: bool


@dataclass(frozen=True)
class DomainMetadata:
    """A ``domainMetadata`` action."""

    domain: str
    configuration: str
    removed: bool


@dataclass(frozen=True)
class CheckpointMetadata:
    """A ``checkpointMetadata`` action (V2 checkpoints only)."""

    version: int
    tags: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Sidecar:
    """A ``sidecar`` action: a V2 checkpoint's file of add/remove actions."""

    path: str
    size_in_bytes: int
    modification_time: int | None = None


@dataclass(frozen=True)
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


def file_key(path: str, dv: DeletionVector | None) -> tuple[str, str | None]:
    """The replay identity of a file action: canonical path + deletion-vector id.

    Paths are URL-decoded because the spec stores them as URIs; this makes
    ``a%20b.parquet`` and ``a b.parquet`` the same file, as Delta does.
    """
    return (canonical_path(path), dv.unique_id if dv else None)


def canonical_path(path: str) -> str:
    """Decode a log path (a URI) to the string used for identity and file access."""
    decoded = unquote(path)
    if decoded.startswith("file://"):
        decoded = decoded[len("file://") :]
    elif decoded.startswith("file:"):
        decoded = decoded[len("file:") :]
    return decoded


def parse_action(obj: Mapping[str, Any]) -> Action:
    """Turn one JSON line of a commit (or a checkpoint row) into a typed record.

    Args:
        obj: A mapping with exactly one top-level key naming the action.

    Returns:
        The typed action; unknown names give :class:`UnknownAction`.

    Raises:
        ValueError: If the object is not an action (not a JSON object, or empty),
            or the action misses a required field or has one of the wrong type.
    """
    if type(obj) is not dict and not isinstance(obj, Mapping):  # exact-type check first: hot path
        raise ValueError(f"expected a JSON object holding one action, found {type(obj).__name__}")
    if not obj:
        raise ValueError("empty action")
    name, body = next(iter(obj.items()))
    parser = _PARSERS.get(name)
    if parser is None:
        return UnknownAction(name=name, raw=body if isinstance(body, dict) else {})
    if type(body) is not dict and not isinstance(body, Mapping):
        raise ValueError(f"'{name}' action is not a JSON object")
    try:
        return parser(body)
    except KeyError as exc:
        raise ValueError(f"'{name}' action is missing a required field ({exc})") from None
    except (ValueError, TypeError, AttributeError) as exc:  # a field of the wrong type
        raise ValueError(f"'{name}' action has an invalid field: {exc}") from None


def _parse_add(body: Mapping[str, Any]) -> AddFile:
    return AddFile(
        path=_as_str(body["path"], "path"),
        partition_values=_as_text_map(body.get("partitionValues"), "partitionValues") or {},
        size=_as_long(body["size"], "size"),
        modification_time=_as_epoch_ms(body.get("modificationTime") or 0, "modificationTime"),
        data_change=bool(body.get("dataChange", True)),
        stats=_opt_str(body.get("stats"), "stats"),
        tags=_as_str_map(body.get("tags"), "tags"),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        base_row_id=_as_int(body.get("baseRowId")),
        default_row_commit_version=_as_int(body.get("defaultRowCommitVersion")),
        raw=body,
    )


def _parse_remove(body: Mapping[str, Any]) -> RemoveFile:
    return RemoveFile(
        path=_as_str(body["path"], "path"),
        deletion_timestamp=_opt_epoch_ms(body.get("deletionTimestamp")),
        data_change=bool(body.get("dataChange", True)),
        extended_file_metadata=body.get("extendedFileMetadata"),
        partition_values=_as_text_map(body.get("partitionValues"), "partitionValues"),
        size=_as_int(body.get("size")),
        stats=_opt_str(body.get("stats"), "stats"),
        tags=_as_str_map(body.get("tags"), "tags"),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        raw=body,
    )


def _parse_metadata(body: Mapping[str, Any]) -> Metadata:
    fmt = body.get("format") or {}
    if not isinstance(fmt, Mapping):
        raise ValueError(f"'format' must be an object, found {_kind(fmt)}")
    if body.get("schemaString"):
        # A schema nobody can read is a broken action: say so now.
        parse_schema(_as_str(body["schemaString"], "schemaString"))
    return Metadata(
        id=str(body.get("id") or ""),
        name=_opt_str(body.get("name"), "name"),
        description=_opt_str(body.get("description"), "description"),
        format_provider=_opt_str(fmt.get("provider"), "format.provider") or "parquet",
        # Hand-built logs omit schemaString; treat that as an empty schema, not a corrupt commit.
        schema_string=body.get("schemaString") or '{"type":"struct","fields":[]}',
        partition_columns=_as_str_list(body.get("partitionColumns"), "partitionColumns"),
        configuration=_as_str_map(body.get("configuration"), "configuration") or {},
        created_time=_as_int(body.get("createdTime")),
        raw=body,
    )


def _parse_protocol(body: Mapping[str, Any]) -> Protocol:
    readers, writers = body.get("readerFeatures"), body.get("writerFeatures")
    return Protocol(
        min_reader_version=_as_long(body["minReaderVersion"], "minReaderVersion"),
        min_writer_version=_as_long(body["minWriterVersion"], "minWriterVersion"),
        reader_features=_as_str_list(readers, "readerFeatures") if readers is not None else None,
        writer_features=_as_str_list(writers, "writerFeatures") if writers is not None else None,
        raw=body,
    )


def _parse_txn(body: Mapping[str, Any]) -> Txn:
    return Txn(
        _as_str(body["appId"], "appId"),
        _as_long(body["version"], "version"),
        _as_int(body.get("lastUpdated")),
    )


def _parse_cdc(body: Mapping[str, Any]) -> AddCDCFile:
    return AddCDCFile(
        path=_as_str(body["path"], "path"),
        partition_values=_as_text_map(body.get("partitionValues"), "partitionValues") or {},
        size=_as_long(body.get("size") or 0, "size"),
        data_change=bool(body.get("dataChange", False)),
    )


def _parse_domain(body: Mapping[str, Any]) -> DomainMetadata:
    return DomainMetadata(
        _as_str(body["domain"], "domain"),
        _opt_str(body.get("configuration"), "configuration") or "",
        bool(body.get("removed")),
    )


def _parse_checkpoint_metadata(body: Mapping[str, Any]) -> CheckpointMetadata:
    return CheckpointMetadata(
        _as_long(body["version"], "version"), _as_str_map(body.get("tags"), "tags")
    )


def _parse_sidecar(body: Mapping[str, Any]) -> Sidecar:
    return Sidecar(
        _as_str(body["path"], "path"),
        _as_long(body.get("sizeInBytes") or 0, "sizeInBytes"),
        _as_int(body.get("modificationTime")),
    )


_PARSERS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "add": _parse_add,
    "remove": _parse_remove,
    "metaData": _parse_metadata,
    "protocol": _parse_protocol,
    "commitInfo": CommitInfo,
    "txn": _parse_txn,
    "cdc": _parse_cdc,
    "domainMetadata": _parse_domain,
    "checkpointMetadata": _parse_checkpoint_metadata,
    "sidecar": _parse_sidecar,
}


def _mapping_or_empty(value: Any) -> Mapping[str, Any]:
    # commitInfo is free-form: a writer may put anything there, and the history must still show.
    return value if isinstance(value, dict) else {}


def _text_or_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


# The protocol's integers are Java longs; a number outside that range is a damaged field.
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _as_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"'{name}' must be a string, found {_kind(value)}")
    return value


def _opt_str(value: Any, name: str) -> str | None:
    return None if value is None else _as_str(value, name)


def _as_str_list(value: Any, name: str) -> tuple[str, ...]:
    """A JSON array of strings (absent: empty); a bare string is not a list of names."""
    if value is None:
        return ()
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
        raise ValueError(f"'{name}' must be an array of strings, found {_kind(value)}")
    return tuple(_as_str(item, name) for item in value)


def _as_long(value: Any, name: str) -> int:
    """A required integer: a JSON integer (or its decimal text) within a Java long."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():  # never NaN or infinity
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value)
    else:
        number = None
    if number is None or not _LONG_MIN <= number <= _LONG_MAX:
        raise ValueError(f"'{name}' must be an integer, found {str(value)[:40]!r}")
    return number


def _opt_long(value: Any, name: str) -> int | None:
    return None if value is None else _as_long(value, name)


def _as_int(value: Any) -> int | None:
    """An optional integer: anything that is not one (or is out of range) counts as absent."""
    if value is None or value == "":
        return None
    try:
        return _as_long(value, "")
    except ValueError:
        return None


# Times are milliseconds since the epoch; beyond years 1..9999 no calendar can show them.
_EPOCH_MS_MIN, _EPOCH_MS_MAX = -62_135_596_800_000, 253_402_300_799_999


def _as_epoch_ms(value: Any, name: str) -> int:
    """A required time in ms since the epoch, within the years 1 to 9999."""
    ms = _as_long(value, name)
    if not _EPOCH_MS_MIN <= ms <= _EPOCH_MS_MAX:
        raise ValueError(f"'{name}' is not a time (ms since 1970) between years 1 and 9999: {ms}")
    return ms


def _opt_epoch_ms(value: Any) -> int | None:
    """An optional time in ms since the epoch; a value no calendar can show counts as absent."""
    ms = _as_int(value)
    return ms if ms is not None and _EPOCH_MS_MIN <= ms <= _EPOCH_MS_MAX else None


def _as_text_map(value: Any, name: str) -> dict[str, str | None] | None:
    """``partitionValues``: strings to strings or null (a null partition value), else broken."""
    found = _as_map(value)
    if found is None:
        return None
    for key, item in found.items():
        if not isinstance(key, str) or not (item is None or isinstance(item, str)):
            raise ValueError(f"'{name}' must map strings to strings, found {key!r}: {_kind(item)}")
    return found


def _as_str_map(value: Any, name: str) -> dict[str, str] | None:
    """``configuration`` and ``tags``: strings to strings, else a broken field."""
    found = _as_map(value)
    if found is None:
        return None
    for key, item in found.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise ValueError(f"'{name}' must map strings to strings, found {key!r}: {_kind(item)}")
    return found


def _as_map(value: Any) -> dict[str, Any] | None:
    """Normalise a JSON object or a Parquet map (list of key/value pairs) to a dict."""
    if value is None:
        return None
    if isinstance(value, dict):
        return dict(value)
    return dict(value)


# Writers put numRecords first; reading it without parsing all the column stats
# makes the history of a 10,000-commit table much cheaper.
_LEADING_NUM_RECORDS = re.compile(r'\{\s*"numRecords"\s*:\s*(\d+)\s*[,}]')


def _num_records(stats: str | None) -> int | None:
    if not stats:
        return None
    leading = _LEADING_NUM_RECORDS.match(stats)
    if leading:
        return int(leading.group(1))
    return _as_int(_parse_stats(stats).get("numRecords"))


def _parse_stats(stats: str | None) -> Mapping[str, Any]:
    if not stats:
        return {}
    try:
        parsed = json.loads(stats)
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
