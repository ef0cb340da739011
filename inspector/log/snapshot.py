"""The state of a table at one version, reconstructed by log replay."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from inspector.delta.actions import (
    Action,
    AddFile,
    DomainMetadata,
    Metadata,
    Protocol,
    RemoveFile,
    Txn,
)
from inspector.delta.errors import CorruptLog
from inspector.delta.paths import data_file_path
from inspector.delta.schema import StructType
from inspector.storage import LocalStorage, Storage

FileKey = tuple[str, "str | None"]


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """A table version: its active files, metadata, protocol and app transactions.

    ``files`` holds the live add actions keyed by (path, deletion-vector id), the
    identity the Delta protocol uses for log replay. ``tombstones`` holds the
    remove actions still known at this version.
    """

    table_root: str
    version: int
    metadata: Metadata
    protocol: Protocol
    files: Mapping[FileKey, AddFile]
    tombstones: Mapping[FileKey, RemoveFile] = field(default_factory=dict, repr=False)
    app_transactions: Mapping[str, Txn] = field(default_factory=dict)
    domain_metadata: Mapping[str, DomainMetadata] = field(default_factory=dict)
    replayed_from: str = ""
    storage: Storage | None = field(default=None, compare=False, repr=False)

    @property
    def store(self) -> Storage:
        """Where the table's files are read from (a local folder when none was given)."""
        return self.storage if self.storage is not None else LocalStorage(self.table_root)

    @property
    def schema(self) -> StructType:
        """The logical schema at this version."""
        return self.metadata.schema

    @property
    def partition_columns(self) -> tuple[str, ...]:
        """Partition columns at this version."""
        return self.metadata.partition_columns

    @property
    def add_files(self) -> list[AddFile]:
        """Live add actions sorted by path."""
        return sorted(self.files.values(), key=lambda a: a.path)

    @property
    def num_files(self) -> int:
        """Number of live data files."""
        return len(self.files)

    @property
    def size_in_bytes(self) -> int:
        """Total size of live data files."""
        return sum(a.size for a in self.files.values())

    @property
    def num_records(self) -> int | None:
        """Live rows from stats (minus deleted rows), or None when any file lacks stats."""
        counts = [a.num_live_records for a in self.files.values()]
        known = [c for c in counts if c is not None]
        return None if len(known) < len(counts) else sum(known)

    def data_path(self, add: AddFile) -> str:
        """Absolute local path of a live file."""
        return data_file_path(self.table_root, add.path)


@dataclass(kw_only=True)
class ReplayState:
    """Mutable accumulator used while replaying actions; frozen into a Snapshot at the end."""

    files: dict = field(default_factory=dict)
    tombstones: dict = field(default_factory=dict)
    metadata: Metadata | None = None
    protocol: Protocol | None = None
    txns: dict = field(default_factory=dict)
    domains: dict = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snap: Snapshot) -> ReplayState:
        """Start from an earlier snapshot (copies, so the snapshot stays immutable)."""
        return cls(
            files=dict(snap.files),
            tombstones=dict(snap.tombstones),
            metadata=snap.metadata,
            protocol=snap.protocol,
            txns=dict(snap.app_transactions),
            domains=dict(snap.domain_metadata),
        )

    def apply(self, actions: Iterable[Action]) -> None:
        """Apply actions in log order, per the spec's reconciliation rules."""
        for action in actions:
            if isinstance(action, AddFile):
                self.files[action.key] = action
                self.tombstones.pop(action.key, None)
            elif isinstance(action, RemoveFile):
                self.files.pop(action.key, None)
                self.tombstones[action.key] = action
            elif isinstance(action, Metadata):
                self.metadata = action
            elif isinstance(action, Protocol):
                self.protocol = action
            elif isinstance(action, Txn):
                self.txns[action.app_id] = action
            elif isinstance(action, DomainMetadata):
                self._apply_domain(action)

    def _apply_domain(self, action: DomainMetadata) -> None:
        if action.removed:
            self.domains.pop(action.domain, None)
        else:
            self.domains[action.domain] = action

    def freeze(
        self, table_root: str, version: int, replayed_from: str, storage: Storage | None = None
    ) -> Snapshot:
        """Turn the state into a Snapshot.

        Raises:
            CorruptLog: If no metaData or protocol action was seen.
        """
        metadata, protocol = self.metadata, self.protocol
        if metadata is None or protocol is None:
            missing = [n for n, v in (("metaData", metadata), ("protocol", protocol)) if v is None]
            raise CorruptLog(
                f"Version {version} has no {' or '.join(missing)} action in its log; "
                "the table's state cannot be determined.",
                "The log is incomplete or was not written by a Delta writer; "
                "restore _delta_log from a backup.",
            )
        return Snapshot(
            table_root=table_root,
            version=version,
            metadata=metadata,
            protocol=protocol,
            files=self.files,
            tombstones=self.tombstones,
            app_transactions=self.txns,
            domain_metadata=self.domains,
            replayed_from=replayed_from,
            storage=storage,
        )
