"""A filter as the log can use it: comparisons of one column with literals, and/or/not.

The text a user types is parsed once, by Spark SQL (the one grammar), and Spark's
analyzer resolves its columns and types; :mod:`inspector.rows.predicate` turns Spark's
optimized condition into these records. Everything Spark's condition holds that the log
cannot judge (a function of a column, two columns compared, a nested field) becomes
:class:`Unusable`, with its SQL: a file is never dropped because of it.

Negation is pushed to the leaves here, as Delta's data skipping does
(``NOT (a < 1)`` is ``a >= 1``; De Morgan for ``AND``/``OR``): in a WHERE clause a
null comparison matches no row either way, so the pushed form keeps the same rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any


class Op(StrEnum):
    """A comparison of a column with literal values."""

    EQ = "="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    IS_NULL = "IS NULL"
    IS_NOT_NULL = "IS NOT NULL"
    IN = "IN"
    STARTS_WITH = "STARTS WITH"


#: ``NOT (column op v)`` as one comparison (missing where the negation is not one).
NEGATED: dict[Op, Op] = {
    Op.EQ: Op.NE,
    Op.NE: Op.EQ,
    Op.LT: Op.GE,
    Op.LE: Op.GT,
    Op.GT: Op.LE,
    Op.GE: Op.LT,
    Op.IS_NULL: Op.IS_NOT_NULL,
    Op.IS_NOT_NULL: Op.IS_NULL,
}

#: ``v op column`` as ``column op' v``.
FLIPPED: dict[Op, Op] = {Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE}


@dataclass(frozen=True, kw_only=True)
class Compare:
    """``column op values``: a top-level column (logical name) and Python literals."""

    column: str
    op: Op
    values: tuple[Any, ...] = ()
    sql: str = ""


class Join(StrEnum):
    """How a :class:`Junction`'s parts combine."""

    AND = "AND"  # every part holds
    OR = "OR"  # at least one part holds


@dataclass(frozen=True, kw_only=True)
class Junction:
    """``part AND part ...`` or ``part OR part ...``."""

    join: Join
    parts: tuple[Predicate, ...]
    sql: str = ""


@dataclass(frozen=True, kw_only=True)
class Negated:
    """``NOT part``, until :func:`push_not` pushes it to the leaves."""

    part: Predicate
    sql: str = ""


@dataclass(frozen=True, kw_only=True)
class Unusable:
    """Something the log cannot judge: kept as Spark's SQL, with the reason."""

    sql: str
    reason: str


Predicate = Compare | Junction | Negated | Unusable


def push_not(predicate: Predicate, *, negate: bool = False) -> Predicate:
    """The predicate with every ``NOT`` pushed into the comparisons (Delta's rewrite)."""
    if isinstance(predicate, Negated):
        return push_not(predicate.part, negate=not negate)
    if isinstance(predicate, Junction):
        parts = tuple(push_not(p, negate=negate) for p in predicate.parts)
        if not negate:
            return replace(predicate, parts=parts)
        join = Join.OR if predicate.join is Join.AND else Join.AND  # NOT (a AND b) = NOT a OR NOT b
        return Junction(join=join, parts=parts)
    if not negate:
        return predicate
    if isinstance(predicate, Unusable):
        return Unusable(sql=f"NOT ({predicate.sql})", reason=predicate.reason)
    op = NEGATED.get(predicate.op)
    if op is None:
        return Unusable(
            sql=f"NOT ({predicate.sql})", reason=f"NOT {predicate.op} cannot skip files"
        )
    return Compare(column=predicate.column, op=op, values=predicate.values, sql=predicate.sql)


def conjuncts(predicate: Predicate | None) -> list[Predicate]:
    """The top-level ``AND`` parts, after :func:`push_not` (none for no filter)."""
    if predicate is None:
        return []
    pushed = push_not(predicate)
    if isinstance(pushed, Junction) and pushed.join is Join.AND:
        return [q for p in pushed.parts for q in conjuncts(p)]
    return [pushed]


def columns_of(predicate: Predicate) -> set[str]:
    """The columns a predicate compares (those inside :class:`Unusable` parts excluded)."""
    return {leaf.column for leaf in _leaves(predicate) if isinstance(leaf, Compare)}


def unusable_parts(predicate: Predicate) -> list[Unusable]:
    """The parts the log cannot judge, anywhere in the predicate."""
    return [leaf for leaf in _leaves(predicate) if isinstance(leaf, Unusable)]


def _leaves(predicate: Predicate) -> Iterator[Compare | Unusable]:
    if isinstance(predicate, Junction):
        for part in predicate.parts:
            yield from _leaves(part)
    elif isinstance(predicate, Negated):
        yield from _leaves(predicate.part)
    else:
        yield predicate


def describe(predicate: Predicate) -> str:
    """The predicate in SQL-like words, for notes."""
    if isinstance(predicate, Compare):
        if predicate.sql:
            return predicate.sql
        shown = ", ".join(repr(v) for v in predicate.values)
        return f"{predicate.column} {predicate.op} {shown}".strip()
    if isinstance(predicate, Unusable):
        return predicate.sql
    if isinstance(predicate, Negated):
        return f"NOT ({describe(predicate.part)})"
    return "(" + f" {predicate.join} ".join(describe(p) for p in predicate.parts) + ")"
