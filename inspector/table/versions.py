"""Choosing a version: parsing what users type, and describing a version's files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InvalidInput
from inspector.delta.schema import ColumnNames, with_logical_names
from inspector.log.commit import Commit, parse_commit
from inspector.log.deltalog import DeltaLog


def parse_version(text: str | int, log: DeltaLog) -> int:
    """Parse a version typed by a user (not checked against the log; callers do that);
    ``latest`` (or ``-1``) means the newest.

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


def file_action_record(
    action: AddFile | RemoveFile, names: ColumnNames | None = None
) -> dict[str, Any]:
    """The JSON contract of one add or remove action (CLI ``files --json`` and the UI);
    with the table's ``logical_names``, partition values and statistics use logical
    column names, as every page does (the log uses physical ones under column mapping)."""
    names, dv = names or {}, action.deletion_vector
    record: dict[str, Any] = {
        "path": action.path,
        "size": action.size,
        "partitionValues": with_logical_names(action.partition_values or {}, names),
        "dataChange": action.data_change,
        "numRecords": action.num_records,
        "deletionVector": None if dv is None else {**dv.to_json(), "uniqueId": dv.unique_id},
        "tags": dict(action.tags or {}),
    }
    if isinstance(action, AddFile):
        stats = action.parsed_stats
        record["modificationTime"] = action.modification_time
        for section in ("minValues", "maxValues", "nullCount"):
            values = stats.get(section)
            record[section] = (
                with_logical_names(values, names) if isinstance(values, Mapping) else values
            )
    else:
        record["deletionTimestamp"] = action.deletion_timestamp
    return record


def commit_records(log: DeltaLog, version: int) -> Commit:
    """A version's commit with every action a typed record, whatever its size: for a reader
    that shows every action (Arrow's read of a big commit would only be turned into them).

    Raises:
        VersionNotFound: If the version has no commit file.
    """
    file = log.commit_file(version)
    if file is None:
        return log.commit(version)  # says why there is no commit
    return parse_commit(version, file, log.read_commit_files([file])[0], columnar=False)
