"""The actions of a RESTORE commit, built as Delta's ``RestoreTableCommand`` builds them.

Order in the file: ``commitInfo`` (first, as in-commit timestamps require),
``protocol`` and ``metaData`` when they change, ``domainMetadata``, the ``remove``
actions, then the ``add`` actions (so a reader that reconciles by path alone
still ends with the re-added file when only its deletion vector changes).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from inspector import __version__
from inspector.delta import properties
from inspector.delta.actions import AddFile, Metadata
from inspector.delta.fields import as_int
from inspector.delta.jsonvalue import camel_json
from inspector.delta.protocol import protocol_json, same_protocol
from inspector.delta.schema import (
    IDENTITY_HIGH_WATER_MARK,
    IDENTITY_START,
    IDENTITY_STEP,
    PHYSICAL_NAME_KEY,
    iter_columns,
)
from inspector.restore.guards import row_tracking_in_use
from inspector.restore.planrecord import RestoreMetrics, RestorePlan

ENGINE_INFO = f"delta-inspector/{__version__}"
#: In-commit-timestamp enablement: never moved by a restore (kept from the current version).
ICT_KEYS = (properties.ICT_ENABLEMENT_VERSION, properties.ICT_ENABLEMENT_TIMESTAMP)


def restore_actions(
    plan: RestorePlan,
    *,
    commit_version: int,
    now_ms: int,
    previous_timestamp_ms: int,
    reason: str,
    user: str,
    allow_missing_files: bool,
    allow_protocol_downgrade: bool,
) -> list[dict[str, Any]]:
    """Every action of the restore commit, as one-key JSON objects in commit order.

    ``previous_timestamp_ms`` is the read version's timestamp (in-commit when enabled, else
    its file time): the new in-commit timestamp must be later.
    """
    protocol = plan.target_protocol if allow_protocol_downgrade else plan.merged_protocol
    # Only a plan whose target version was read (its guards passed) reaches here.
    assert protocol is not None and plan.target_metadata is not None
    metadata = restored_metadata(plan.current_metadata, plan.target_metadata)
    ict = None
    if properties.enabled(metadata["configuration"], properties.ENABLE_IN_COMMIT_TIMESTAMPS):
        ict = max(now_ms, previous_timestamp_ms + 1)
        metadata = with_ict_enablement(metadata, plan.current_metadata, commit_version, ict)
    metrics = plan.effective_metrics(allow_missing_files=allow_missing_files)
    actions = [{"commitInfo": commit_info(plan, metrics, now_ms, ict, reason, user)}]
    if not same_protocol(protocol, plan.current_protocol):
        actions.append({"protocol": protocol_json(protocol)})
    if metadata != metadata_json(plan.current_metadata):
        actions.append({"metaData": metadata})
    actions += [{"domainMetadata": dict(d)} for d in plan.domain_metadata]
    actions += [{"remove": remove_body(a, now_ms)} for a in plan.files_to_remove]
    tracking = row_tracking_in_use(protocol, metadata["configuration"])
    adds = plan.kept_adds(allow_missing_files=allow_missing_files)
    actions += [{"add": add_body(a, commit_version, tracking)} for a in adds]
    return actions


def commit_info(
    plan: RestorePlan, metrics: RestoreMetrics, now_ms: int, ict: int | None, reason: str, user: str
) -> dict[str, Any]:
    """The ``commitInfo`` of a restore, with Delta's operation name, parameters and metrics."""
    return {
        **({} if ict is None else {"inCommitTimestamp": ict}),
        "timestamp": now_ms,
        "userName": user,
        "operation": "RESTORE",
        "operationParameters": {
            "version": plan.target_version,
            "timestamp": plan.requested_timestamp,
        },
        "readVersion": plan.read_version,
        "isolationLevel": "Serializable",
        "isBlindAppend": False,
        "operationMetrics": metrics.operation_metrics(),
        "userMetadata": reason,
        "engineInfo": ENGINE_INFO,
        "txnId": str(uuid.uuid4()),
    }


def metadata_json(meta: Metadata) -> dict[str, Any]:
    """The JSON body of a ``metaData`` action, normalised so two can be compared."""
    raw_format = meta.raw.get("format")
    fmt: Mapping[str, Any] = raw_format if isinstance(raw_format, dict) else {}
    body = {
        **camel_json(meta, "id", "name", "description"),
        "format": {"provider": meta.format_provider, "options": dict(fmt.get("options") or {})},
        "schemaString": meta.schema_string,
        "partitionColumns": list(meta.partition_columns),
        "configuration": dict(meta.configuration),
        "createdTime": meta.created_time,
    }
    return {key: value for key, value in body.items() if value is not None}  # unset: absent


