"""Reading the fields of an action's JSON body: the right type, or a ValueError naming it.

A damaged field makes a damaged commit, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping_or_empty(value: Any) -> Mapping[str, Any]:
    # commitInfo is free-form: a writer may put anything there, and the history must still show.
    return value if isinstance(value, dict) else {}


def text_or_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


# The protocol's integers are Java longs; a number outside that range is a damaged field.
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def json_type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def as_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"'{name}' must be a string, found {json_type_name(value)}")
    return value


def opt_str(value: Any, name: str) -> str | None:
    return None if value is None else as_str(value, name)


def as_str_list(value: Any, name: str) -> tuple[str, ...]:
    """A JSON array of strings (absent: empty); a bare string is not a list of names."""
    if value is None:
        return ()
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
        raise ValueError(f"'{name}' must be an array of strings, found {json_type_name(value)}")
    return tuple(as_str(item, name) for item in value)


def as_long(value: Any, name: str) -> int:
    """A required integer: a JSON integer (or its decimal text) within a Java long."""
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():  # never NaN or infinity
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value)
    if number is None or not _LONG_MIN <= number <= _LONG_MAX:
        raise ValueError(f"'{name}' must be an integer, found {str(value)[:40]!r}")
    return number


def opt_long(value: Any, name: str) -> int | None:
    return None if value is None else as_long(value, name)


def as_int(value: Any) -> int | None:
    """An optional integer: anything that is not one (or is out of range) counts as absent."""
    if value is None or value == "":
        return None
    try:
        return as_long(value, "")
    except ValueError:
        return None


# Times are milliseconds since the epoch; beyond years 1..9999 no calendar can show them.
EPOCH_MS_MIN, EPOCH_MS_MAX = -62_135_596_800_000, 253_402_300_799_999


def as_epoch_ms(value: Any, name: str) -> int:
    """A required time in ms since the epoch, within the years 1 to 9999."""
    ms = as_long(value, name)
    if not EPOCH_MS_MIN <= ms <= EPOCH_MS_MAX:
        raise ValueError(f"'{name}' is not a time (ms since 1970) between years 1 and 9999: {ms}")
    return ms


def opt_epoch_ms(value: Any) -> int | None:
    """An optional time in ms since the epoch; a value no calendar can show counts as absent."""
    ms = as_int(value)
    return ms if ms is not None and EPOCH_MS_MIN <= ms <= EPOCH_MS_MAX else None


def as_text_map(value: Any, name: str, *, nulls: bool = True) -> dict[str, Any] | None:
    """A map of strings to strings: ``partitionValues`` (a value may be null: a null
    partition value), or with ``nulls=False`` ``configuration`` and ``tags``; else broken."""
    if value is None:
        return None
    found = dict(value)  # a JSON object, or a Parquet map (key/value pairs)
    for key, item in found.items():
        if not isinstance(key, str) or not (isinstance(item, str) or (nulls and item is None)):
            raise ValueError(
                f"'{name}' must map strings to strings, found {key!r}: {json_type_name(item)}"
            )
    return found
