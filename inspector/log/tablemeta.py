"""The table's metadata at a version, without its files.

The newest ``metaData`` and ``protocol`` among the commits down to the newest checkpoint,
failing that the checkpoint's two columns alone: a 300,000-file checkpoint's file actions
are never read. Anything unusual goes to the full snapshot, which says what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator

from inspector.delta.actions import Metadata
from inspector.delta.errors import InspectorError, StorageUnavailable
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import ReplayState

_TABLE_ACTIONS = frozenset({"metaData", "protocol"})


def metadata_at(log: DeltaLog, version: int, *, commit: Commit | None = None) -> Metadata:
    """The metadata in force at ``version`` (``commit``: its commit, when read already);
    raises as :meth:`~inspector.log.deltalog.DeltaLog.snapshot`."""
    metadata, protocol = None, None  # the newest of each; a reader needs both
    for read in _newest_first(log, version, commit):
        if read is None:  # the snapshot tries an older base and says what is wrong
            break
        metadata, protocol = metadata or read.metadata, protocol or read.protocol
        if metadata is not None and protocol is not None:
            return metadata
    return log.snapshot(version).metadata


def _newest_first(
    log: DeltaLog, version: int, commit: Commit | None
) -> Iterator[Commit | ReplayState | None]:
    """The commits from ``version`` down to just above the newest checkpoint, then that
    checkpoint's metaData and protocol columns alone (None: a missing or incomplete commit,
    an unreadable checkpoint). The commits are read in batches that double: an object store
    answers a batch at once, and a walk that stops early reads at most twice those it needs."""
    base = log.listing_at(version).newest_checkpoint(version)
    floor = base.version if base is not None else -1
    if commit is not None and version > floor:  # the version's own commit, read already
        yield commit if commit.is_complete else None
        version -= 1
    top, size = version, 1
    while top > floor:
        low = max(floor + 1, top - size + 1)
        log.read_commits(list(range(low, top + 1)))
        for v in range(top, low - 1, -1):
            read = log.commit(v) if log.commit_file(v) is not None else None
            yield read if read is not None and read.is_complete else None
        top, size = low - 1, size * 2
    if base is not None:
        from inspector.log.checkpoint import read_checkpoint_state

        try:
            state = read_checkpoint_state(
                base, log.storage, actions=_TABLE_ACTIONS, index=log.index
            )
        except StorageUnavailable:
            raise
        except InspectorError:
            state = None
        yield state
