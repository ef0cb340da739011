"""Parsing one JSON action of a commit (or a checkpoint row) into a typed record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.delta.actions import (
    Action,
    AddCDCFile,
    AddFile,
    CheckpointMetadata,
    CommitInfo,
    DeletionVector,
    DomainMetadata,
    Metadata,
    Protocol,
    RemoveFile,
    Sidecar,
    Txn,
    UnknownAction,
    optional_int,
)
from inspector.delta.schema import parse_schema


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
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"'{name}' action is missing a required field ({exc})") from exc


def _parse_add(body: Mapping[str, Any]) -> AddFile:
    return AddFile(
        path=_as_str(body["path"], "path"),
        partition_values=_as_map(body.get("partitionValues")) or {},
        size=int(body["size"]),
        modification_time=int(body.get("modificationTime") or 0),
        data_change=bool(body.get("dataChange", True)),
        stats=body.get("stats"),
        tags=_as_map(body.get("tags")),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        base_row_id=optional_int(body.get("baseRowId")),
        default_row_commit_version=optional_int(body.get("defaultRowCommitVersion")),
        raw=body,
    )


def _parse_remove(body: Mapping[str, Any]) -> RemoveFile:
    return RemoveFile(
        path=_as_str(body["path"], "path"),
        deletion_timestamp=optional_int(body.get("deletionTimestamp")),
        data_change=bool(body.get("dataChange", True)),
        extended_file_metadata=body.get("extendedFileMetadata"),
        partition_values=_as_map(body.get("partitionValues")),
        size=optional_int(body.get("size")),
        stats=body.get("stats"),
        tags=_as_map(body.get("tags")),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        raw=body,
    )


def _parse_metadata(body: Mapping[str, Any]) -> Metadata:
    fmt = body.get("format") or {}
    if body.get("schemaString"):
        parse_schema(
            body["schemaString"]
        )  # a schema nobody can read is a broken action, say so now
    return Metadata(
        id=str(body.get("id") or ""),
        name=body.get("name"),
        description=body.get("description"),
        format_provider=fmt.get("provider") or "parquet",
        # Hand-built logs omit schemaString; treat that as an empty schema, not a corrupt commit.
        schema_string=body.get("schemaString") or '{"type":"struct","fields":[]}',
        partition_columns=tuple(body.get("partitionColumns") or ()),
        configuration=_as_map(body.get("configuration")) or {},
        created_time=optional_int(body.get("createdTime")),
        raw=body,
    )


def _parse_protocol(body: Mapping[str, Any]) -> Protocol:
    readers, writers = body.get("readerFeatures"), body.get("writerFeatures")
    return Protocol(
        min_reader_version=int(body["minReaderVersion"]),
        min_writer_version=int(body["minWriterVersion"]),
        reader_features=tuple(readers) if readers is not None else None,
        writer_features=tuple(writers) if writers is not None else None,
        raw=body,
    )


def _parse_txn(body: Mapping[str, Any]) -> Txn:
    return Txn(
        app_id=body["appId"],
        version=int(body["version"]),
        last_updated=optional_int(body.get("lastUpdated")),
    )


def _parse_cdc(body: Mapping[str, Any]) -> AddCDCFile:
    return AddCDCFile(
        path=body["path"],
        partition_values=_as_map(body.get("partitionValues")) or {},
        size=int(body.get("size") or 0),
        data_change=bool(body.get("dataChange", False)),
    )


def _parse_domain(body: Mapping[str, Any]) -> DomainMetadata:
    return DomainMetadata(
        domain=body["domain"],
        configuration=body.get("configuration") or "",
        removed=bool(body.get("removed")),
    )


def _parse_checkpoint_metadata(body: Mapping[str, Any]) -> CheckpointMetadata:
    return CheckpointMetadata(version=int(body["version"]), tags=_as_map(body.get("tags")))


def _parse_sidecar(body: Mapping[str, Any]) -> Sidecar:
    return Sidecar(
        path=body["path"],
        size_in_bytes=int(body.get("sizeInBytes") or 0),
        modification_time=optional_int(body.get("modificationTime")),
    )


_PARSERS = {
    "add": _parse_add,
    "remove": _parse_remove,
    "metaData": _parse_metadata,
    "protocol": _parse_protocol,
    "commitInfo": lambda body: CommitInfo(raw=body),
    "txn": _parse_txn,
    "cdc": _parse_cdc,
    "domainMetadata": _parse_domain,
    "checkpointMetadata": _parse_checkpoint_metadata,
    "sidecar": _parse_sidecar,
}


def _as_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"'{name}' must be a string, found {type(value).__name__}")
    return value


def _as_map(value: Any) -> dict[str, Any] | None:
    """Normalise a JSON object or a Parquet map (list of key/value pairs) to a dict."""
    if value is None:
        return None
    if isinstance(value, dict):
        return dict(value)
    return dict(value)


# Writers put numRecords first; reading it without parsing all the column stats
# makes the history of a 10,000-commit table much cheaper.
