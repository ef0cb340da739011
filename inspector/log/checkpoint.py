"""Reading checkpoints: classic, multi-part and V2 (with sidecars), Parquet or JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from inspector.delta.actions import (
    Action,
    AddFile,
    Metadata,
    Protocol,
    RemoveFile,
    Sidecar,
    canonical_path,
)
from inspector.delta.errors import CorruptLog, InspectorError
from inspector.delta.parse import parse_action
from inspector.delta.paths import LOG_DIR
from inspector.delta.protocol import describe_protocol
from inspector.log import arrays, columnar, text
from inspector.log.commit import parse_json_actions
from inspector.log.index import TableIndex
from inspector.log.index.checkpoints import kept_in, read_checkpoint_file
from inspector.log.listing import Checkpoint, LogFile
from inspector.log.snapshot import ReplayState
from inspector.storage import Storage

# "remove" before "add": should a checkpoint wrongly hold both for one file, the add (a
# checkpoint's definition of a live file) wins.
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
# The hint of a damaged checkpoint.
_FALLBACK = "Log replay falls back to an older checkpoint or to the commits."


def read_checkpoint_state(
    checkpoint: Checkpoint,
    storage: Storage,
    *,
    live_only: bool = False,
    statistics: bool = True,
    actions: frozenset[str] | None = None,
    index: TableIndex | None = None,
) -> ReplayState:
    """The state a checkpoint stores (unresolved), its file actions as Arrow tables; every
    part of a multi-part one, and the sidecars of a V2 one, are read.

    Only the action columns needed are read: ``actions`` if given, else with ``live_only``
    what readers act on (:data:`LIVE_STATE_ACTIONS`), and the adds' statistics unless not
    ``statistics``. ``index`` keeps the files read from an object store
    (:mod:`~inspector.log.index.checkpoints`).

    Raises:
        CorruptLog: If a part or a sidecar is missing or unreadable.
        StorageUnavailable: If the object store cannot be reached.
    """
    wanted = actions if actions is not None else LIVE_STATE_ACTIONS if live_only else None
    if wanted is None and not statistics:
        wanted = frozenset(ACTION_COLUMNS)  # a wanted set leaves the statistics out
    parts = _Parts()
    for part in checkpoint.files:
        _read_part(part, storage, wanted, parts, index)
    for sidecar in [a for a in parts.others if isinstance(a, Sidecar)]:
        _read_part(_sidecar_file(sidecar, storage), storage, wanted, parts, index)
    state = ReplayState()
    for action in parts.others:
        state.apply_other(action)
    for kind, tables in parts.files.items():
        for table in tables:
            state.add_files(table, kind)
    return state


class _Parts:
    """What the files of one checkpoint hold, gathered part by part."""

    def __init__(self) -> None:
        # applied removes first, as ACTION_COLUMNS says why
        self.files: dict[str, list[pa.Table]] = {"remove": [], "add": []}
        self.others: list[Action] = []


def _sidecar_file(sidecar: Sidecar, storage: Storage) -> LogFile:
    """A sidecar as its checkpoint describes it (the listing does not reach ``_sidecars``)."""
    path = canonical_path(sidecar.path)
    if not (os.path.isabs(path) or "://" in path):
        path = f"{LOG_DIR}/_sidecars/{path}"
    return LogFile(
        name=path.rsplit("/", 1)[-1],
        path=path,
        size=sidecar.size_in_bytes,
        modification_time=sidecar.modification_time or 0,
    )


def _read_part(
    file: LogFile,
    storage: Storage,
    wanted: frozenset[str] | None,
    parts: _Parts,
    index: TableIndex | None,
) -> None:
    with _reading(file.path):
        if file.path.endswith(".json"):
            _read_json_part(read_checkpoint_file(index, storage, file), wanted, parts)
            return
        # A local file is read in place; an object fetched whole, or its log index copy.
        source: str | pa.BufferReader | None = storage.local_path(file.path)
        if source is None or kept_in(index, storage):
            source = pa.BufferReader(read_checkpoint_file(index, storage, file))
        _read_parquet_part(pq.ParquetFile(source), wanted, parts)


def _read_json_part(data: bytes, wanted: frozenset[str] | None, parts: _Parts) -> None:
    """A JSON part is read as a commit is (:func:`~inspector.log.commit.parse_json_actions`);
    any damage makes the whole part unreadable."""
    found = parse_json_actions(data, what="checkpoint")
    if found.problems:
        raise ValueError(found.problems[0].rstrip("."))
    for kind, table, _ in found.file_tables().by_kind():
        if wanted is None or kind in wanted:
            parts.files[kind].append(table)
    parts.others += [a for a in found.actions if not isinstance(a, AddFile | RemoveFile)]


def _read_parquet_part(pf: pq.ParquetFile, wanted: frozenset[str] | None, parts: _Parts) -> None:
    """Read the wanted action columns; only non-null cells are kept (each row holds one action)."""
    columns = [
        c for c in ACTION_COLUMNS if c in pf.schema_arrow.names and (wanted is None or c in wanted)
    ]
    for batch in pf.iter_batches(columns=_leaves(pf, columns, wanted), batch_size=65536):
        for name in columns:
            column = batch.column(name)
            if column.null_count == len(column):
                continue
            if name in ("add", "remove"):
                import pyarrow.compute as pc

                present = column.filter(pc.is_valid(column))
                text.check_utf8(present)
                parts.files[name].append(columnar.from_struct(name, present))
            else:
                parts.others += [parse_action({name: _plain_body(b)}) for b in _few_rows(column)]


def _few_rows(column: pa.Array) -> list[Any]:
    """The non-null rows of a column holding few actions (``metaData``, say), found from its
    validity bitmap: importing Arrow compute would cost a tenth of a ``files --version N``."""
    validity = column.buffers()[0]
    bits = (
        np.ones(len(column), dtype=np.uint8)
        if validity is None
        else np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    )
    rows = np.flatnonzero(bits[column.offset : column.offset + len(column)])
    for row in rows:
        text.check_utf8(column.slice(int(row), 1))
    return [column[int(row)].as_py() for row in rows]


def _plain_body(body: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint row's action as its JSON action: Parquet nulls and derived fields
    dropped, maps (read as lists of pairs) back to objects."""
    out = {k: v for k, v in body.items() if v is not None and k not in columnar.DERIVED}
    for key in ("partitionValues", "tags", "configuration"):
        if isinstance(out.get(key), list):
            out[key] = dict(out[key])
    if isinstance(out.get("format"), dict) and isinstance(out["format"].get("options"), list):
        out["format"] = {**out["format"], "options": dict(out["format"]["options"])}
    return out


