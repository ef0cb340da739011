"""Parsing one JSON action of a commit (or a checkpoint row) into a typed record."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
)
from inspector.delta.fields import (
    as_epoch_ms,
    as_int,
    as_long,
    as_str,
    as_str_list,
    as_text_map,
    json_type_name,
    opt_epoch_ms,
    opt_str,
)
from inspector.delta.schema import parse_schema


def parse_action(obj: Mapping[str, Any]) -> Action:
    """Turn one JSON line of a commit (or a checkpoint row) into a typed record
    (:class:`UnknownAction` for an action this tool does not model).

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
        path=as_str(body["path"], "path"),
        partition_values=as_text_map(body.get("partitionValues"), "partitionValues") or {},
        size=as_long(body["size"], "size"),
        modification_time=as_epoch_ms(body.get("modificationTime") or 0, "modificationTime"),
        data_change=bool(body.get("dataChange", True)),
        stats=opt_str(body.get("stats"), "stats"),
        tags=as_text_map(body.get("tags"), "tags", nulls=False),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        base_row_id=as_int(body.get("baseRowId")),
        default_row_commit_version=as_int(body.get("defaultRowCommitVersion")),
        raw=body,
    )


def _parse_remove(body: Mapping[str, Any]) -> RemoveFile:
    return RemoveFile(
        path=as_str(body["path"], "path"),
        deletion_timestamp=opt_epoch_ms(body.get("deletionTimestamp")),
        data_change=bool(body.get("dataChange", True)),
        partition_values=as_text_map(body.get("partitionValues"), "partitionValues"),
        size=as_int(body.get("size")),
        stats=opt_str(body.get("stats"), "stats"),
        tags=as_text_map(body.get("tags"), "tags", nulls=False),
        deletion_vector=DeletionVector.from_json(body.get("deletionVector")),
        raw=body,
    )


def _parse_metadata(body: Mapping[str, Any]) -> Metadata:
    fmt = body.get("format") or {}
    if not isinstance(fmt, Mapping):
        raise ValueError(f"'format' must be an object, found {json_type_name(fmt)}")
    if body.get("schemaString"):
        # A schema nobody can read is a broken action: say so now.
        parse_schema(as_str(body["schemaString"], "schemaString"))
    return Metadata(
        id=str(body.get("id") or ""),
        name=opt_str(body.get("name"), "name"),
        description=opt_str(body.get("description"), "description"),
        format_provider=opt_str(fmt.get("provider"), "format.provider") or "parquet",
        # Hand-built logs omit schemaString; treat that as an empty schema, not a corrupt commit.
        schema_string=body.get("schemaString") or '{"type":"struct","fields":[]}',
        partition_columns=as_str_list(body.get("partitionColumns"), "partitionColumns"),
        configuration=as_text_map(body.get("configuration"), "configuration", nulls=False) or {},
        created_time=as_int(body.get("createdTime")),
        raw=body,
    )


def parse_protocol(body: Mapping[str, Any]) -> Protocol:
    """A protocol action's JSON body as a record (keeps the body as ``raw``)."""
    readers, writers = body.get("readerFeatures"), body.get("writerFeatures")
    return Protocol(
        min_reader_version=as_long(body["minReaderVersion"], "minReaderVersion"),
        min_writer_version=as_long(body["minWriterVersion"], "minWriterVersion"),
        reader_features=as_str_list(readers, "readerFeatures") if readers is not None else None,
        writer_features=as_str_list(writers, "writerFeatures") if writers is not None else None,
        raw=body,
    )


def _parse_txn(body: Mapping[str, Any]) -> Txn:
    return Txn(app_id=as_str(body["appId"], "appId"), version=as_long(body["version"], "version"))


def _parse_cdc(body: Mapping[str, Any]) -> AddCDCFile:
    return AddCDCFile(
        path=as_str(body["path"], "path"),
        partition_values=as_text_map(body.get("partitionValues"), "partitionValues") or {},
        size=as_long(body.get("size") or 0, "size"),
        data_change=bool(body.get("dataChange", False)),
    )


def _parse_domain(body: Mapping[str, Any]) -> DomainMetadata:
    return DomainMetadata(
        domain=as_str(body["domain"], "domain"),
        configuration=opt_str(body.get("configuration"), "configuration") or "",
        removed=bool(body.get("removed")),
    )


def _parse_checkpoint_metadata(body: Mapping[str, Any]) -> CheckpointMetadata:
    return CheckpointMetadata(
        version=as_long(body["version"], "version"),
        tags=as_text_map(body.get("tags"), "tags", nulls=False),
    )


def _parse_sidecar(body: Mapping[str, Any]) -> Sidecar:
    return Sidecar(
        path=as_str(body["path"], "path"),
        size_in_bytes=as_long(body.get("sizeInBytes") or 0, "sizeInBytes"),
        modification_time=as_int(body.get("modificationTime")),
    )


_PARSERS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "add": _parse_add,
    "remove": _parse_remove,
    "metaData": _parse_metadata,
    "protocol": parse_protocol,
    "commitInfo": lambda body: CommitInfo(raw=body),
    "txn": _parse_txn,
    "cdc": _parse_cdc,
    "domainMetadata": _parse_domain,
    "checkpointMetadata": _parse_checkpoint_metadata,
    "sidecar": _parse_sidecar,
}
