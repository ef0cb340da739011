"""A small checkpoint read without pyarrow, into typed actions; and what both readers share.

Importing pyarrow (with the numpy it imports, ``pyarrow.compute`` and ``pyarrow.parquet``)
costs about 0.2 s of CPU, more than deltalake's whole process for ``detail``. A classic,
single-file Parquet checkpoint of at most :data:`LITE_MAX_ROWS` rows is read here instead, by
:mod:`inspector.log.parquet_lite`, into the typed actions a small commit gives; replay then
reconciles them in Python (:func:`inspector.log.reconcile.reconcile_records`) and builds
Arrow only if someone asks for a table. Anything else (a bigger, multi-part, V2 or JSON
checkpoint, a codec or encoding this reader lacks, a row it cannot turn into an action)
is left to :mod:`inspector.log.checkpoint` (pyarrow), which also words every error.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.delta.actions import Action, AddFile, RemoveFile, Sidecar
from inspector.delta.parse import parse_action
from inspector.log.listing import Checkpoint
from inspector.log.parquet_format import NotSupportedHere
from inspector.log.snapshot import ReplayState
from inspector.storage import Storage

# Read column by column; "remove" before "add" so that, should a checkpoint wrongly hold
# both for one file, the add (a checkpoint's definition of a live file) wins.
ACTION_COLUMNS = (
    "txn",
    "remove",
    "add",
    "metaData",
    "protocol",
    "domainMetadata",
    "checkpointMetadata",
    "sidecar",
    "commitInfo",
)
# What readers act on: enough to compare a checkpoint with its commits, cheaply
# (tombstones are most of a big checkpoint and are skipped).
LIVE_STATE_ACTIONS = frozenset({"add", "metaData", "protocol", "sidecar"})
# Parsed copies of JSON fields that some writers add; the JSON field is canonical.
DERIVED_FIELDS = ("stats_parsed", "partitionValues_parsed")
#: The largest checkpoint read without pyarrow: one Python record per row costs about 0.02 s
#: of CPU per 1,000 rows against pyarrow's ≈0.2 s import, so at 4,000 rows the pure-Python
#: reader still takes about 0.6 of pyarrow's time (``bench/bench_checkpoint_lite.py``,
#: docs/performance.md); bigger checkpoints are a bulk path, read column-wise in Arrow.
LITE_MAX_ROWS = 4_000
#: And at most this many bytes (a file above it is not fetched twice when it is declined).
LITE_MAX_BYTES = 1024 * 1024


def read_small_checkpoint(
    checkpoint: Checkpoint, storage: Storage, *, live_only: bool = False
) -> ReplayState | None:
    """The state a small checkpoint stores, as typed actions; None when it is not for here.

    Args:
        checkpoint: The checkpoint to read.
        storage: The table's storage.
        live_only: Read only what readers act on (see :data:`LIVE_STATE_ACTIONS`).

    Returns:
        The state (unresolved), or None: the checkpoint is not a single Parquet file of at
        most :data:`LITE_MAX_BYTES` and :data:`LITE_MAX_ROWS`, holds something this reader
        does not read, or cannot be read (:func:`inspector.log.checkpoint.read_checkpoint_state`
        then reads it, or says in its words why it cannot).

    Raises:
        StorageUnavailable: If the object store cannot be reached.
    """
    if len(checkpoint.files) != 1:
        return None
    part = checkpoint.files[0]
    if not part.path.endswith(".parquet") or part.size > LITE_MAX_BYTES:
        return None
    names = [c for c in ACTION_COLUMNS if not live_only or c in LIVE_STATE_ACTIONS]
    try:
        from inspector.log.parquet_lite import ParquetLite

        parquet = ParquetLite(storage.read(part.path))
        if parquet.num_rows > LITE_MAX_ROWS:
            return None
        if any(_only_parsed_stats(parquet.fields(kind)) for kind in ("add", "remove")):
            return None  # pyarrow's path turns stats_parsed into the JSON stats
        actions = _actions(parquet.read(names, skip=DERIVED_FIELDS))
    except (NotSupportedHere, OSError, ValueError):
        return None
    if actions is None:
        return None
    state = ReplayState()
    state.apply(a for a in actions if not isinstance(a, AddFile | RemoveFile))
    state.apply(a for a in actions if isinstance(a, RemoveFile))
    state.apply(a for a in actions if isinstance(a, AddFile))
    return state


def _only_parsed_stats(fields: frozenset[str]) -> bool:
    return "stats_parsed" in fields and "stats" not in fields


def _actions(columns: dict[str, list[Any]]) -> list[Action] | None:
    """Each non-null cell as its typed action, column by column (None: not for here)."""
    actions: list[Action] = []
    for name in ACTION_COLUMNS:
        for body in columns.get(name, ()):
            if body is None:
                continue
            action = parse_action({name: plain_body(body)})
            if isinstance(action, Sidecar):
                return None  # a V2 checkpoint's sidecars: read with pyarrow
            actions.append(action)
    return actions


def plain_body(body: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint row's action as its JSON action: Parquet nulls and derived fields
    dropped, maps (read as lists of pairs) back to objects."""
    out = {k: v for k, v in body.items() if v is not None and k not in DERIVED_FIELDS}
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
