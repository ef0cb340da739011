"""Protocols and table features as a RESTORE writer sees them.

Two questions are answered here: which table features this writer can commit to
(and why each is safe), and which protocol the restore commit must carry: the
current protocol merged with the target's, so a restore never downgrades a table
(Delta's ``Protocol.merge``: highest versions, union of every feature).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.delta.actions import Protocol

#: Features implied by legacy writer versions (before table features, writer < 7).
_LEGACY_WRITER = {
    2: ("appendOnly", "invariants"),
    3: ("checkConstraints",),
    4: ("changeDataFeed", "generatedColumns"),
    5: ("columnMapping",),
    6: ("identityColumns",),
}
#: Features implied by legacy reader versions (reader < 3).
_LEGACY_READER = {2: ("columnMapping",)}

#: Every feature this writer supports, and why committing a RESTORE to it is safe.
SUPPORTED_FEATURES: Mapping[str, str] = {
    "appendOnly": "restores that remove data are refused while delta.appendOnly is true",
    "invariants": "re-added rows satisfied the invariants when they were first written",
    "checkConstraints": "re-added rows satisfied the constraints of the restored version",
    "generatedColumns": "re-added rows were generated under the restored schema",
    "allowColumnDefaults": "defaults only apply to rows written later",
    "changeDataFeed": "like Delta's RESTORE, no change-data files are written",
    "columnMapping": "files and schema (with physical names) are restored together",
    "identityColumns": "identity high-water marks never go back (merged as Delta does)",
    "deletionVectors": "re-added files carry their deletion vectors",
    "rowTracking": "re-added files keep baseRowId/defaultRowCommitVersion",
    "domainMetadata": "domains are kept; delta.clustering follows the restored version as in Delta",
    "clustering": "clustering columns follow the restored version as in Delta",
    "timestampNtz": "data files are re-added unchanged",
    "v2Checkpoint": "a commit needs no checkpoint",
    "inCommitTimestamp": "the commit carries an in-commit timestamp when enabled",
    "vacuumProtocolCheck": "only affects VACUUM, which this tool never runs",
    "checkpointProtection": "only affects log cleanup, which this tool never runs",
    "typeWidening": "type-change metadata is restored with the schema",
    "typeWidening-preview": "type-change metadata is restored with the schema",
    "variantType": "data files are re-added unchanged",
    "variantType-preview": "data files are re-added unchanged",
    "variantShredding": "data files are re-added unchanged",
    "variantShredding-preview": "data files are re-added unchanged",
}

#: Features this writer refuses, and why.
REFUSED_FEATURES: Mapping[str, str] = {
    "catalogManaged": "the table is managed by a catalog; commits must go through it",
    "catalogOwned": "the table is managed by a catalog; commits must go through it",
    "catalogOwned-preview": "the table is managed by a catalog; commits must go through it",
    "coordinatedCommits-preview": "commits must go through the table's commit coordinator",
    "icebergCompatV1": "Iceberg metadata must be converted with every commit (UniForm)",
    "icebergCompatV2": "Iceberg metadata must be converted with every commit (UniForm)",
    "icebergCompatV3": "Iceberg metadata must be converted with every commit (UniForm)",
    "icebergWriterCompatV1": "Iceberg metadata must be converted with every commit (UniForm)",
    "icebergWriterCompatV3": "Iceberg metadata must be converted with every commit (UniForm)",
}

#: Features that put the table under a catalog or a commit coordinator.
MANAGED_FEATURES = (
    "catalogManaged",
    "catalogOwned",
    "catalogOwned-preview",
    "coordinatedCommits-preview",
)

MAX_READER_VERSION = 3
MAX_WRITER_VERSION = 7


def writer_features(protocol: Protocol) -> frozenset[str]:
    """Writer features in force: listed ones (writer 7) or those implied by a legacy version."""
    if protocol.min_writer_version >= 7:
        return frozenset(protocol.writer_features or ())
    return frozenset(
        f for v, names in _LEGACY_WRITER.items() if v <= protocol.min_writer_version for f in names
    )


def reader_features(protocol: Protocol) -> frozenset[str]:
    """Reader features in force: listed ones (reader 3) or those implied by a legacy version."""
    if protocol.min_reader_version >= 3:
        return frozenset(protocol.reader_features or ())
    return frozenset(
        f for v, names in _LEGACY_READER.items() if v <= protocol.min_reader_version for f in names
    )


def all_features(protocol: Protocol) -> frozenset[str]:
    """Every feature, reader or writer, the protocol requires."""
    return writer_features(protocol) | reader_features(protocol)


def merge_protocols(current: Protocol, target: Protocol) -> Protocol:
    """The protocol a restore commits: ``current`` merged with ``target`` (never lower).

    Like Delta's ``Protocol.merge``: the highest reader and writer versions, and the
    union of every feature either side supports, explicitly or implied by a legacy
    version. Two legacy protocols merge into a legacy protocol.

    Args:
        current: The table's protocol now.
        target: The protocol of the version being restored.

    Returns:
        The merged protocol (its ``raw`` is the JSON body to write).
    """
    reader = max(current.min_reader_version, target.min_reader_version)
    writer = max(current.min_writer_version, target.min_writer_version)
    body: dict[str, Any] = {"minReaderVersion": reader, "minWriterVersion": writer}
    if reader >= 3:
        body["readerFeatures"] = sorted(reader_features(current) | reader_features(target))
    if writer >= 7:
        body["writerFeatures"] = sorted(
            writer_features(current)
            | writer_features(target)
            | _reader_writer(current)
            | _reader_writer(target)
        )
    return protocol_from_json(body)


def _reader_writer(protocol: Protocol) -> frozenset[str]:
    """Reader features that are also writer features (a writer-7 list must name them)."""
    return frozenset(f for f in reader_features(protocol) if f in _READER_WRITER)


_READER_WRITER = frozenset(
    {
        "columnMapping",
        "deletionVectors",
        "timestampNtz",
        "v2Checkpoint",
        "vacuumProtocolCheck",
        "typeWidening",
        "typeWidening-preview",
        "variantType",
        "variantType-preview",
        "variantShredding",
        "variantShredding-preview",
        "catalogManaged",
        "catalogOwned",
        "catalogOwned-preview",
    }
)


def protocol_from_json(body: Mapping[str, Any]) -> Protocol:
    """A Protocol record from a JSON body (keeps the body as ``raw``)."""
    readers, writers = body.get("readerFeatures"), body.get("writerFeatures")
    return Protocol(
        int(body["minReaderVersion"]),
        int(body["minWriterVersion"]),
        tuple(readers) if readers is not None else None,
        tuple(writers) if writers is not None else None,
        raw=dict(body),
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
