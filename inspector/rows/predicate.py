"""A user's filter parsed by Spark SQL (the one grammar) and read back for the log.

Spark parses, resolves and optimizes the filter over Delta's read of the version; the
optimized condition is walked into :mod:`inspector.files.predicate`'s records for the
log-side pruning. A node the log cannot judge keeps Spark's SQL.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from inspector.delta.errors import InvalidInput
from inspector.files.predicate import (
    FLIPPED,
    Compare,
    Join,
    Junction,
    Negated,
    Op,
    Predicate,
    Unusable,
)
from inspector.files.pruning import Filters, split_filters

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from inspector.log.snapshot import Snapshot

_COMPARISONS = {
    "EqualTo": Op.EQ,
    "EqualNullSafe": Op.EQ,
    "LessThan": Op.LT,
    "LessThanOrEqual": Op.LE,
    "GreaterThan": Op.GT,
    "GreaterThanOrEqual": Op.GE,
}
_EPOCH = datetime(1970, 1, 1)


def filtered(df: DataFrame, where: str | None) -> DataFrame:
    """The rows of ``df`` that pass a SQL WHERE expression (none: all of them).

    Raises:
        InvalidInput: The filter does not parse, or names a column the version lacks.
    """
    if where is None or not where.strip():
        return df
    from pyspark.errors import AnalysisException, ParseException

    try:
        out = df.where(where)
        out.schema  # noqa: B018  (resolves the plan: unknown columns fail here)
        return out
    except (ParseException, AnalysisException) as exc:
        first = (str(exc).strip().splitlines() or [""])[0].split(" SQLSTATE")[0].rstrip(". ")
        raise InvalidInput(
            f"The filter `{where.strip()}` is not valid SQL for this table: {first}.",
            "Write a SQL WHERE expression over the version's columns, e.g. id = 42 AND "
            "region = 'eu'.",
        ) from None


def log_filters(df: DataFrame, snapshot: Snapshot) -> Filters:
    """The filter of ``df`` (a filtered read of ``snapshot``) split as Delta's scan splits it."""
    return split_filters(
        condition_of(df),
        snapshot.schema,
        snapshot.partition_columns,
        snapshot.metadata.configuration,
    )


def condition_of(df: DataFrame) -> Predicate | None:
    """The optimized filter of ``df`` as predicate records (None: it always holds)."""
    plan = df._jdf.queryExecution().optimizedPlan()
    node = _find_filter(plan)
    if node is None:
        if plan.getClass().getSimpleName() == "LocalRelation":  # always false: no file
            return Unusable(sql="false", reason="Spark found that no row can match")
        return None
    return _convert(node.condition())


def _find_filter(plan: Any) -> Any:
    while plan is not None:
        if plan.getClass().getSimpleName() == "Filter":
            return plan
        children = plan.children()
        plan = children.apply(0) if children.size() == 1 else None
    return None


def _children(node: Any) -> list[Any]:
    children = node.children()
    return [children.apply(i) for i in range(children.size())]


def _convert(node: Any) -> Predicate:
    kind = node.getClass().getSimpleName()
    sql = str(node.sql())
    if kind in ("And", "Or"):
        parts = tuple(_convert(c) for c in _children(node))
        return Junction(join=Join(kind.upper()), parts=parts, sql=sql)
    if kind == "Not":
        return Negated(part=_convert(_children(node)[0]), sql=sql)
    if kind in _COMPARISONS:
        return _comparison(node, _COMPARISONS[kind], sql)
    if kind in ("IsNull", "IsNotNull"):
        column = _column(_children(node)[0])
        if column is None:
            return Unusable(sql=sql, reason="it tests an expression, not a column")
        op = Op.IS_NULL if kind == "IsNull" else Op.IS_NOT_NULL
        return Compare(column=column, op=op, sql=sql)
    if kind in ("In", "InSet", "StartsWith"):
        return _membership(node, kind, sql)
    return Unusable(sql=sql, reason=f"the log cannot judge {kind}")


def _comparison(node: Any, op: Op, sql: str) -> Predicate:
    left, right = _children(node)
    column, literal = _column(left), right
    if column is None:
        column, literal = _column(right), left
        op = FLIPPED.get(op, op)
    if column is None or not _is_literal(literal):
        return Unusable(sql=sql, reason="it does not compare a column with a value")
    value = _value(literal)
    if value is None:
        return Unusable(sql=sql, reason="it compares with NULL")
    return Compare(column=column, op=op, values=(value,), sql=sql)


def _membership(node: Any, kind: str, sql: str) -> Predicate:
    children = _children(node)
    column = _column(children[0])
    if kind == "InSet":
        it = node.hset().iterator()
        raw: list[Any] = []
        while it.hasNext():
            raw.append(it.next())
        values = [_internal(v, node.child().dataType()) for v in raw]
    else:
        if not all(_is_literal(c) for c in children[1:]):
            return Unusable(sql=sql, reason="its values are not literals")
        values = [_value(c) for c in children[1:]]
    if column is None or not values or any(v is None for v in values):
        return Unusable(sql=sql, reason="it does not test a column against values")
    op = Op.STARTS_WITH if kind == "StartsWith" else Op.IN
    return Compare(column=column, op=op, values=tuple(values), sql=sql)


def _column(node: Any) -> str | None:
    if node.getClass().getSimpleName() == "AttributeReference":
        return str(node.name())
    return None


def _is_literal(node: Any) -> bool:
    return bool(node.getClass().getSimpleName() == "Literal")


def _value(literal: Any) -> Any:
    return _internal(literal.value(), literal.dataType())


def _internal(value: Any, data_type: Any) -> Any:
    """A value of Spark's internal form (days, microseconds, UTF8String) in Python."""
    if value is None:
        return None
    kind = data_type.typeName()
    if kind == "date":
        return date(1970, 1, 1) + timedelta(days=int(value))
    if kind == "timestamp":
        return (_EPOCH + timedelta(microseconds=int(value))).replace(tzinfo=UTC)
    if kind == "timestamp_ntz":
        return _EPOCH + timedelta(microseconds=int(value))
    if kind == "decimal":
        return Decimal(str(value.toString()))
    if kind in ("string", "binary") or not isinstance(value, bool | int | float):
        return str(value.toString()) if hasattr(value, "toString") else str(value)
    return value


def row_filter(values: dict[str, Any], columns: tuple[str, ...]) -> str:
    """A Spark SQL filter matching a row by ``columns``: ``id = 42 AND x IS NULL`` (values
    with no simple literal, binary or nested, are left out)."""
    parts = []
    for name in columns:
        value = values.get(name)
        quoted = "`" + name.replace("`", "``") + "`"
        if value is None:
            parts.append(f"{quoted} IS NULL")
        elif (literal := sql_literal(value)) is not None:
            parts.append(f"{quoted} = {literal}")
    return " AND ".join(parts)


def sql_literal(value: Any) -> str | None:
    """A Python value as a Spark SQL literal, or None when it has no simple one."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return f"TIMESTAMP_NTZ'{value.isoformat(sep=' ')}'"
        return f"TIMESTAMP'{value.astimezone(UTC).isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE'{value.isoformat()}'"
    return None
