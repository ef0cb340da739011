"""Values of Delta's data types (as Spark, pyarrow or the log return them) as plain JSON.

The one conversion used by every JSON output (``show``, ``diff``, the app's exports); it
lives in ``delta`` so that every layer, the Spark one included, can use it.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache
from typing import Any


def camel_json(record: Any, *names: str) -> dict[str, Any]:
    """A record's fields (``names``, else every field) under Delta's camelCase names
    (``size_in_bytes``: ``sizeInBytes``): the one spelling of a record's JSON keys."""
    fields = names or tuple(f.name for f in dataclasses.fields(record))
    return {_camel(name): getattr(record, name) for name in fields}


def camel_fields(record_type: type[Any], obj: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``record_type`` read from ``obj`` under their camelCase names (None when
    absent): :func:`camel_json`'s JSON read back, as keyword arguments."""
    return {f.name: obj.get(_camel(f.name)) for f in dataclasses.fields(record_type)}


@cache  # field names are few; a 20,000-version history --json spells them 120,000 times
def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def json_value(value: Any) -> Any:
    """A value as something ``json.dumps`` accepts without a ``default``.

    Dates and times become ISO 8601 (aware times in UTC with ``Z``), decimals strings
    (no precision lost to floats), binary base64, NaN/infinities their names, Arrow
    maps (lists of key/value pairs) objects, and keys text.
    """
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")  # 0E-10 as 0.0000000000, as Spark writes it
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        pairs = isinstance(value, list) and all(isinstance(v, tuple) and len(v) == 2 for v in value)
        if value and pairs:
            return {str(json_value(k)): json_value(v) for k, v in value}  # an Arrow map
        return [json_value(v) for v in value]
    return value
