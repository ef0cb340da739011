"""Table features and protocols: the one table of what we can read, commit to, or refuse.

Every feature this tool knows is listed once in :data:`FEATURES`, with the legacy
protocol versions that imply it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.actions import Protocol
from inspector.delta.parse import parse_protocol

#: The versions from which a protocol lists its features (before them, versions imply them).
FEATURES_READER_VERSION = 3
FEATURES_WRITER_VERSION = 7
#: The newest protocol versions this tool understands.
MAX_READER_VERSION = FEATURES_READER_VERSION
MAX_WRITER_VERSION = FEATURES_WRITER_VERSION
_CATALOG = "the table is managed by a catalog; commits must go through it"
_UNIFORM = "Iceberg metadata must be converted with every commit (UniForm)"
_UNCHANGED = "data files are re-added unchanged"
_TYPE_CHANGES = "type-change metadata is restored with the schema"


class FeatureKind(StrEnum):
    """Whether readers must understand a feature too, or only writers."""

    READER_WRITER = "reader-writer"
    WRITER = "writer"


@dataclass(frozen=True, kw_only=True)
class TableFeature:
    """One table feature and what this tool does with tables that use it.

    Attributes:
        restore: Why a RESTORE commit to a table with this feature is safe, or None
            when the writer refuses it (``refusal`` says why).
        managed: The feature puts the table under a catalog or a commit coordinator.
        legacy_reader: The legacy reader (writer) version that implies it, if any.
    """

    name: str
    kind: FeatureKind
    restore: str | None = None
    refusal: str | None = None
    managed: bool = False
    legacy_reader: int | None = None
    legacy_writer: int | None = None


def _rw(name: str, restore: str | None, **more: Any) -> TableFeature:
    return TableFeature(name=name, kind=FeatureKind.READER_WRITER, restore=restore, **more)


def _w(name: str, restore: str | None, **more: Any) -> TableFeature:
    return TableFeature(name=name, kind=FeatureKind.WRITER, restore=restore, **more)


_TABLE = (
    _w(
        "appendOnly",
        "restores that remove data are refused while delta.appendOnly is true",
        legacy_writer=2,
    ),
    _w(
        "invariants",
        "re-added rows satisfied the invariants when they were first written",
        legacy_writer=2,
    ),
    _w(
        "checkConstraints",
        "re-added rows satisfied the constraints of the restored version",
        legacy_writer=3,
    ),
    _w("changeDataFeed", "like Delta's RESTORE, no change-data files are written", legacy_writer=4),
    _w(
        "generatedColumns",
        "re-added rows were generated under the restored schema",
        legacy_writer=4,
    ),
    _rw(
        "columnMapping",
        "files and schema (with physical names) are restored together",
        legacy_reader=2,
        legacy_writer=5,
    ),
    _w(
        "identityColumns",
        "identity high-water marks never go back (merged as Delta does)",
        legacy_writer=6,
    ),
    _w("allowColumnDefaults", "defaults only apply to rows written later"),
    _rw("deletionVectors", "re-added files carry their deletion vectors"),
    _w("rowTracking", "re-added files keep baseRowId/defaultRowCommitVersion"),
    _w(
        "domainMetadata",
        "domains are kept; delta.clustering follows the restored version as in Delta",
    ),
    _w("clustering", "clustering columns follow the restored version as in Delta"),
    _rw("timestampNtz", _UNCHANGED),
    _rw("v2Checkpoint", "a commit needs no checkpoint"),
    _w("inCommitTimestamp", "the commit carries an in-commit timestamp when enabled"),
    _rw("vacuumProtocolCheck", "only affects VACUUM, which this tool never runs"),
    _w("checkpointProtection", "only affects log cleanup, which this tool never runs"),
    _rw("typeWidening", _TYPE_CHANGES),
    _rw("typeWidening-preview", _TYPE_CHANGES),
    _rw("variantType", _UNCHANGED),
    _rw("variantType-preview", _UNCHANGED),
    # Variant shredding: the protocol's writer requirement concerns writing shredded files;
    # a RESTORE writes no data, it re-adds files exactly as they were, so committing one is
    # safe (Delta Lake reads the rows).
    _rw("variantShredding", _UNCHANGED),
    _rw("variantShredding-preview", _UNCHANGED),
    # Catalog-managed tables are readable (the rows of the published commits) but only
    # their catalog may commit.
    _rw("catalogManaged", None, refusal=_CATALOG, managed=True),
    _rw("catalogOwned", None, refusal=_CATALOG, managed=True),
    _rw("catalogOwned-preview", None, refusal=_CATALOG, managed=True),
    _w(
        "coordinatedCommits-preview",
        None,
        refusal="commits must go through the table's commit coordinator",
        managed=True,
    ),
    _w("icebergCompatV1", None, refusal=_UNIFORM),
    _w("icebergCompatV2", None, refusal=_UNIFORM),
    _w("icebergCompatV3", None, refusal=_UNIFORM),
    _w("icebergWriterCompatV1", None, refusal=_UNIFORM),
    _w("icebergWriterCompatV3", None, refusal=_UNIFORM),
)

#: Every feature this tool knows, by name.
FEATURES: Mapping[str, TableFeature] = {f.name: f for f in _TABLE}

#: Features the RESTORE writer commits to, and why that is safe.
RESTORABLE_FEATURES: Mapping[str, str] = {f.name: f.restore for f in _TABLE if f.restore}
#: Features the RESTORE writer refuses, and why.
REFUSED_FEATURES: Mapping[str, str] = {f.name: f.refusal for f in _TABLE if f.refusal}
#: Features that put the table under a catalog or a commit coordinator.
MANAGED_FEATURES = frozenset(f.name for f in _TABLE if f.managed)


#: Each feature a legacy writer (reader) version implies, and the lowest version that does.
_LEGACY_WRITER = {f.name: f.legacy_writer for f in _TABLE if f.legacy_writer is not None}
_LEGACY_READER = {f.name: f.legacy_reader for f in _TABLE if f.legacy_reader is not None}


def writer_features(protocol: Protocol) -> frozenset[str]:
    """Writer features in force: listed ones (writer 7) or those implied by a legacy version."""
    listed, version = protocol.writer_features, protocol.min_writer_version
    return _in_force(listed, version, FEATURES_WRITER_VERSION, _LEGACY_WRITER)


def reader_features(protocol: Protocol) -> frozenset[str]:
    """Reader features in force: listed ones (reader 3) or those implied by a legacy version."""
    listed, version = protocol.reader_features, protocol.min_reader_version
    return _in_force(listed, version, FEATURES_READER_VERSION, _LEGACY_READER)


def _in_force(
    listed: Iterable[str] | None, version: int, features_version: int, legacy: Mapping[str, int]
) -> frozenset[str]:
    # One side (reader or writer) of a protocol: from the table-features version on, the
    # features are listed; below it, the version implies every feature it was given at.
    if version >= features_version:
        return frozenset(listed or ())
    return frozenset(name for name, since in legacy.items() if since <= version)


def all_features(protocol: Protocol) -> frozenset[str]:
    """Every feature, reader or writer, the protocol requires."""
    return writer_features(protocol) | reader_features(protocol)


def merge_protocols(current: Protocol, target: Protocol) -> Protocol:
    """The protocol a restore commits: ``current`` merged with ``target`` (never lower).

    Like Delta's ``Protocol.merge``: the highest reader and writer versions, and the
    union of every feature either side supports, explicitly or implied by a legacy
    version. Two legacy protocols merge into a legacy protocol. Its ``raw`` is the JSON
    body to write.
    """
    reader = max(current.min_reader_version, target.min_reader_version)
    writer = max(current.min_writer_version, target.min_writer_version)
    body: dict[str, Any] = {"minReaderVersion": reader, "minWriterVersion": writer}
    if reader >= FEATURES_READER_VERSION:
        body["readerFeatures"] = sorted(reader_features(current) | reader_features(target))
    if writer >= FEATURES_WRITER_VERSION:
        body["writerFeatures"] = sorted(
            writer_features(current)
            | writer_features(target)
            | _reader_writer(current)
            | _reader_writer(target)
        )
    return parse_protocol(body)


def _reader_writer(protocol: Protocol) -> frozenset[str]:
    """Reader features that are also writer features (a writer-7 list must name them)."""
    return frozenset(
        name
        for name in reader_features(protocol)
        if name in FEATURES and FEATURES[name].kind is FeatureKind.READER_WRITER
    )


def protocol_json(protocol: Protocol) -> dict[str, Any]:
    """The JSON body of a protocol action, with feature lists sorted."""
    body: dict[str, Any] = {
        "minReaderVersion": protocol.min_reader_version,
        "minWriterVersion": protocol.min_writer_version,
    }
    if protocol.reader_features is not None:
        body["readerFeatures"] = sorted(protocol.reader_features)
    if protocol.writer_features is not None:
        body["writerFeatures"] = sorted(protocol.writer_features)
    return body


def same_protocol(a: Protocol, b: Protocol) -> bool:
    """True when two protocols require exactly the same (order of lists aside)."""
    return protocol_json(a) == protocol_json(b)


def covers(newer: Protocol, older: Protocol) -> bool:
    """True when ``newer`` is at least ``older``: versions and every feature."""
    return (
        newer.min_reader_version >= older.min_reader_version
        and newer.min_writer_version >= older.min_writer_version
        and all_features(newer) >= all_features(older)
    )


def describe_protocol(protocol: Protocol) -> str:
    """``3/7 [deletionVectors, rowTracking]`` for messages."""
    features = ", ".join(sorted(all_features(protocol)))
    return f"{protocol.min_reader_version}/{protocol.min_writer_version}" + (
        f" [{features}]" if features else ""
    )


#: The features that make a table catalog-managed: its catalog ratifies every commit, which
#: it may keep as a staged commit until the commit is published (PROTOCOL.md,
#: "Catalog-managed tables").
CATALOG_FEATURES = frozenset(f.name for f in _TABLE if f.refusal == _CATALOG)
#: The table property Unity Catalog sets on the tables it manages.
UNITY_TABLE_ID = "io.unitycatalog.tableId"


def catalog_features(protocol: Protocol) -> list[str]:
    """The catalog-managed features the protocol requires (empty for other tables)."""
    return sorted(all_features(protocol) & CATALOG_FEATURES)


def through_the_catalog(command: str, name: str | None, configuration: Mapping[str, str]) -> str:
    """How to run ``command`` (``RESTORE TABLE t TO VERSION AS OF 3``, ``VACUUM t``) on a
    catalog-managed table: by its catalog name, in an engine that commits through the catalog.

    ``t`` in ``command`` is replaced by the table's name in its catalog, when the table was
    opened by one (``uc://main.sales.orders``); else the user is told to open it by name.
    """
    how = "in an engine that commits through the catalog (Spark with Unity Catalog, Databricks)"
    if name:
        full = name.partition("://")[2] or name
        return f"run `{command.replace(' t', ' ' + full, 1)}` by its catalog name ({name}) {how}"
    table_id = configuration.get(UNITY_TABLE_ID)
    known = f"; its Unity Catalog table id is {table_id}" if table_id else ""
    run = command.replace(" t", " CATALOG.SCHEMA.TABLE", 1)
    return f"open it by its catalog name (uc://CATALOG.SCHEMA.TABLE{known}) and run `{run}` {how}"
