"""Which engine commits a restore, and why: one rule, here.

Delta Lake on Spark reads every row (the plan's and the verification's). Delta's own
``RESTORE TABLE`` commits too, except where Delta cannot do what the plan promises:

- **Object stores** (``s3://``, ``abfss://``, ``gs://``): Delta 4.4 writes ``_delta_log``
  on S3 through ``S3SingleDriverLogStore``, which is only safe when every writer goes
  through one Spark driver (its mutual exclusion is an in-process lock; S3's own
  create-if-absent is not used). Multi-cluster safety needs the DynamoDB LogStore
  (``delta-storage-s3-dynamodb``, not on Maven Central for 4.4.0). Delta Inspector's
  commit writer uses the store's conditional put (``If-None-Match: *`` on S3, the
  equivalent preconditions on Azure and GCS), so it commits there; Delta still reads.
- **Leaving missing files out** (``allow_missing_files``): Delta's RESTORE re-adds every
  file of the target version, missing or not; only the own writer can leave them out.

The decision is made once, from the plan (:meth:`RestorePlan.engines`), and passed on.
A catalog-managed table is committed to by neither: only its catalog may (the restore is
refused, :func:`inspector.restore.guards.managed_guard`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from inspector.storage import parse_location


class Engine(StrEnum):
    """An engine that reads or commits (the names ``restore --json`` reports)."""

    DELTA = "delta-spark"
    OWN = "delta-inspector"
    CATALOG = "catalog"  # a catalog-managed table: only its catalog commits


@dataclass(frozen=True, kw_only=True)
class Engines:
    """Who reads the rows and who writes the commit of a restore, and why."""

    read: Engine
    commit: Engine
    why: str

    def to_json(self) -> dict[str, str]:
        """``{"read": ..., "commit": ..., "why": ...}``."""
        return {"read": str(self.read), "commit": str(self.commit), "why": self.why}

    def describe(self) -> str:
        """One line for people."""
        names = {Engine.DELTA: "Delta Lake", Engine.OWN: "Delta Inspector"}
        names[Engine.CATALOG] = "only the table's catalog"
        return f"{names[self.read]} reads, {names[self.commit]} commits: {self.why}"


def choose_engines(
    table_root: str, *, allow_missing_files: bool, catalog_managed: bool = False
) -> Engines:
    """The engines of a restore of ``table_root`` (see the module docstring for the rule)."""
    if catalog_managed:
        return Engines(
            read=Engine.DELTA,
            commit=Engine.CATALOG,
            why="the table is catalog-managed; this restore is refused (not_catalog_managed).",
        )
    if not parse_location(table_root).is_local:
        return Engines(
            read=Engine.DELTA,
            commit=Engine.OWN,
            why="on an object store Delta's default LogStore is safe for one Spark driver "
            "only; Delta Inspector's writer commits with the store's create-if-absent.",
        )
    if allow_missing_files:
        return Engines(
            read=Engine.DELTA,
            commit=Engine.OWN,
            why="Delta's RESTORE would re-add the missing files; only Delta Inspector's "
            "writer leaves them out.",
        )
    return Engines(
        read=Engine.DELTA,
        commit=Engine.DELTA,
        why="a local table: Delta's own RESTORE commits.",
    )