def _leaves(pf: pq.ParquetFile, columns: list[str], wanted: frozenset[str] | None) -> list[str]:
    """The Parquet columns to read: a live-state read (``wanted``) leaves out the adds'
    statistics, which no comparison of live files uses and which are most of their bytes."""
    if wanted is None or "add" not in columns:
        return columns
    add = pf.schema_arrow.field("add").type
    names = [add.field(i).name for i in range(add.num_fields)]
    kept = [f"add.{n}" for n in names if n != "stats" and n not in columnar.DERIVED]
    return [c for c in columns if c != "add"] + kept


@contextmanager
def _reading(path: str) -> Iterator[None]:
    """Turn any failure to read a checkpoint file into a plain-words CorruptLog."""
    name = path.rsplit("/", 1)[-1]
    try:
        yield
    except FileNotFoundError:
        raise CorruptLog(f"checkpoint file {name} is missing", _FALLBACK) from None
    except InspectorError:  # already in plain words (e.g. an unreachable store)
        raise
    except Exception as exc:  # pyarrow raises many types for corrupt files
        raise CorruptLog(f"checkpoint file {name} is unreadable ({exc})", _FALLBACK) from None


def quick_check_checkpoint(checkpoint: Checkpoint, storage: Storage) -> None:
    """A check that each part of a checkpoint is a whole file, in two tiny reads a part: a
    Parquet part starts and ends with ``PAR1``, a JSON part ends with a complete line.

    Raises:
        CorruptLog: Naming the first part that is missing or damaged.
    """
    for part in checkpoint.files:
        with _reading(part.path):
            head = storage.read_range(part.path, 0, 4)
            tail = storage.read_range(part.path, max(part.size - 64, 0), part.size).rstrip()
        kind = "JSON" if part.path.endswith(".json") else "Parquet"
        parquet = head == b"PAR1" and tail.endswith(b"PAR1")
        if not (tail.endswith(b"}") if kind == "JSON" else parquet):
            raise CorruptLog(
                f"checkpoint file {part.name} is not a complete {kind} file "
                "(it is empty, cut short or overwritten)",
                _FALLBACK,
            )


