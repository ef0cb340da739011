"""The one way a row value is written, in JSON, in text and in the app's tables.

Built on :func:`inspector.delta.jsonvalue.json_value`, so every output agrees; text
never shows a Python repr (``None``, ``True``, ``{'a': 1}``, ``Decimal('1.0')``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from inspector.delta.jsonvalue import json_value

EMPTY = "–"  # the app's one glyph for "no value" (null cells, unknown counts)
NULL = "null"  # text outputs (CLI, Markdown) write a null row value as SQL and JSON do
NOT_SET = "(not set)"  # a property or setting that has no value on one side of a change


def text_value(value: Any, *, empty: str = NULL) -> str:
    """A value as text for people, the same text everywhere: scalars bare
    (``2024-03-04T04:35:00Z``, ``12.30``, ``true``), nested values as compact JSON, a null
    as ``empty``."""
    if value is None:
        return empty
    plain = json_value(value)
    if isinstance(plain, str):
        return plain
    if isinstance(plain, bool):
        return "true" if plain else "false"
    if isinstance(plain, (int, float)):
        return repr(plain)
    return json.dumps(plain, ensure_ascii=False, separators=(", ", ": "))


def cell_value(value: Any) -> Any:
    """A value for a cell of the app's tables.

    Numbers, booleans and text stay typed (a column sorts by value); null stays null
    (the table shows :data:`EMPTY`); everything else is :func:`text_value`.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")):
        return value
    return text_value(value)


def table_rows(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """Rows as the app's tables show them (``cell_value`` of each column, in order)."""
    return [{c: cell_value(row.get(c)) for c in columns} for row in rows]


def row_text(row: Mapping[str, Any], columns: Sequence[str] | None = None) -> str:
    """One row as ``col=value, col2=value`` (the text diff's sample lines)."""
    names = list(row) if columns is None else columns
    return ", ".join(f"{name}={text_value(row.get(name))}" for name in names)


def count_text(count: int | None) -> str:
    """A count in text: with separators, ``?`` where it is unknown (as ``delta.text.counted``
    and ``RowChange.label`` say it)."""
    return "?" if count is None else f"{count:,}"


def setting_text(value: Any) -> str:
    """A property, protocol or table field value in a change: ``(not set)`` when absent."""
    if value is None:
        return NOT_SET
    if isinstance(value, (list, tuple)):
        return ", ".join(text_value(v) for v in value) or "(none)"
    return text_value(value)


def json_text(obj: Any, *, strict: bool = False) -> str:
    """The one JSON text of every output: the CLI's ``--json`` and the app's exports.

    orjson encodes it (the standard library's indenting encoder took seconds for a
    20,000-version history); values it does not take fall back to the standard encoder
    (with ``strict``, a TypeError instead).
    """
    try:
        return orjson.dumps(
            obj,
            option=orjson.OPT_INDENT_2
            | orjson.OPT_PASSTHROUGH_DATETIME
            | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_PASSTHROUGH_SUBCLASS,
        ).decode()
    except TypeError:
        if strict:
            raise
        return json.dumps(obj, indent=2, default=str)
