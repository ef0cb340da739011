"""What an operator types: a restore's target as text, and the table name that confirms it.

The CLI and the app collect the text; the rules are here, once:

- :func:`parse_target`: a version (digits, ``latest``, ``current``) or else a timestamp,
  which ``plan_restore`` parses (and says what is wrong with);
- :func:`describe_name_source`: where the name to type comes from (the catalog's name, the
  metadata's, else the folder's), so both front ends can say it next to the prompt.
"""

from __future__ import annotations

from enum import StrEnum

from inspector.log.deltalog import DeltaLog
from inspector.restore.planrecord import RestorePlan
from inspector.table.versions import parse_version

_VERSION_WORDS = frozenset({"latest", "current"})


class NameSource(StrEnum):
    """Where the table name typed to confirm a restore comes from."""

    CATALOG = "the table's full name in its catalog"
    METADATA = "the table's name in its metadata"
    FOLDER = "the table's folder name (the table has no name in its metadata)"


def parse_target(text: str, log: DeltaLog) -> int | str:
    """A restore target as typed: a version of ``log``, or the text of a timestamp.

    Args:
        text: What the operator typed, e.g. ``12``, ``latest`` or ``2024-05-01 12:00:00``.
        log: The table's log (``latest`` and negative versions are relative to it).

    Returns:
        The version, or the stripped text for ``plan_restore`` to parse as a timestamp.

    Raises:
        InvalidInput: If the text looks like a version that is not valid.
    """
    raw = (text or "").strip()
    if raw.lstrip("-").isdigit() or raw.lower() in _VERSION_WORDS:
        return parse_version(raw, log)
    return raw


def table_name_source(
    table_name: str, table_root: str, *, catalog_name: str | None = None
) -> NameSource:
    """Where a restore's ``table_name`` for the table at ``table_root`` comes from
    (``catalog_name``: its name in a catalog, when it was opened by name)."""
    if catalog_name:
        return NameSource.CATALOG
    folder = table_root.rstrip("/").rsplit("/", 1)[-1]
    return NameSource.FOLDER if table_name == folder else NameSource.METADATA


def describe_name_source(plan: RestorePlan) -> str:
    """Where the name to type comes from, in words (with the catalog name when there is one)."""
    source = table_name_source(plan.table_name, plan.table_root, catalog_name=plan.catalog_name)
    return f"{source} ({plan.catalog_name})" if source is NameSource.CATALOG else str(source)
