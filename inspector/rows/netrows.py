"""The net rows of two sides of a row diff, and one page of each kind in one Spark job.

Rows are grouped with their net multiplicity (``to`` count minus ``from`` count), so rows
rewritten unchanged cancel. Maps (which Spark cannot group) travel as sorted entry arrays;
a column typed differently on the two sides is compared as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

SIDE = "__delta_inspector_side"  # +1 for a row of "to", -1 for a row of "from"
COUNT = "__delta_inspector_count"  # net multiplicity of a row: > 0 added, < 0 removed
STATUS, _RANK = "__delta_inspector_status", "__delta_inspector_rank"
_TOTALS = "__delta_inspector_totals"  # the status of the counts row in a collected union
ADDED, REMOVED = "__delta_inspector_added", "__delta_inspector_removed"


def col(name: str) -> Column:
    """A column by name, quoted (any name is safe)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def net_rows(before: DataFrame, after: DataFrame) -> tuple[DataFrame, set[str]]:
    """Each distinct row with its net multiplicity (``to`` count minus ``from`` count),
    non-zero only; and the names of the map columns (see :func:`shown_row`)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    fields = [*before.schema.fields, *after.schema.fields]
    maps = {f.name for f in fields if isinstance(f.dataType, MapType)}
    before, after = _comparable(before), _comparable(after)
    # Compared as text where one side has a string (Spark would widen string vs number to a
    # number, and fail on any text that is not one).
    text = _differing(before, after, string_only=True)
    before, after = _as_text(before, text), _as_text(after, text)
    union = _union(after.withColumn(SIDE, F.lit(1)), before.withColumn(SIDE, F.lit(-1)))
    columns = [c for c in union.columns if c != SIDE]
    net = union.groupBy(*[col(c) for c in columns]).agg(F.sum(SIDE).alias(COUNT))
    return net.where(F.col(COUNT) != 0), maps


def _comparable(df: DataFrame) -> DataFrame:
    """Maps cannot be grouped or compared: turn top-level maps into sorted entry arrays."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    return df.select(
        *[
            F.array_sort(F.map_entries(col(f.name))).alias(f.name)
            if isinstance(f.dataType, MapType)
            else col(f.name)
            for f in df.schema.fields
        ]
    )


def _differing(before: DataFrame, after: DataFrame, *, string_only: bool) -> list[str]:
    """Columns both sides have with different types (``string_only``: one of them a string)."""
    from pyspark.sql.types import StringType

    theirs = {f.name: f.dataType for f in after.schema.fields}
    return [
        f.name
        for f in before.schema.fields
        if f.name in theirs
        and f.dataType != theirs[f.name]
        and (not string_only or StringType() in (f.dataType, theirs[f.name]))
    ]


def _as_text(df: DataFrame, names: Sequence[str]) -> DataFrame:
    return df.select(
        *[col(c).cast("string").alias(c) if c in names else col(c) for c in df.columns]
    )


def _union(after: DataFrame, before: DataFrame) -> DataFrame:
    """Union by name: a column missing on one side is null there; differing types are widened.

    Types Spark cannot widen (e.g. a struct that gained a field vs a number) are compared as text.
    """
    from pyspark.errors import AnalysisException

    try:
        return after.unionByName(before, allowMissingColumns=True)
    except AnalysisException:
        differ = _differing(before, after, string_only=False)
        return _as_text(after, differ).unionByName(
            _as_text(before, differ), allowMissingColumns=True
        )


def expand(df: DataFrame) -> DataFrame:
    """One output row per occurrence: a row added twice is listed twice."""
    from pyspark.sql import functions as F

    repeated = F.explode(F.array_repeat(F.lit(0), F.abs(F.col(COUNT)).cast("int")))
    return df.withColumn(SIDE, repeated).select(*[col(c) for c in df.columns if c != COUNT])


def collect_pages(
    totals: DataFrame,
    frames: dict[str, DataFrame],
    order: Sequence[str],
    offset: int,
    limit: int,
) -> tuple[dict[str, int], dict[str, list[dict[str, Any]]]]:
    """The one-row ``totals`` and the same page of each frame, in ONE Spark job (each job
    costs a fixed overhead; within one query Spark reuses the change set's shuffle).

    Returns:
        (totals as a dict, {frame name: page rows as dicts ordered by ``order``}).
    """
    from functools import reduce

    from pyspark.sql import Window
    from pyspark.sql import functions as F

    branches = [totals.withColumn(STATUS, F.lit(_TOTALS)).withColumn(_RANK, F.lit(0))]
    for status, df in frames.items() if limit else ():
        by = [col(c) for c in _orderable(df, order)] or [F.lit(0)]
        page = df.orderBy(*by).offset(offset).limit(limit)
        # A union does not keep order, so each page row carries its rank (pages are small).
        branches.append(
            page.withColumn(_RANK, F.row_number().over(Window.orderBy(*by))).withColumn(
                STATUS, F.lit(status)
            )
        )
    union = reduce(lambda x, y: x.unionByName(y, allowMissingColumns=True), branches)
    pages: dict[str, list[dict[str, Any]]] = {status: [] for status in frames}
    found: dict[str, int] = {}
    # Through Arrow, as the preview reads rows: instants come back aware (UTC) and
    # timestamp_ntz naive, so both outputs format them alike (collect() gives local time).
    for values in sorted(union.toArrow().to_pylist(), key=lambda r: r[_RANK]):
        status = values[STATUS]
        if status == _TOTALS:
            found = {c: int(values[c] or 0) for c in totals.columns}
        else:
            pages[status].append({c: values[c] for c in frames[status].columns})
    return found, pages


def _orderable(df: DataFrame, wanted: Sequence[str]) -> list[str]:
    from pyspark.sql.types import MapType, VariantType

    bad = {f.name for f in df.schema.fields if isinstance(f.dataType, (MapType, VariantType))}
    return [c for c in (wanted or df.columns) if c not in bad]


def shown_value(value: Any, is_map: bool) -> Any:
    """A collected value for people: a map column's sorted entries back as a map."""
    if is_map and value is not None:  # back from sorted entries to a map, for people
        return {e["key"]: e["value"] for e in value}
    return value


def shown_row(values: dict[str, Any], maps: set[str]) -> dict[str, Any]:
    """A collected row for people (see :func:`shown_value`); ``maps`` names the map columns."""
    return {name: shown_value(value, name in maps) for name, value in values.items()}
