"""Which of a table's files a filter can skip, from the log alone: partitions, then statistics.

Delta's data skipping (docs/answers.md), written for Arrow tables of add (or remove)
actions: a top-level ``AND`` part naming only partition columns is evaluated exactly on
``partitionValues``; one naming only data columns is judged on the statistics (a file
lacking a value the part needs is kept); a part that mixes them, or that the log cannot
judge (:class:`~inspector.files.predicate.Unusable`), skips nothing and is named. Decimal
statistics are not compared (JSON numbers lose their precision). Partition values and
statistics use physical names under column mapping.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from inspector.delta import properties
from inspector.delta.paths import HIVE_NULL
from inspector.delta.schema import StructType
from inspector.files.predicate import (
    Compare,
    Join,
    Junction,
    Op,
    Predicate,
    Unusable,
    columns_of,
    conjuncts,
    describe,
    unusable_parts,
)

_INTS = {"byte", "short", "integer", "long"}
_FLOATS = {"float", "double"}
_TIMES = {"timestamp", "timestamp_ntz"}
#: Types whose minimum and maximum the log's statistics hold and this module compares.
MIN_MAX_TYPES = frozenset({*_INTS, *_FLOATS, *_TIMES, "date", "string"})
_PARTITION_TYPES = frozenset({*MIN_MAX_TYPES, "boolean"})
#: How a statistic's JSON value reads as Arrow, by column type (other types: as text).
_JSON_TYPES = {
    **dict.fromkeys(_INTS, pa.int64()),
    **dict.fromkeys(_FLOATS, pa.float64()),
    "boolean": pa.bool_(),
}


@dataclass(frozen=True, kw_only=True)
class Filters:
    """A filter split as Delta's scan splits it, each part as SQL-like text."""

    partition: tuple[Predicate, ...]
    data: tuple[Predicate, ...]
    unusable: tuple[Unusable, ...]


@dataclass(frozen=True, kw_only=True)
class Masks:
    """Which rows of a file table each phase keeps (Arrow booleans, no nulls)."""

    partitions: pa.Array
    stats: pa.Array


def split_filters(
    predicate: Predicate | None,
    schema: StructType,
    partition_columns: tuple[str, ...],
    configuration: Mapping[str, str],
) -> Filters:
    """Split a filter's top-level ``AND`` parts into partition, data and unusable ones.

    A data column Delta does not index by the table's current properties
    (``delta.dataSkippingNumIndexedCols``, ``delta.dataSkippingStatsColumns``) is not
    judged, as Delta does not judge it, whatever statistics older files carry.
    """
    parts = set(partition_columns)
    policy = properties.stats_columns_policy(configuration)
    indexed = {path[0] for path in policy.indexed_leaves(schema, parts)}
    partition: list[Predicate] = []
    data: list[Predicate] = []
    unusable: list[Unusable] = []
    for part in conjuncts(predicate):
        columns = columns_of(part)
        reason = _unusable_reason(part, schema, parts)
        if reason is None and columns - parts - indexed:
            reason = "Delta collects no statistics for " + ", ".join(
                sorted(columns - parts - indexed)
            )
        if reason is not None:
            unusable.append(Unusable(sql=describe(part), reason=reason))
        elif columns <= parts:
            partition.append(part)
        else:
            data.append(part)
    return Filters(partition=tuple(partition), data=tuple(data), unusable=tuple(unusable))


def _unusable_reason(part: Predicate, schema: StructType, parts: set[str]) -> str | None:
    inner = unusable_parts(part)
    if inner:
        return "; ".join(dict.fromkeys(u.reason for u in inner))
    columns = columns_of(part)
    if not columns:
        return "it names no column"
    if columns & parts and columns - parts:
        return "it mixes partition and data columns"
    for column in sorted(columns):
        field = schema.get(column)
        kind = field.type.simple_string() if field is not None else "?"
        allowed = _PARTITION_TYPES if column in parts else MIN_MAX_TYPES
        if kind not in allowed and not _only_null_tests(part):
            return f"the log does not compare {kind} values ({column})"
    return None