def checkpoint_disagreements(
    version: int, checkpoint: ReplayState, commits: ReplayState, commits_origin: str
) -> list[str]:
    """How a checkpoint's state differs, in plain words, from the state its commits give
    (replayed from ``commits_origin``, ``checkpoint 10 + commits 11..20`` say).

    Compares what readers act on: the live files (identity and size), the table metadata and
    the protocol; tombstones and app transactions are left out, as writers may expire them.
    """
    problems = _file_disagreements(
        version, checkpoint.resolve()[0], commits.resolve()[0], commits_origin
    )
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
    version: int, in_checkpoint: pa.Table, in_commits: pa.Table, origin: str
) -> list[str]:
    """Compare two sets of live files by identity and size, with Arrow hash look-ups."""
    import pyarrow.compute as pc

    cp_keys, co_keys = _identity(in_checkpoint), _identity(in_commits)
    at = pc.index_in(cp_keys, value_set=co_keys)  # each checkpoint file's row in the commits
    extra = _sorted_keys(in_checkpoint.filter(pc.is_null(at)))
    if extra or in_checkpoint.num_rows != in_commits.num_rows:
        missing = _sorted_keys(in_commits.filter(pc.invert(pc.is_in(co_keys, value_set=cp_keys))))
    else:
        missing = []
    found = pc.is_valid(at)
    cp_sizes = in_checkpoint.column("size").filter(found)
    co_sizes = in_commits.column("size").take(at.filter(found))
    one_null = pc.xor(pc.is_null(cp_sizes), pc.is_null(co_sizes))
    differ = pc.indices_nonzero(pc.coalesce(pc.not_equal(cp_sizes, co_sizes), one_null))
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
            f"Checkpoint {version} lists {in_checkpoint.num_rows} live files but its commits "
            f"({origin}) give {in_commits.num_rows}: {'; '.join(parts)}. Readers that start "
            "from this checkpoint see a different table than the commits describe."
        )
    if len(differ):
        pairs = (
            in_checkpoint.filter(found)
            .take(differ)
            .append_column("commit_size", co_sizes.take(differ))
        )
        first = pairs.sort_by([("key_path", "ascending"), ("dv_id", "ascending")]).slice(0, 1)
        row = first.select(["key_path", "size", "commit_size"]).to_pylist()[0]
        problems.append(
            f"Checkpoint {version} gives other sizes than its commits for "
            f"{_count([None] * len(differ))} "
            f"(e.g. {row['key_path']}: {row['size']} bytes in the checkpoint, "
            f"{row['commit_size']} in the commits)."
        )
    return problems


def _identity(table: pa.Table) -> pa.ChunkedArray:
    """One string per file identity: canonical path, NUL, deletion-vector id."""
    import pyarrow.compute as pc

    nul = arrays.repeated("\x00", table.num_rows)
    return pc.binary_join_element_wise(table.column("key_path"), table.column("dv_id"), nul)


def _sorted_keys(table: pa.Table) -> list[tuple[str, str | None]]:
    ordered = table.sort_by([("key_path", "ascending"), ("dv_id", "ascending")])
    return list(columnar.keys(ordered))


def _count(keys: list[Any]) -> str:
    return "1 file" if len(keys) == 1 else f"{len(keys)} files"


def _examples(keys: list[Any], limit: int = 3) -> str:
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


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def _protocol_view(p: Protocol | None) -> tuple[Any, ...] | None:
    if p is None:
        return None
    return (p.min_reader_version, p.min_writer_version, p.features)


def _protocol_words(p: Protocol | None) -> str:
    return "(none)" if p is None else describe_protocol(p)
