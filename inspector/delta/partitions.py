"""Partition values: the strings an add action's ``partitionValues`` holds, typed.

Delta serializes every partition value as a string (PROTOCOL.md, "Partition Value
Serialization"); this is the one place that reads them back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal, InvalidOperation
from typing import Any

from inspector.delta.errors import CorruptLog

#: Hive's name for a null partition value, as some writers store it.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def partition_value(text: str | None, type_name: str, file: str = "", zone: tzinfo = UTC) -> Any:
    """Convert a partition value from the log (a string) to a Python value of its type.

    Args:
        text: The serialized value; None, ``__HIVE_DEFAULT_PARTITION__`` and (for non-string
            types) the empty string mean null.
        type_name: Spark's ``typeName()`` of the column (``decimal`` for any decimal).
        file: The data file, for the error message.
        zone: The time zone of timestamp values written without one (the spec's
            ``2021-01-01 00:00:00`` form); values with ``Z`` or an offset ignore it.

    Returns:
        The typed value (timestamps are aware UTC datetimes; timestamp_ntz naive).

    Raises:
        CorruptLog: If the value does not parse as the column's type.
    """
    if text is None or text == HIVE_NULL or (text == "" and type_name != "string"):
        return None
    try:
        if type_name == "timestamp":
            return _timestamp(text, zone)
        return _PARTITION_PARSERS.get(type_name, _unsupported_partition)(text)
    except (ValueError, InvalidOperation, OverflowError):
        raise CorruptLog(
            f"The partition value {text!r} of {file} is not a valid {type_name}.",
            "The log is damaged or was written by a faulty writer; pick another version.",
        ) from None


def _timestamp(text: str, zone: tzinfo) -> datetime:
    parsed = datetime.fromisoformat(text.strip())
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return parsed.astimezone(UTC)


def _timestamp_ntz(text: str) -> datetime:
    return datetime.fromisoformat(text.strip()).replace(tzinfo=None)


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered not in ("true", "false"):
        raise ValueError(text)
    return lowered == "true"


def _unsupported_partition(text: str) -> Any:
    raise ValueError(text)


_PARTITION_PARSERS: dict[str, Callable[[str], Any]] = {
    "string": str,
    "byte": int,
    "short": int,
    "integer": int,
    "long": int,
    "float": float,
    "double": float,
    "boolean": _boolean,
    "date": lambda t: date.fromisoformat(t.strip()[:10]),
    "timestamp_ntz": _timestamp_ntz,
    "decimal": lambda t: Decimal(t.strip()),
    "binary": lambda t: t.encode("utf-8"),  # Delta writes Cast(binary as string): UTF-8
}
