"""Facts a restore plan states: the name to confirm, the domains Delta's RESTORE writes,
the partitions touched and the live rows of the files re-added or removed."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.delta.actions import AddFile
from inspector.delta.properties import CLUSTERING_DOMAIN
from inspector.delta.protocol import writer_features
from inspector.log.snapshot import Snapshot

_EMPTY_CLUSTERING = '{"clusteringColumns":[]}'


def table_name(snapshot: Snapshot) -> str:
    """The name an operator types to confirm: the metadata name, else the folder's name."""
    return snapshot.metadata.name or os.path.basename(snapshot.table_root.rstrip(os.sep))


def restore_domains(current: Snapshot, target: Snapshot) -> tuple[Mapping[str, Any], ...]:
    """Domain metadata the restore writes, following Delta's RESTORE.

    Delta keeps every domain as it is now, except ``delta.clustering`` (when the
    table has one): it is set to the target's clustering columns, or to none when
    the target was not clustered.
    """
    if CLUSTERING_DOMAIN not in current.domain_metadata:
        return ()
    found = target.domain_metadata.get(CLUSTERING_DOMAIN)
    clustered = found is not None and "clustering" in writer_features(target.protocol)
    config = found.configuration if found is not None and clustered else _EMPTY_CLUSTERING
    return ({"domain": CLUSTERING_DOMAIN, "configuration": config, "removed": False},)


def partitions_of(files: Sequence[AddFile]) -> list[Mapping[str, str | None]]:
    """The distinct partition values of some files, in a stable order."""
    seen = {
        json.dumps(dict(a.partition_values), sort_keys=True): dict(a.partition_values)
        for a in files
        if a.partition_values
    }
    return [seen[k] for k in sorted(seen)]


def live_rows(files: Sequence[AddFile]) -> int | None:
    """The live rows of some files, or None when any file's count is unknown."""
    counts = [a.num_live_records for a in files]
    known = [c for c in counts if c is not None]
    return None if len(known) < len(counts) else sum(known)
