"""Choosing a version: parsing what users type, and describing a version's files."""

from __future__ import annotations

from typing import Any

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InvalidInput
from inspector.log.deltalog import DeltaLog


def parse_version(text: str | int, log: DeltaLog) -> int:
    """Parse a version typed by a user; ``latest`` (or ``-1``) means the newest.

    Args:
        text: The typed version.
        log: The table's log, for the range in messages.

    Returns:
        The version number (not checked against the log; callers do that).

    Raises:
        InvalidInput: If the text is not a whole number.
    """
    raw = str(text).strip().lower()
    if raw in {"latest", "-1", "current"}:
        return log.latest_version
    try:
        version = int(raw)
    except ValueError:
        raise InvalidInput(
            f"'{text}' is not a version number.",
            f"Give a whole number between {log.earliest_version} and {log.latest_version}, "
            "or 'latest'.",
        ) from None
    if version < 0:
        raise InvalidInput(
            f"Version {version} is negative.",
            f"Give a version between {log.earliest_version} and {log.latest_version}.",
        )
    return version


def file_action_record(action: AddFile | RemoveFile) -> dict[str, Any]:
    """The JSON contract of one add or remove action (CLI ``files --json`` and the UI)."""
    record: dict[str, Any] = {
        "path": action.path,
        "size": action.size,
        "partitionValues": dict(action.partition_values or {}),
        "dataChange": action.data_change,
        "numRecords": action.num_records,
        "deletionVector": _dv_record(action),
        "tags": dict(action.tags or {}),
    }
    if isinstance(action, AddFile):
        stats = action.parsed_stats
        record["modificationTime"] = action.modification_time
        record["minValues"] = stats.get("minValues")
        record["maxValues"] = stats.get("maxValues")
        record["nullCount"] = stats.get("nullCount")
    else:
        record["deletionTimestamp"] = action.deletion_timestamp
    return record


def _dv_record(action: AddFile | RemoveFile) -> dict[str, Any] | None:
    dv = action.deletion_vector
    if dv is None:
        return None
    return {**dv.to_json(), "uniqueId": dv.unique_id}