def _only_null_tests(part: Predicate) -> bool:
    if isinstance(part, Compare):
        return part.op in (Op.IS_NULL, Op.IS_NOT_NULL)
    if isinstance(part, Junction):
        return all(_only_null_tests(p) for p in part.parts)
    return False


def prune(files: pa.Table, schema: StructType, filters: Filters) -> Masks:
    """What partition pruning, then statistics, keep of ``files`` (add or remove actions)."""
    n = files.num_rows
    keep = pa.array([True] * n, pa.bool_())
    for part in filters.partition:
        keep = pc.and_(keep, pc.fill_null(_evaluate(part, _PartitionSide(files, schema)), False))
    after_partitions = keep
    if filters.data and n:
        side = _StatsSide(files, schema, filters.data)
        for part in filters.data:
            keep = pc.and_(keep, pc.fill_null(_evaluate(part, side), True))
    return Masks(partitions=after_partitions, stats=keep)


def _evaluate(part: Predicate, side: _PartitionSide | _StatsSide) -> pa.Array:
    if isinstance(part, Junction):
        join = pc.and_kleene if part.join is Join.AND else pc.or_kleene
        return functools.reduce(join, (_evaluate(p, side) for p in part.parts))
    assert isinstance(part, Compare)  # split_filters let nothing else through
    return side.compare(part)


class _PartitionSide:
    """Comparisons evaluated exactly on the files' typed partition values."""

    def __init__(self, files: pa.Table, schema: StructType) -> None:
        self.files, self.schema = files, schema

    def compare(self, part: Compare) -> pa.Array:
        field = self.schema.get(part.column)
        assert field is not None
        kind = field.type.simple_string()
        values = self._values(field.physical_name, kind)
        if part.op is Op.IS_NULL:
            return pc.is_null(values)
        if part.op is Op.IS_NOT_NULL:
            return pc.is_valid(values)
        literals = [_literal(v, kind) for v in part.values]
        if part.op is Op.IN:
            return pc.is_in(values, value_set=pa.array(literals, values.type))
        if part.op is Op.STARTS_WITH:
            return pc.starts_with(values, pattern=str(part.values[0]))
        return _COMPARE[part.op](values, pa.scalar(literals[0], values.type))

    def _values(self, physical: str, kind: str) -> pa.Array:
        texts = pc.map_lookup(self.files.column("partitionValues"), physical, "first")
        texts = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
        missing = pc.equal(texts, HIVE_NULL)
        if kind != "string":
            missing = pc.or_(missing, pc.equal(texts, ""))
        texts = pc.if_else(pc.fill_null(missing, False), pa.scalar(None, pa.string()), texts)
        return _typed(texts, kind)


class _StatsSide:
    """Comparisons judged on each file's statistics: may the file hold a matching row?"""

    def __init__(self, files: pa.Table, schema: StructType, data: tuple[Predicate, ...]) -> None:
        columns = sorted({c for p in data for c in columns_of(p)})
        self.fields = {c: f for c in columns if (f := schema.get(c)) is not None}
        self.stats = _parse_stats(files.column("stats"), self.fields)
        self.size = files.num_rows

    def _stat(self, group: str, column: str) -> pa.Array:
        assert self.stats is not None  # compare() keeps every file when there are none
        field = self.fields[column]
        raw = self.stats.field(group).field(field.physical_name)
        kind = field.type.simple_string()
        if group == "nullCount" or kind not in MIN_MAX_TYPES:
            return raw
        typed = _typed(raw, kind)
        if group == "maxValues" and kind in _TIMES:  # kept to the millisecond
            typed = pc.add(typed, pa.scalar(timedelta(milliseconds=1)))
        return typed

    def compare(self, part: Compare) -> pa.Array:
        if self.stats is None:  # statistics that do not parse: keep every file
            return pa.nulls(self.size, pa.bool_())
        if part.op in (Op.IS_NULL, Op.IS_NOT_NULL):
            nulls = self._stat("nullCount", part.column)
            if part.op is Op.IS_NULL:
                return pc.greater(nulls, 0)
            return pc.less(nulls, self.stats.field("numRecords"))
        kind = self.fields[part.column].type.simple_string()
        low, high = self._stat("minValues", part.column), self._stat("maxValues", part.column)
        literals = [pa.scalar(_literal(v, kind), low.type) for v in part.values]
        return _judge(part, low, high, literals)


