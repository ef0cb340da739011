"""A table's overview at a version (the latest by default), like Delta's ``DESCRIBE DETAIL``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.delta.actions import Protocol
from inspector.delta.jsonvalue import camel_json
from inspector.delta.properties import CLUSTERING_DOMAIN
from inspector.delta.protocol import all_features
from inspector.delta.schema import Column, iter_columns
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import Snapshot, describe_replay
from inspector.settings import Settings
from inspector.table.compatibility import Compatibility, describe_compatibility
from inspector.table.history import build_history, history_page
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_time import iso


@dataclass(frozen=True, kw_only=True)
class TableDetail:
    """What ``DESCRIBE DETAIL`` reports, plus the shape of the log (times in ms, UTC).

    ``last_modified`` is the version's history timestamp, as ``DESCRIBE HISTORY`` shows
    it: Delta 4.4's ``DESCRIBE DETAIL`` shows the commit file's time even with in-commit
    timestamps, but a copied table's file times are the copy's, so the history timestamp
    is the one that stays with the table (tests/test_delta_oracle_features.py).
    """

    format: str
    id: str
    name: str | None
    description: str | None
    location: str
    created_at: int | None
    last_modified: int | None
    version: int
    partition_columns: tuple[str, ...]
    clustering_columns: tuple[str, ...]
    num_files: int
    size_in_bytes: int
    num_records: int | None
    properties: Mapping[str, str]
    min_reader_version: int
    min_writer_version: int
    reader_features: tuple[str, ...]
    writer_features: tuple[str, ...]
    protocol: Protocol = field(repr=False, compare=False)
    column_mapping_mode: str
    columns: tuple[Column, ...]
    earliest_version: int | None
    num_commits: int | None
    checkpoint_versions: tuple[int, ...] | None
    replayed_from: str

    @property
    def table_features(self) -> tuple[str, ...]:
        """Every table feature in force, sorted, as ``DESCRIBE DETAIL`` lists them: those the
        protocol names, or those its legacy versions imply (``appendOnly`` and
        ``invariants`` for writer version 2)."""
        return tuple(sorted(all_features(self.protocol)))

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``detail --json``): DESCRIBE DETAIL's fields first, then the log's."""
        return {
            **camel_json(self, "format", "id", "name", "description", "location"),
            "createdAt": iso(self.created_at),
            "lastModified": iso(self.last_modified),
            "partitionColumns": list(self.partition_columns),
            "clusteringColumns": list(self.clustering_columns),
            **camel_json(self, "num_files", "size_in_bytes"),
            "properties": dict(self.properties),
            **camel_json(self, "min_reader_version", "min_writer_version"),
            "tableFeatures": list(self.table_features),
            **camel_json(self, "version", "num_records"),
            "readerFeatures": list(self.reader_features),
            "writerFeatures": list(self.writer_features),
            "columnMapping": self.column_mapping_mode,
            "columns": [
                {
                    **camel_json(c, "name", "type", "nullable"),
                    "physicalName": ".".join(c.physical_path),
                    "id": c.column_id,
                }
                for c in self.columns
            ],
            **camel_json(self, "earliest_version", "num_commits"),
            "checkpointVersions": None
            if self.checkpoint_versions is None
            else list(self.checkpoint_versions),
        }


def describe_detail(
    log: DeltaLog,
    history: Sequence[HistoryEntry],
    *,
    version: int | None = None,
    whole_log: bool = True,
) -> TableDetail:
    """Describe the table at a version (None: the latest), its last modification time from
    ``history`` (entries including the version's); ``whole_log`` lists the whole log for its
    shape (earliest version, commit count, checkpoints), else those are None.

    Raises:
        VersionNotFound: If the version is not in the log.
        CorruptLog: If the version cannot be reconstructed.
    """
    snap = log.snapshot(version)
    meta, proto = snap.metadata, snap.protocol
    return TableDetail(
        format="delta",  # DESCRIBE DETAIL says delta (metaData.format.provider is parquet)
        id=meta.id,
        name=meta.name,
        description=meta.description,
        location=log.table_root,
        created_at=meta.created_time,
        # a version with only a checkpoint has an entry too, timed by its checkpoint file
        last_modified=next(
            (e.timestamps.history for e in reversed(history) if e.version == snap.version), None
        ),
        version=snap.version,
        partition_columns=meta.partition_columns,
        clustering_columns=clustering_columns(snap),
        num_files=snap.num_files,
        size_in_bytes=snap.size_in_bytes,
        num_records=snap.num_records,
        properties=dict(meta.configuration),
        min_reader_version=proto.min_reader_version,
        min_writer_version=proto.min_writer_version,
        reader_features=tuple(sorted(proto.reader_features or ())),
        writer_features=tuple(sorted(proto.writer_features or ())),
        protocol=proto,
        column_mapping_mode=meta.column_mapping_mode,
        columns=tuple(iter_columns(meta.schema)),
        earliest_version=log.earliest_version if whole_log else None,
        num_commits=len(log.listing.commits) if whole_log else None,
        checkpoint_versions=tuple(sorted(log.listing.checkpoints)) if whole_log else None,
        replayed_from=state_source(log, snap.version),
    )


def table_detail(
    log: DeltaLog,
    settings: Settings,
    *,
    version: int | None = None,
    whole_log: bool = False,
) -> tuple[TableDetail, Compatibility]:
    """The table's detail and engine compatibility at a version (``detail``): its snapshot
    and own commit, nothing older, unless ``whole_log`` asks for the log's shape and how
    engine compatibility changed over it (every commit is read)."""
    history = (
        build_history(log, settings)
        if whole_log
        else history_page(log, settings, limit=1, newest=version)
    )
    return (
        describe_detail(log, history, version=version, whole_log=whole_log),
        describe_compatibility(log, history if whole_log else None, version=version),
    )


def state_source(log: DeltaLog, version: int) -> str:
    """Where a reader starting afresh gets a version's state, e.g. ``checkpoint 10 + commits 11..13``.

    Not ``Snapshot.replayed_from`` (what this process did, from what it had cached), so the
    Overview reads the same whatever was visited before.
    """
    bad = set(log.replay_problems())
    listing = log.listing_at(version)
    commits = listing.commits
    for cp in listing.usable_checkpoints():
        if cp.version <= version and cp.version not in bad:
            if all(v in commits for v in range(cp.version + 1, version + 1)):
                return describe_replay("checkpoint", cp.version, version)
    return describe_replay("empty", -1, version)


def clustering_columns(snap: Snapshot) -> tuple[str, ...]:
    """Liquid-clustering columns by logical (dotted) name, as ``DESCRIBE DETAIL`` shows them.

    The ``delta.clustering`` domain names columns by physical path (column mapping); a
    path the schema no longer has is shown as stored.
    """
    domain = snap.domain_metadata.get(CLUSTERING_DOMAIN)
    if domain is None:
        return ()
    try:
        names = json.loads(domain.configuration).get("clusteringColumns") or []
    except (ValueError, AttributeError):
        return ()
    logical = {c.physical_path: c.name for c in iter_columns(snap.schema)}
    paths = (tuple(n) if isinstance(n, list) else (str(n),) for n in names)
    return tuple(logical.get(p, ".".join(p)) for p in paths)
