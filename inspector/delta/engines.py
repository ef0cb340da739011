"""Which engines read and write which table features: the cited data in ``engine_support.json``.

A version string means "since that version"; a feature an engine does not list is unknown.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

DATA_FILE = "engine_support.json"


class Support(StrEnum):
    """Whether an engine can do something with a table."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


@dataclass(frozen=True, kw_only=True)
class FeatureSupport:
    """One engine's support for one feature: ``yes``, ``no``, ``unknown`` or a version."""

    read: str
    write: str
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class Engine:
    """One engine's entry in the data file (``key`` such as ``spark-delta``; ``source`` a URL
    and ``checked`` an ISO date; ``max_reader``/``max_writer`` the highest protocol versions
    it reads and writes, None when unknown)."""

    key: str
    label: str
    source: str
    checked: str
    max_reader: int | None
    max_writer: int | None
    features: Mapping[str, FeatureSupport]


def support_of(value: str) -> Support:
    """A data-file value as a Support: version strings mean yes."""
    if value in (Support.NO, Support.UNKNOWN):
        return Support(value)
    return Support.YES


def version_key(value: str) -> tuple[int, ...]:
    """``"3.2.0"`` as ``(3, 2, 0)`` for ordering; () when it is not a version."""
    parts = value.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else ()


def raw_data() -> dict[str, Any]:
    """The data file as parsed JSON (for tests and docs)."""
    # Beside this module (not importlib.resources: its import is ≈0.02 s of ``detail``).
    with open(os.path.join(os.path.dirname(__file__), DATA_FILE), encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@cache
def load_engines() -> tuple[Engine, ...]:
    """Every engine in the data file, in its order (``like`` entries copy another's features)."""
    entries = raw_data()["engines"]
    by_key = {e["key"]: e for e in entries}
    return tuple(_engine(e, by_key) for e in entries)


def _engine(entry: Mapping[str, Any], by_key: Mapping[str, Mapping[str, Any]]) -> Engine:
    base = by_key[entry["like"]] if "like" in entry else entry
    features = {**base.get("features", {}), **entry.get("features", {})}
    return Engine(
        key=entry["key"],
        label=entry["label"],
        source=entry["source"],
        checked=entry["checked"],
        max_reader=entry.get("maxReader", base.get("maxReader")),
        max_writer=entry.get("maxWriter", base.get("maxWriter")),
        features={
            name: FeatureSupport(read=f["read"], write=f["write"], note=f.get("note"))
            for name, f in features.items()
        },
    )