def restored_metadata(current: Metadata, target: Metadata) -> dict[str, Any]:
    """The target's metadata, with identity high-water marks and column ids never going back,
    as Delta does (``IdentityColumn.copySchemaWithMergedHighWaterMarks``, the highest
    ``delta.columnMapping.maxColumnId``): no value or column id used after the target
    version is handed out again."""
    body = metadata_json(target)
    body["schemaString"] = merge_high_water_marks(target.schema_string, current.schema_string)
    if target.column_mapping_mode != "none":
        highest = max(
            as_int(target.configuration.get(properties.COLUMN_MAPPING_MAX_ID)) or 0,
            as_int(current.configuration.get(properties.COLUMN_MAPPING_MAX_ID)) or 0,
            *(c.column_id or 0 for c in iter_columns(target.schema)),
        )
        if highest and str(highest) != target.configuration.get(properties.COLUMN_MAPPING_MAX_ID):
            body["configuration"] = {
                **body["configuration"],
                properties.COLUMN_MAPPING_MAX_ID: str(highest),
            }
    return body


def merge_high_water_marks(schema_string: str, current_schema_string: str) -> str:
    """``schema_string`` with each identity column's high-water mark merged with the current
    one (matched by physical name): the larger with a positive step, else the smaller."""
    schema, current = json.loads(schema_string), json.loads(current_schema_string)
    marks = {
        _physical(f): f["metadata"][IDENTITY_HIGH_WATER_MARK]
        for f in current.get("fields", [])
        if _is_identity(f) and IDENTITY_HIGH_WATER_MARK in f["metadata"]
    }
    changed = False
    for f in schema.get("fields", []):
        mark = marks.get(_physical(f)) if _is_identity(f) else None
        if mark is None:
            continue
        old = f["metadata"].get(IDENTITY_HIGH_WATER_MARK)
        pick = max if int(f["metadata"][IDENTITY_STEP]) > 0 else min
        new = mark if old is None else pick(int(old), int(mark))
        if new != old:
            f["metadata"][IDENTITY_HIGH_WATER_MARK] = new
            changed = True
    return json.dumps(schema, separators=(",", ":")) if changed else schema_string


def _is_identity(field_obj: Mapping[str, Any]) -> bool:
    md = field_obj.get("metadata") or {}
    return IDENTITY_START in md and IDENTITY_STEP in md


def _physical(field_obj: Mapping[str, Any]) -> str:
    return str((field_obj.get("metadata") or {}).get(PHYSICAL_NAME_KEY) or field_obj["name"])


def with_ict_enablement(
    metadata: dict[str, Any], current: Metadata, commit_version: int, ict: int
) -> dict[str, Any]:
    """Record in-commit-timestamp enablement as Delta does: this commit's version and
    timestamp when it turns them on, else the current ones (a restore must not move the
    boundary)."""
    config = dict(metadata["configuration"])
    if properties.enabled(current.configuration, properties.ENABLE_IN_COMMIT_TIMESTAMPS):
        for key in ICT_KEYS:
            config.pop(key, None)
            if key in current.configuration:
                config[key] = current.configuration[key]
    else:
        config[properties.ICT_ENABLEMENT_VERSION] = str(commit_version)
        config[properties.ICT_ENABLEMENT_TIMESTAMP] = str(ict)
    return {**metadata, "configuration": config}


def remove_body(add: AddFile, now_ms: int) -> dict[str, Any]:
    """A ``remove`` for a current file, with everything Delta's ``removeWithTimestamp`` keeps."""
    raw = add.raw
    body: dict[str, Any] = {
        "path": raw.get("path", add.path),
        "deletionTimestamp": now_ms,
        "dataChange": True,
        "extendedFileMetadata": True,
        "partitionValues": dict(add.partition_values),
        "size": add.size,
    }
    kept = ("stats", "tags", "deletionVector", "baseRowId", "defaultRowCommitVersion")
    return body | {key: raw[key] for key in kept if raw.get(key) is not None}


def add_body(add: AddFile, commit_version: int, row_tracking: bool) -> dict[str, Any]:
    """The target's ``add`` re-emitted as it was logged, with ``dataChange`` true; with row
    tracking a missing ``defaultRowCommitVersion`` is this commit's
    (``DefaultRowCommitVersion.assignIfMissing``)."""
    body = {k: v for k, v in add.raw.items() if v is not None}
    body["dataChange"] = True
    if row_tracking and body.get("defaultRowCommitVersion") is None:
        body["defaultRowCommitVersion"] = commit_version
    return body
