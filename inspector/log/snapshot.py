"""The state of a table at one version, reconstructed by log replay.

The live files and the tombstones are Arrow tables (:mod:`inspector.log.columnar`); typed
records are built from them only when asked for, never on a bulk path.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping, ValuesView
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast

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
from inspector.delta.schema import StructType
from inspector.storage import Storage

# pyarrow (and the log modules that import it) is imported where files are replayed or read:
# a command that reads only commits (history) starts without it.
if TYPE_CHECKING:
    import pyarrow as pa


FileKey = tuple[str, "str | None"]
_R = TypeVar("_R", AddFile, RemoveFile)


class FileMap(Mapping[FileKey, _R]):
    """A read-only mapping (path, deletion-vector id) -> typed record over an Arrow table:
    keys and length come from the table; the records are built, all at once, on first use."""

    def __init__(self, kind: str, table: pa.Table) -> None:
        self.kind, self.table = kind, table
        self._records: dict[FileKey, _R] | None = None

    def _all(self) -> dict[FileKey, _R]:
        from inspector.log import columnar

        if self._records is None:
            records = cast(Iterator[_R], columnar.records(self.kind, self.table))
            self._records = dict(zip(columnar.keys(self.table), records, strict=True))
        return self._records

    def __getitem__(self, key: FileKey) -> _R:
        return self._all()[key]

    def __iter__(self) -> Iterator[FileKey]:
        from inspector.log import columnar

        return columnar.keys(self.table)  # the records' keys, in the same order

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def values(self) -> ValuesView[_R]:
        """Every record (built all at once)."""
        return self._all().values()

    def items(self) -> ItemsView[FileKey, _R]:
        """Every (key, record) pair (records built all at once)."""
        return self._all().items()

    def subset(self, keys: Iterable[FileKey]) -> dict[FileKey, _R]:
        """The records of those ``keys`` present, built from their rows only: a change's
        few files looked up in a large state without a record per file of the state."""
        if self._records is not None:
            return {k: self._records[k] for k in keys if k in self._records}
        import pyarrow.compute as pc

        from inspector.log import arrays, columnar

        wanted = set(keys)
        paths = arrays.texts(sorted({path for path, _ in wanted}))
        rows = self.table.filter(pc.is_in(self.table.column("key_path"), value_set=paths))
        found = zip(columnar.keys(rows), columnar.records(self.kind, rows), strict=True)
        return {key: cast(_R, record) for key, record in found if key in wanted}


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """A table version: its active files, metadata, protocol and app transactions.

    ``files_table`` holds the live add actions, one row per (path, deletion-vector id), the
    replay identity; ``tombstones_table`` the remove actions still known at this version.
    """

    table_root: str
    version: int
    metadata: Metadata
    protocol: Protocol
    files_table: pa.Table = field(repr=False, compare=False)
    tombstones_table: pa.Table = field(repr=False, compare=False)
    app_transactions: Mapping[str, Txn] = field(default_factory=dict)
    domain_metadata: Mapping[str, DomainMetadata] = field(default_factory=dict)
    replayed_from: str = ""
    storage: Storage = field(compare=False, repr=False)

    @cached_property
    def files(self) -> FileMap[AddFile]:
        """Live add actions keyed by (path, deletion-vector id)."""
        return FileMap[AddFile]("add", self.files_table)

    @property
    def schema(self) -> StructType:
        """The logical schema at this version."""
        return self.metadata.schema

    @property
    def partition_columns(self) -> tuple[str, ...]:
        """Partition columns at this version."""
        return self.metadata.partition_columns

    @property
    def num_files(self) -> int:
        """Number of live data files."""
        return int(self.files_table.num_rows)

    @property
    def size_in_bytes(self) -> int:
        """Total size of live data files."""
        import pyarrow.compute as pc

        return int(pc.sum(self.files_table.column("size")).as_py() or 0)

    @cached_property
    def num_records(self) -> int | None:
        """Live rows from stats (minus deleted rows), or None when any file lacks stats."""
        import pyarrow.compute as pc

        from inspector.log import columnar

        counts = columnar.num_records(self.files_table.column("stats"))
        if counts.null_count:
            return None
        dv = self.files_table.column("deletionVector").combine_chunks()
        deleted = pc.sum(dv.field("cardinality")).as_py() if len(dv) else 0  # skips nulls
        return int(pc.sum(counts).as_py() or 0) - int(deleted or 0)


@dataclass(kw_only=True)
class ReplayState:
    """Accumulator used while replaying actions; frozen into a Snapshot at the end.

    File actions are kept as Arrow tables, each row with its ``seq`` in log order, and
    reconciled once (:mod:`inspector.log.reconcile`). Small commits' typed file actions wait
    in ``pending`` and become one Arrow table per kind, not one per commit.
    """

    adds: list[pa.Table] = field(default_factory=list)
    removes: list[pa.Table] = field(default_factory=list)
    metadata: Metadata | None = None
    protocol: Protocol | None = None
    txns: dict[str, Any] = field(default_factory=dict[str, Any])
    domains: dict[str, Any] = field(default_factory=dict[str, Any])
    next_seq: int = 0
    pending: list[tuple[int, AddFile | RemoveFile]] = field(default_factory=list)
    _resolved: tuple[pa.Table, pa.Table] | None = None

    @classmethod
    def from_snapshot(cls, snap: Snapshot) -> ReplayState:
        """Start from an earlier snapshot (nothing is copied: its tables are immutable)."""
        state = cls(
            metadata=snap.metadata,
            protocol=snap.protocol,
            txns=dict(snap.app_transactions),
            domains=dict(snap.domain_metadata),
        )
        state.add_files(snap.tombstones_table, "remove")
        state.add_files(snap.files_table, "add")
        return state

    def copy(self) -> ReplayState:
        """An accumulator of its own in the same state (the Arrow tables, immutable, shared)."""
        return replace(
            self,
            adds=[*self.adds],
            removes=[*self.removes],
            pending=[*self.pending],
            txns=dict(self.txns),
            domains=dict(self.domains),
        )

    def add_files(self, table: pa.Table, kind: str, order: pa.Array | None = None) -> None:
        """Append file actions of one source; ``order`` gives their places in it (rows' order
        when None). Actions of a later call always come after those of an earlier one."""
        if not table.num_rows:
            return
        import pyarrow as pa

        from inspector.log import arrays

        self._flush()  # the typed actions before these keep their place in the tables
        if order is None:
            seq, span = arrays.span(self.next_seq, table.num_rows), table.num_rows
        else:
            local = arrays.to_numpy(order.cast(pa.int64()))
            seq, span = arrays.from_numpy(local + self.next_seq), int(local.max()) + 1
        self.next_seq += span
        (self.adds if kind == "add" else self.removes).append(table.append_column("seq", seq))
        self._resolved = None

    def apply(self, actions: Iterable[Action]) -> None:
        """Apply actions in log order, per the spec's reconciliation rules."""
        for action in actions:
            if isinstance(action, AddFile | RemoveFile):
                self.pending.append((self.next_seq, action))
            else:
                self.apply_other(action)
            self.next_seq += 1
        self._resolved = None

    def _flush(self) -> None:
        """Turn the pending typed file actions into Arrow: one table per kind."""
        if not self.pending:
            return
        from inspector.log import arrays, columnar

        for kind, tables in (("add", self.adds), ("remove", self.removes)):
            found = [
                (seq, a) for seq, a in self.pending if isinstance(a, AddFile) == (kind == "add")
            ]
            if found:
                table = columnar.from_records(kind, [a for _, a in found])
                tables.append(table.append_column("seq", arrays.numbers([s for s, _ in found])))
        self.pending = []

    def apply_other(self, action: Action) -> None:
        """Apply one action that is not a file action."""
        if isinstance(action, Metadata):
            self.metadata = action
        elif isinstance(action, Protocol):
            self.protocol = action
        elif isinstance(action, Txn):
            self.txns[action.app_id] = action
        elif isinstance(action, DomainMetadata) and action.removed:
            self.domains.pop(action.domain, None)
        elif isinstance(action, DomainMetadata):
            self.domains[action.domain] = action

    def resolve(self) -> tuple[pa.Table, pa.Table]:
        """The live files and the tombstones: for each identity, its newest action."""
        if self._resolved is None:
            from inspector.log.reconcile import reconcile

            self._flush()
            self._resolved = reconcile(self.adds, self.removes)
        return self._resolved

    def freeze(
        self, table_root: str, version: int, replayed_from: str, storage: Storage
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
        live, tombstones = self.resolve()
        return Snapshot(
            table_root=table_root,
            version=version,
            metadata=metadata,
            protocol=protocol,
            files_table=live,
            tombstones_table=tombstones,
            app_transactions=self.txns,
            domain_metadata=self.domains,
            replayed_from=replayed_from,
            storage=storage,
        )


def describe_replay(origin: str, base: int, version: int) -> str:
    """How a version was rebuilt from a base (``origin``: ``snapshot``, a cached version,
    ``checkpoint`` or ``empty``): ``checkpoint 10 + commits 11..13``, say."""
    start = {
        "snapshot": f"cached version {base}",
        "checkpoint": f"checkpoint {base}",
        "empty": "the empty table",
    }[origin]
    if base == version:
        return start
    commits = f"commits {base + 1}..{version}" if base + 1 < version else f"commit {version}"
    return f"{start} + {commits}"
