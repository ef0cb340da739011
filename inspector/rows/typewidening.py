"""Type widening (``typeWidening``): which type changes the Spark reader reads exactly.

A widened column's older files still hold the narrower type; Spark's Parquet reader must
read them as the new type. This says which changes it reads exactly (by the schema's
``delta.typeChanges`` metadata), so the reader refuses the others rather than return
wrong values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from inspector.delta.errors import UnsupportedFeature
from inspector.delta.schema import TYPE_CHANGES_KEY
from inspector.log.snapshot import Snapshot

_INTEGRAL = ("byte", "short", "integer", "long")


def _widening_supported(from_type: str, to_type: str) -> bool:
    if from_type in _INTEGRAL and to_type in _INTEGRAL:
        return _INTEGRAL.index(from_type) <= _INTEGRAL.index(to_type)
    if (from_type, to_type) in {("float", "double"), ("date", "timestamp_ntz")}:
        return True
    if from_type in ("byte", "short", "integer") and to_type == "double":
        return True
    dec_from, dec_to = _decimal(from_type), _decimal(to_type)
    if from_type in _INTEGRAL and dec_to:
        # Spark's vectorized reader needs room for the whole Parquet INT32 / INT64 range.
        return dec_to[0] - dec_to[1] >= (20 if from_type == "long" else 10)
    if dec_from and dec_to:
        return dec_to[1] >= dec_from[1] and dec_to[0] - dec_to[1] >= dec_from[0] - dec_from[1]
    return False


def _decimal(name: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def check_type_changes(snapshot: Snapshot) -> None:
    """Refuse a snapshot whose widened columns Spark's Parquet reader cannot read exactly.

    Raises:
        UnsupportedFeature: Naming the column and its type change.
    """
    for field_name, change in _type_changes(json.loads(snapshot.metadata.schema_string), ()):
        src, dst = str(change.get("fromType")), str(change.get("toType"))
        if not _widening_supported(src, dst):
            raise UnsupportedFeature(
                f"Column {field_name} was widened from {src} to {dst} (typeWidening); Spark's "
                "Parquet reader cannot read the older files' values as the new type exactly.",
                "Read this table with Delta Lake itself, or rewrite the old files.",
            )


def _type_changes(node: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        if "name" in node and "type" in node:
            path = path + (node["name"],)
            for change in (node.get("metadata") or {}).get(TYPE_CHANGES_KEY) or ():
                yield ".".join(path), change
        for key, value in node.items():
            if key != "metadata":
                yield from _type_changes(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from _type_changes(item, path)
