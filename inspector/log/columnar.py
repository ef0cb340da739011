"""File actions as Arrow tables: the bulk representation of adds and removes.

One fixed set of columns (the Delta names of ``add``/``remove`` fields), fields this tool
does not model kept as JSON text in ``extra`` (a RESTORE re-emits them), and the replay
identity: ``key_path`` (the canonical path) and ``dv_id`` (the deletion vector's unique id,
``""`` for none, so that joins on the identity need no null handling).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from inspector.delta.actions import AddFile, RemoveFile, canonical_path, num_records_of
from inspector.delta.fields import EPOCH_MS_MAX, EPOCH_MS_MIN
from inspector.delta.parse import parse_action
from inspector.log import arrays as arrays_

_STR_MAP = pa.map_(pa.string(), pa.string())
DV_TYPE = pa.struct(
    [
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int64()),
        ("sizeInBytes", pa.int64()),
        ("cardinality", pa.int64()),
    ]
)
# The fields a remove carries over from the add it removes (stats, tags, the deletion
# vector, row tracking), last in both schemas.
_CARRIED_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("stats", pa.string()),
    ("tags", _STR_MAP),
    ("deletionVector", DV_TYPE),
    ("baseRowId", pa.int64()),
    ("defaultRowCommitVersion", pa.int64()),
)
#: The Delta fields of ``add`` and ``remove`` actions that are columns, by kind.
FIELDS: dict[str, tuple[tuple[str, pa.DataType], ...]] = {
    "add": (
        ("path", pa.string()),
        ("partitionValues", _STR_MAP),
        ("size", pa.int64()),
        ("modificationTime", pa.int64()),
        ("dataChange", pa.bool_()),
        *_CARRIED_FIELDS,
    ),
    "remove": (
        ("path", pa.string()),
        ("deletionTimestamp", pa.int64()),
        ("dataChange", pa.bool_()),
        ("extendedFileMetadata", pa.bool_()),
        ("partitionValues", _STR_MAP),
        ("size", pa.int64()),
        *_CARRIED_FIELDS,
    ),
}
_KEY_FIELDS = (("extra", pa.string()), ("key_path", pa.string()), ("dv_id", pa.string()))
_SCHEMAS = {kind: pa.schema([*fields, *_KEY_FIELDS]) for kind, fields in FIELDS.items()}
# Parsed copies of JSON fields that some writers add to checkpoints; the JSON is canonical.
DERIVED = frozenset({"stats_parsed", "partitionValues_parsed"})


def schema_of(kind: str) -> pa.Schema:
    """The table schema of ``add`` or ``remove`` actions."""
    return _SCHEMAS[kind]


@cache  # tables are immutable; a commit of adds alone needs an empty one of removes
def empty(kind: str) -> pa.Table:
    """An empty table of ``add`` or ``remove`` actions."""
    schema = schema_of(kind)
    return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)


# --- from typed records (small commits) ------------------------------------------------


def from_records(kind: str, records: Sequence[AddFile | RemoveFile]) -> pa.Table:
    """A table of file actions from typed records (a small commit's, already parsed)."""
    if not records:
        return empty(kind)
    known = {name for name, _ in FIELDS[kind]} | DERIVED
    extra = []
    for record in records:
        rest = {k: v for k, v in record.raw.items() if k not in known}
        extra.append(json.dumps(rest) if rest else None)
    columns = [
        _build([_record_value(r, name) for r in records], type) for name, type in FIELDS[kind]
    ]
    return _keyed(kind, [*columns, arrays_.texts(extra)])


def _build(values: list[Any], type: pa.DataType) -> pa.Array:
    import pyarrow.compute as pc

    if type == pa.string():
        return arrays_.texts(values)
    if type == pa.bool_():
        return arrays_.flags(values)
    if pa.types.is_map(type):
        return arrays_.text_maps(values)
    if pa.types.is_struct(type):  # the deletion vector
        valid = [v is not None for v in values]
        children = [
            _build([None if v is None else v[f.name] for v in values], f.type) for f in type
        ]
        mask = pc.invert(arrays_.flags(valid))
        return pa.StructArray.from_arrays(children, fields=list(type), mask=mask)
    return arrays_.numbers(values, type)


def _record_value(record: AddFile | RemoveFile, name: str) -> Any:
    if name == "deletionVector":
        dv = record.deletion_vector
        return None if dv is None else dv.to_json()
    if name in ("partitionValues", "tags"):
        value = record.partition_values if name == "partitionValues" else record.tags
        return None if value is None else list(value.items())
    if name in _TYPED:  # already checked by parse_action; a long out of range is null
        return getattr(record, _TYPED[name], None)
    value = record.raw.get(name)
    if name in ("dataChange", "extendedFileMetadata"):
        return None if value is None else bool(value)
    return value if isinstance(value, str) else None


# Record attributes parse_action has already validated, by Delta field name.
_TYPED = {
    "size": "size",
    "modificationTime": "modification_time",
    "deletionTimestamp": "deletion_timestamp",
    "baseRowId": "base_row_id",
    "defaultRowCommitVersion": "default_row_commit_version",
}


# --- from Arrow struct columns (checkpoints, big commits) --------------------------------


def from_struct(kind: str, column: pa.ChunkedArray | pa.Array) -> pa.Table:
    """A column of ``add`` or ``remove`` structs (non-null rows only) as a table."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    fields = FIELDS[kind]
    present = [array.type.field(i).name for i in range(array.type.num_fields)]
    arrays = [
        _conform(array.field(name), type) if name in present else pa.nulls(len(array), type)
        for name, type in fields
    ]
    if "stats" not in present and "stats_parsed" in present:
        arrays[[n for n, _ in fields].index("stats")] = _stats_text(array.field("stats_parsed"))
    known = {name for name, _ in fields} | DERIVED
    unknown = [name for name in present if name not in known]
    arrays.append(_extra_json(array, unknown))
    table = _keyed(kind, arrays)
    _validate(kind, table)
    return table


def _keyed(kind: str, arrays: list[pa.Array]) -> pa.Table:
    """The table of the field columns and ``extra``, with the replay identity added."""
    dv = arrays[[name for name, _ in FIELDS[kind]].index("deletionVector")]
    return pa.Table.from_arrays(
        [*arrays, canonical_paths(arrays[0]), dv_ids(dv)], schema=schema_of(kind)
    )


def _validate(kind: str, table: pa.Table) -> None:
    """Raise ValueError naming what :func:`parse_action` would refuse, checked column-wise."""
    import pyarrow.compute as pc

    if table.column("path").null_count:
        raise ValueError(f"a '{kind}' action has no path")
    dv = table.column("deletionVector").combine_chunks()
    if dv.null_count < len(dv):
        present = dv.filter(dv.is_valid())
        if present.field("storageType").null_count or present.field("pathOrInlineDv").null_count:
            raise ValueError(f"a '{kind}' action has an incomplete deletion vector")
    if kind != "add":
        return
    if table.column("size").null_count:
        raise ValueError("an 'add' action has no size")
    times = pc.min_max(table.column("modificationTime")).as_py()
    low, high = times["min"], times["max"]
    if (low is not None and low < EPOCH_MS_MIN) or (high is not None and high > EPOCH_MS_MAX):
        raise ValueError("an 'add' action's modificationTime is not a time in years 1 to 9999")


def _conform(child: pa.Array, type: pa.DataType) -> pa.Array:
    if child.type == type:
        return child
    if pa.types.is_map(type) and pa.types.is_struct(child.type):
        return struct_to_map(child)
    if pa.types.is_struct(type) and pa.types.is_struct(child.type):
        names = {child.type.field(i).name for i in range(child.type.num_fields)}
        parts = [
            child.field(f.name).cast(f.type) if f.name in names else pa.nulls(len(child), f.type)
            for f in type
        ]
        return pa.StructArray.from_arrays(parts, fields=list(type), mask=child.is_null())
    return child.cast(type)


def struct_to_map(child: pa.StructArray) -> pa.MapArray:
    """A JSON object read as a struct (keys as fields) back to a ``map<string,string>``."""
    names = [child.type.field(i).name for i in range(child.type.num_fields)]
    n, k = len(child), len(names)
    offsets = arrays_.from_numpy(np.arange(0, (n + 1) * k, k) if k else np.zeros(n + 1), pa.int32())
    if k == 0:
        keys, values = pa.nulls(0, pa.string()), pa.nulls(0, pa.string())
    else:
        keys = arrays_.texts(names).take(arrays_.from_numpy(np.tile(np.arange(k), n)))
        columns = [child.field(i).cast(pa.string()) for i in range(k)]
        order = np.arange(n * k).reshape(k, n).T.reshape(-1)  # row-major interleave
        values = pa.concat_arrays(columns).take(arrays_.from_numpy(order))
    return pa.MapArray.from_arrays(offsets, keys, values, mask=child.is_null())


def _stats_text(parsed: pa.Array) -> pa.Array:
    rows = parsed.to_pylist()
    return arrays_.texts([None if r is None else json.dumps(r, default=str) for r in rows])


def _extra_json(array: pa.StructArray, unknown: list[str]) -> pa.Array:
    if not unknown:
        return pa.nulls(len(array), pa.string())
    parts = {name: array.field(name).to_pylist() for name in unknown}
    out = []
    for i in range(len(array)):
        rest = {name: values[i] for name, values in parts.items() if values[i] is not None}
        out.append(json.dumps(_plain(rest), default=str) if rest else None)
    return arrays_.texts(out)


def _plain(value: Any) -> Any:
    """Parquet maps read as lists of pairs; give them back as JSON objects."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        return {k: _plain(v) for k, v in value}
    return value


def canonical_paths(paths: pa.Array) -> pa.Array:
    """Canonical paths (URL-decoded, ``file:`` dropped); Python only for rows that need it."""
    import pyarrow.compute as pc

    needs = pc.or_(pc.match_substring(paths, "%"), pc.starts_with(paths, "file:"))
    if not pc.any(needs).as_py():
        return paths
    values = paths.to_pylist()
    for i in pc.indices_nonzero(needs).to_pylist():
        values[i] = canonical_path(values[i])
    return arrays_.texts(values)


def dv_ids(dv: pa.StructArray) -> pa.Array:
    """The deletion vectors' unique ids; ``""`` for none."""
    import pyarrow.compute as pc

    n = len(dv)
    blank = arrays_.repeated("", n)
    if dv.null_count == n:
        return blank
    offset = dv.field("offset").cast(pa.string())
    at = pc.coalesce(pc.binary_join_element_wise(arrays_.repeated("@", n), offset, blank), blank)
    ids = pc.binary_join_element_wise(
        dv.field("storageType"), dv.field("pathOrInlineDv"), at, blank
    )
    ids = pc.if_else(dv.is_valid(), ids, blank)
    return pc.coalesce(ids, blank)


# --- back to typed records ---------------------------------------------------------------


def records(kind: str, table: pa.Table) -> Iterator[AddFile | RemoveFile]:
    """Typed records of the rows, in order, built batch by batch."""
    names = [name for name, _ in FIELDS[kind]]
    for batch in table.select([*names, "extra"]).to_batches(max_chunksize=8192):
        for row in batch.to_pylist():
            yield _record(kind, row, names)


def _record(kind: str, row: dict[str, Any], names: list[str]) -> AddFile | RemoveFile:
    body: dict[str, Any] = {}
    for name in names:
        value = row[name]
        if value is None:
            if name == "partitionValues" and kind == "add":
                body[name] = {}
            continue
        if name in ("partitionValues", "tags"):
            value = dict(value)
        elif name == "deletionVector":
            value = {k: v for k, v in value.items() if v is not None}
        body[name] = value
    if row["extra"]:
        body.update(json.loads(row["extra"]))
    action = parse_action({kind: body})
    assert isinstance(action, AddFile | RemoveFile)
    return action


def keys(table: pa.Table) -> Iterator[tuple[str, str | None]]:
    """The replay identities (path, deletion-vector id or None) of the rows, in order."""
    for path, dv in zip(
        table.column("key_path").to_pylist(), table.column("dv_id").to_pylist(), strict=True
    ):
        yield path, dv or None


def num_records(stats: pa.ChunkedArray | pa.Array) -> pa.Array:
    """``numRecords`` of each row's stats (null where absent or unreadable); writers put it
    first, so other rows are few and parsed one by one."""
    import pyarrow.compute as pc

    if isinstance(stats, pa.ChunkedArray):
        stats = stats.combine_chunks()
    found = pc.extract_regex(stats, r'^\{\s*"numRecords"\s*:\s*(?P<n>\d+)\s*[,}]')
    counts = pc.struct_field(found, [0]).cast(pa.int64())
    odd = pc.and_(pc.is_valid(stats), pc.is_null(counts))
    if not pc.any(odd).as_py():
        return counts
    values = counts.to_pylist()
    texts = stats.to_pylist()
    for i in pc.indices_nonzero(odd).to_pylist():
        values[i] = num_records_of(texts[i])  # as AddFile.num_records reads it
    return arrays_.numbers(values)
