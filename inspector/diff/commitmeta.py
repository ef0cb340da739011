"""What one commit changed in the table's metaData and protocol, from the log.

A commit's ``metaData`` or ``protocol`` action is compared with the state of the version
before it. That state may be unknown (the version cannot be reconstructed), and the
commit may carry only one of the two actions (the other is the one in force). The rule
for both is here, once: :func:`commit_metadata_change`.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.delta.actions import Metadata, Protocol
from inspector.delta.errors import InspectorError
from inspector.diff.metadiff import MetadataDiff, diff_metadata
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog

State = tuple[Metadata, Protocol]


@dataclass(frozen=True, kw_only=True)
class CommitMetadataChange:
    """What a commit changed in metaData and protocol.

    Attributes:
        version: The commit's version.
        diff: The change against the version before (everything, when that is unknown
            or the commit creates the table); None when the state at this version
            cannot be determined (the commit's actions are then all there is).
        creates: Nothing is compared against: the commit creates the table, or the
            version before cannot be reconstructed.
        before_unknown: Why the version before cannot be reconstructed, or None.
    """

    version: int
    diff: MetadataDiff | None
    creates: bool
    before_unknown: str | None = None


def commit_metadata_change(log: DeltaLog, commit: Commit) -> CommitMetadataChange | None:
    """The metaData/protocol change of ``commit``, or None when it carries neither action.

    Args:
        log: The table's log.
        commit: One of its commits.
    """
    if commit.metadata is None and commit.protocol is None:
        return None
    before: State | None = None
    unknown = None  # version 0 has no version before it, and needs no reason
    if commit.version > 0:
        try:
            prev = log.snapshot(commit.version - 1)
            before = (prev.metadata, prev.protocol)
        except InspectorError as exc:
            unknown = f"Version {commit.version - 1} cannot be reconstructed ({exc.message})"
    after = _state_after(log, commit, before)
    return CommitMetadataChange(
        version=commit.version,
        diff=None if after is None else diff_metadata(before, after),
        creates=before is None,
        before_unknown=unknown,
    )


def _state_after(log: DeltaLog, commit: Commit, before: State | None) -> State | None:
    """The (metaData, protocol) in force after ``commit``, or None when it cannot be known.

    An action the commit does not carry is the one before it; failing that, the
    snapshot at the commit's version says.
    """
    meta = commit.metadata or (before[0] if before else None)
    proto = commit.protocol or (before[1] if before else None)
    if meta is None or proto is None:
        try:
            snap = log.snapshot(commit.version)
        except InspectorError:
            return None
        meta, proto = meta or snap.metadata, proto or snap.protocol
    return meta, proto
