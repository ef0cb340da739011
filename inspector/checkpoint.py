"""Reading checkpoints: classic, multi-part and V2 (with sidecars), Parquet or JSON."""

from __future__ import annotations

import json
import os
from typing import Any, Iterable

import pyarrow.parquet as pq

from inspector.actions import Action, Sidecar, canonical_path, parse_action
from inspector.errors import CorruptLog
from inspector.listing import Checkpoint

_ACTION_COLUMNS = ("txn", "add", "remove", "metaData", "protocol", "domainMetadata",
                   "checkpointMetadata", "sidecar", "commitInfo")
# Parsed copies of JSON fields that some writers add; the JSON field is canonical.
_DERIVED_FIELDS = ("stats_parsed", "partitionValues_parsed")


def read_checkpoint(checkpoint: Checkpoint, log_folder: str) -> list[Action]:
    """All actions stored in a checkpoint, including those in its sidecar files.

    Args:
        checkpoint: The checkpoint to read (every part of a multi-part one).
        log_folder: The table's ``_delta_log`` folder (sidecars live in ``_sidecars``).

    Returns:
        The actions, in file order.

    Raises:
        CorruptLog: If a part or a sidecar is missing or unreadable.
    """
    actions: list[Action] = []
    for part in checkpoint.files:
        actions.extend(_read_file(part.path))
    sidecars = [a for a in actions if isinstance(a, Sidecar)]
    for sidecar in sidecars:
        actions.extend(_read_file(_sidecar_path(sidecar, log_folder)))
    return actions


def _sidecar_path(sidecar: Sidecar, log_folder: str) -> str:
    path = canonical_path(sidecar.path)
    return path if os.path.isabs(path) else os.path.join(log_folder, "_sidecars", path)


def _read_file(path: str) -> list[Action]:
    name = os.path.basename(path)
    try:
        if path.endswith(".json"):
            with open(path, "rb") as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
        else:
            rows = list(_parquet_rows(path))
        return [parse_action(row) for row in rows]
    except FileNotFoundError:
        raise CorruptLog(f"Checkpoint file {name} is missing.",
                         "Log replay falls back to an older checkpoint or to the commits.") from None
    except Exception as exc:  # pyarrow raises many types for corrupt files
        raise CorruptLog(f"Checkpoint file {name} is unreadable: {exc}",
                         "Log replay falls back to an older checkpoint or to the commits.") from None


def _parquet_rows(path: str) -> Iterable[dict[str, Any]]:
    """Yield ``{action_name: body}`` for each non-null action in a checkpoint Parquet file."""
    pf = pq.ParquetFile(path)
    columns = [c for c in _ACTION_COLUMNS if c in pf.schema_arrow.names]
    for batch in pf.iter_batches(columns=columns, batch_size=8192):
        for row in batch.to_pylist():
            for name, body in row.items():
                if body is not None:
                    yield {name: _clean(body)}


def _clean(body: dict[str, Any]) -> dict[str, Any]:
    """Drop Parquet nulls and derived fields so that ``raw`` looks like the JSON action."""
    out = {k: v for k, v in body.items() if v is not None and k not in _DERIVED_FIELDS}
    for key in ("partitionValues", "tags", "configuration"):
        if isinstance(out.get(key), list):
            out[key] = dict(out[key])
    if "stats" not in out and body.get("stats_parsed") is not None:
        out["stats"] = json.dumps(body["stats_parsed"], default=str)
    if isinstance(out.get("format"), dict) and isinstance(out["format"].get("options"), list):
        out["format"] = {**out["format"], "options": dict(out["format"]["options"])}
    if isinstance(out.get("deletionVector"), dict):
        out["deletionVector"] = {k: v for k, v in out["deletionVector"].items() if v is not None}
    return out
