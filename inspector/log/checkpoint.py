"""Reading checkpoints: classic, multi-part and V2 (with sidecars), Parquet or JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from inspector.delta.actions import (
    Action,
    Metadata,
    Protocol,
    Sidecar,
    canonical_path,
)
from inspector.delta.errors import CorruptLog, InspectorError
from inspector.delta.parse import parse_action
from inspector.delta.paths import LOG_DIR
from inspector.log.listing import Checkpoint
from inspector.log.snapshot import ReplayState
from inspector.storage import Storage

# Read column by column; "remove" before "add" so that, should a checkpoint wrongly hold
# both for one file, the add (a checkpoint's definition of a live file) wins.
_ACTION_COLUMNS = (
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
_DERIVED_FIELDS = ("stats_parsed", "partitionValues_parsed")


def read_checkpoint(
    checkpoint: Checkpoint, storage: Storage, *, actions: frozenset[str] | None = None
) -> list[Action]:
    """All actions stored in a checkpoint, including those in its sidecar files.

    Args:
        checkpoint: The checkpoint to read (every part of a multi-part one).
        storage: The table's storage (sidecars live in ``_delta_log/_sidecars``).
        actions: Read only these kinds of action (e.g. :data:`LIVE_STATE_ACTIONS`);
            all when None. Include ``sidecar`` to follow a V2 checkpoint's sidecars.

    Returns:
        The actions, kind by kind (tombstones before adds), part by part.

    Raises:
        CorruptLog: If a part or a sidecar is missing or unreadable.
        StorageUnavailable: If the object store cannot be reached.
    """
    found: list[Action] = []
    for part in checkpoint.files:
        found.extend(_read_file(part.path, storage, actions))
    sidecars = [a for a in found if isinstance(a, Sidecar)]
    for sidecar in sidecars:
        found.extend(_read_file(_sidecar_path(sidecar), storage, actions))
    return found


def _sidecar_path(sidecar: Sidecar) -> str:
    path = canonical_path(sidecar.path)
    if os.path.isabs(path) or "://" in path:
        return path
    return f"{LOG_DIR}/_sidecars/{path}"


def _read_file(path: str, storage: Storage, wanted: frozenset[str] | None = None) -> list[Action]:
    with _reading(path):
        if path.endswith(".json"):
            data = storage.read(path)
            rows = [json.loads(line) for line in data.splitlines() if line.strip()]
            if wanted is not None:
                rows = [row for row in rows if isinstance(row, dict) and row.keys() & wanted]
        else:
            rows = list(_parquet_rows(path, storage, wanted))
        return [parse_action(row) for row in rows]


@contextmanager
def _reading(path: str) -> Iterator[None]:
    """Turn any failure to read a checkpoint file into a plain-words CorruptLog."""
    name = path.rsplit("/", 1)[-1]
    try:
        yield
    except FileNotFoundError:
        raise CorruptLog(
            f"checkpoint file {name} is missing",
            "Log replay falls back to an older checkpoint or to the commits.",
        ) from None
    except InspectorError:  # already in plain words (e.g. an unreachable store)
        raise
    except Exception as exc:  # pyarrow raises many types for corrupt files
        raise CorruptLog(
            f"checkpoint file {name} is unreadable ({exc})",
            "Log replay falls back to an older checkpoint or to the commits.",
        ) from None


def quick_check_checkpoint(checkpoint: Checkpoint, storage: Storage) -> None:
    """A cheap check that each part of a checkpoint is a whole file, without reading it.

    A Parquet part must start and end with the ``PAR1`` magic (an empty, cut-short
    or overwritten file does not); a JSON part must end with a complete line. This
    costs two tiny reads per file, so it can run on every checkpoint of a big table.

    Args:
        checkpoint: The checkpoint to check.
        storage: The table's storage.

    Raises:
        CorruptLog: Naming the first part that is missing or damaged.
    """
    for part in checkpoint.files:
        with _reading(part.path):
            head = storage.read_range(part.path, 0, 4)
            tail = storage.read_range(part.path, max(part.size - 64, 0), part.size).rstrip()
        if part.path.endswith(".json"):
            whole = tail.endswith(b"}")
        else:
            whole = head == b"PAR1" and tail.endswith(b"PAR1")
        if not whole:
            raise CorruptLog(
                f"checkpoint file {part.name} is not a complete "
                f"{'JSON' if part.path.endswith('.json') else 'Parquet'} file "
                "(it is empty, cut short or overwritten)",
                "Log replay falls back to an older checkpoint or to the commits.",
            )


def _parquet_rows(
    path: str, storage: Storage, wanted: frozenset[str] | None = None
) -> Iterable[dict[str, Any]]:
    """Yield ``{action_name: body}`` for each non-null action in a checkpoint Parquet file.

    Each row holds one action, so the file is read column by column and only the
    non-null cells are converted to Python (much faster than row by row). A local
    file is read in place; an object is fetched whole and read from memory.
    """
    local = storage.local_path(path)
    pf = pq.ParquetFile(local if local is not None else pa.BufferReader(storage.read(path)))
    columns = [
        c for c in _ACTION_COLUMNS if c in pf.schema_arrow.names and (wanted is None or c in wanted)
    ]
    for batch in pf.iter_batches(columns=columns, batch_size=8192):
        for name in columns:
            column = batch.column(name)
            if column.null_count == len(column):
                continue
            for body in column.filter(pc.is_valid(column)).to_pylist():
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


def checkpoint_disagreements(
    version: int, checkpoint: ReplayState, commits: ReplayState, commits_origin: str
) -> list[str]:
    """How a checkpoint's state differs from the state its commits give.

    Compares what readers act on: the live files (path + deletion vector, and
    their sizes), the table metadata and the protocol. Tombstones and app
    transactions are left out: writers may legitimately expire them.

    Args:
        version: The checkpoint's version.
        checkpoint: The state read from the checkpoint.
        commits: The state replayed from an independent base up to ``version``.
        commits_origin: Where that replay started, e.g. ``checkpoint 10 + commits 11..20``.

    Returns:
        Plain-language problems; empty when the two agree.
    """
    problems = _file_disagreements(version, checkpoint.files, commits.files, commits_origin)
    fields = _metadata_fields(checkpoint.metadata, commits.metadata)
    if fields:
        problems.append(
            f"Checkpoint {version} has different table metadata ({', '.join(fields)}) "
            f"than its commits ({commits_origin})."
        )
    if _protocol_view(checkpoint.protocol) != _protocol_view(commits.protocol):
        problems.append(
            f"Checkpoint {version} has protocol {_protocol_words(checkpoint.protocol)} "
            f"but its commits ({commits_origin}) give {_protocol_words(commits.protocol)}."
        )
    return problems


def _file_disagreements(
    version: int, in_checkpoint: dict, in_commits: dict, origin: str
) -> list[str]:
    missing = sorted(set(in_commits) - set(in_checkpoint))
    extra = sorted(set(in_checkpoint) - set(in_commits))
    resized = sorted(
        k
        for k in set(in_commits) & set(in_checkpoint)
        if in_commits[k].size != in_checkpoint[k].size
    )
    problems = []
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{_count(missing)} missing from the checkpoint ({_examples(missing)})")
        if extra:
            parts.append(
                f"{_count(extra)} in the checkpoint but not live in the commits ({_examples(extra)})"
            )
        problems.append(
            f"Checkpoint {version} lists {len(in_checkpoint)} live files but its commits "
            f"({origin}) give {len(in_commits)}: {'; '.join(parts)}. Readers that start "
            "from this checkpoint see a different table than the commits describe."
        )
    if resized:
        key = resized[0]
        problems.append(
            f"Checkpoint {version} gives other sizes than its commits for {_count(resized)} "
            f"(e.g. {key[0]}: {in_checkpoint[key].size} bytes in the checkpoint, "
            f"{in_commits[key].size} in the commits)."
        )
    return problems


def _count(keys: list) -> str:
    return "1 file" if len(keys) == 1 else f"{len(keys)} files"


def _examples(keys: list, limit: int = 3) -> str:
    names = [path + (" with a deletion vector" if dv else "") for path, dv in keys[:limit]]
    more = f" and {len(keys) - limit} more" if len(keys) > limit else ""
    return ", ".join(names) + more


def _metadata_fields(a: Metadata | None, b: Metadata | None) -> list[str]:
    if a is None or b is None:
        return [] if a is b else ["metaData"]
    fields = {
        "id": (a.id, b.id),
        "schema": (_json_or_text(a.schema_string), _json_or_text(b.schema_string)),
        "partitionColumns": (a.partition_columns, b.partition_columns),
        "configuration": (dict(a.configuration), dict(b.configuration)),
    }
    return [name for name, (x, y) in fields.items() if x != y]


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _protocol_view(p: Protocol | None) -> tuple | None:
    if p is None:
        return None
    return (p.min_reader_version, p.min_writer_version, p.features)


def _protocol_words(p: Protocol | None) -> str:
    if p is None:
        return "(none)"
    features = f" with features {', '.join(p.features)}" if p.features else ""
    return f"{p.min_reader_version}/{p.min_writer_version}{features}"