def _judge(part: Compare, low: pa.Array, high: pa.Array, literals: list[pa.Scalar]) -> pa.Array:
    """May a file with these bounds hold a row where ``column op literals`` holds?"""
    op = part.op
    if op is Op.IN:
        return pc.and_kleene(
            pc.less_equal(low, max(literals, key=lambda s: s.as_py())),
            pc.greater_equal(high, min(literals, key=lambda s: s.as_py())),
        )
    if op is Op.STARTS_WITH:
        prefix = str(part.values[0])
        size = len(prefix)
        return pc.and_kleene(
            pc.less_equal(pc.utf8_slice_codeunits(low, 0, size), prefix),
            pc.greater_equal(pc.utf8_slice_codeunits(high, 0, size), prefix),
        )
    value = literals[0]
    if op is Op.EQ:
        return pc.and_kleene(pc.less_equal(low, value), pc.greater_equal(high, value))
    if op is Op.NE:
        return pc.invert(pc.and_kleene(pc.equal(low, value), pc.equal(high, value)))
    if op in (Op.LT, Op.LE):
        return _COMPARE[op](low, value)
    return _COMPARE[op](high, value)


_COMPARE = {
    Op.EQ: pc.equal,
    Op.NE: pc.not_equal,
    Op.LT: pc.less,
    Op.LE: pc.less_equal,
    Op.GT: pc.greater,
    Op.GE: pc.greater_equal,
}


def _parse_stats(stats: pa.ChunkedArray, fields: dict[str, Any]) -> pa.StructArray | None:
    """Each file's statistics (the JSON text of ``stats``, ``{}`` for none) as one Arrow
    struct array; None when a statistic is not of its column's type (every file is kept)."""
    bounds = pa.struct(
        [
            pa.field(f.physical_name, _JSON_TYPES.get(f.type.simple_string(), pa.string()))
            for f in fields.values()
        ]
    )
    nulls = pa.struct([pa.field(f.physical_name, pa.int64()) for f in fields.values()])
    groups = [("minValues", bounds), ("maxValues", bounds), ("nullCount", nulls)]
    schema = pa.schema([pa.field("numRecords", pa.int64()), *groups])
    lines = pc.fill_null(stats.combine_chunks() if len(stats) else pa.array([], pa.string()), "{}")
    if not len(lines):
        return None
    text = pc.binary_join(pa.array([lines], pa.list_(pa.string())), "\n")[0].as_py()
    try:
        table = pj.read_json(
            io.BytesIO(text.encode()),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            ),
        )
    except pa.ArrowInvalid:
        return None
    if table.num_rows != len(lines):
        return None
    return pa.StructArray.from_arrays(
        [table.column(n).combine_chunks() for n in schema.names], names=schema.names
    )


def _typed(texts: pa.Array, kind: str) -> pa.Array:
    """Strings (a partition value, a statistic) as the column's Arrow type."""
    if kind in _INTS or kind in _FLOATS:
        return texts.cast(_JSON_TYPES[kind])
    if kind == "boolean":
        return pc.equal(pc.utf8_lower(texts.cast(pa.string())), "true")
    if kind == "date":
        return pc.utf8_slice_codeunits(texts, 0, 10).cast(pa.date32())
    if kind == "timestamp":
        try:
            return texts.cast(pa.timestamp("us", "UTC"))
        except pa.ArrowInvalid:  # no zone: the spec's partition form, in UTC
            return texts.cast(pa.timestamp("us")).cast(pa.timestamp("us", "UTC"))
    if kind == "timestamp_ntz":
        return pc.replace_substring(texts, "Z", "").cast(pa.timestamp("us"))
    return texts.cast(pa.string())


def _literal(value: Any, kind: str) -> Any:
    """A literal from Spark's condition as the Arrow value of the column's type."""
    if kind == "timestamp" and isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value
