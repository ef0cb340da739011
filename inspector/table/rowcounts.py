"""Row figures over the log: one commit, the commits between two versions, every commit.

Each commit's figures come from the one row rule (:mod:`inspector.table.rowrule`); this
module tracks which files were live before each commit (for the rows a removed file took
with it; a big commit's files stay Arrow columns, never one record per file) and sums
commits for a range.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InspectorError
from inspector.log.bigcommit import CommitFiles
from inspector.log.commit import Commit, known_sum
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey
from inspector.table.rowrule import RowChange, RowSource, change_of

if TYPE_CHECKING:  # pyarrow is imported where columns are read: small logs never need it
    import pyarrow as pa


@dataclass(frozen=True, kw_only=True)
class RowsBetween:
    """Row figures between two versions: per commit (ascending) and summed."""

    from_version: int
    to_version: int
    by_commit: tuple[tuple[int, RowChange], ...]
    total: RowChange


def commit_rows(log: DeltaLog, version: int) -> RowChange:
    """The row figures of one commit (VersionNotFound if it has no commit file)."""
    return next(rows_along(log, iter([log.commit(version)])))[1]


def rows_between(log: DeltaLog, from_version: int, to_version: int) -> RowsBetween:
    """The row figures of the commits between two versions; from a newer version to an older
    one, added and removed swap (as in the file diff).

    Raises:
        VersionNotFound: If a commit in between is missing.
    """
    lo, hi = sorted((from_version, to_version))
    commits = (log.commit(version) for version in range(lo + 1, hi + 1))
    per_commit = [(commit.version, change) for commit, change in rows_along(log, commits)]
    total = _sum([c for _, c in per_commit])
    if from_version > to_version:
        total = _backwards(total)
    return RowsBetween(
        from_version=from_version,
        to_version=to_version,
        by_commit=tuple(per_commit),
        total=total,
    )


def rows_along(log: DeltaLog, commits: Iterator[Commit]) -> Iterator[tuple[Commit, RowChange]]:
    """Each commit with its figures, tracking the files live before it as it goes (one
    commit at a time: a stream of the log is never held whole)."""
    live = LiveBefore(log)
    for commit in commits:
        live.start(commit.version)
        live.prefetch(looked_up(commit))
        yield commit, change_of(commit, live)
        live.apply(commit)


class LiveBefore:
    """The live records of the files live just before each commit, tracked along the log.

    Call :meth:`start` before each commit and :meth:`apply` (or :meth:`changed`) after it;
    look a key up by calling the tracker, after :meth:`prefetch` of the commit's keys. Older
    files than the last jump's come from the snapshot before it, read on first lookup only.
    """

    def __init__(self, log: DeltaLog) -> None:
        self._log = log
        self._previous: int | None = None
        self._overlay: dict[FileKey, int | None] = {}  # since the newest layer; None: removed
        self._layers: list[dict[FileKey, int | None] | ColumnFiles] = []
        self._base: ColumnFiles | None = None  # the snapshot before the last jump's files
        self._base_version: int | None = None  # None: read (or nothing to read)

    def start(self, version: int) -> None:
        """Before the commit of ``version``: after a gap, start over from the snapshot."""
        if self._previous is None or version != self._previous + 1:
            self._overlay, self._layers = {}, []
            self._base, self._base_version = None, version - 1 if version > 0 else None
        self._previous = version

    def prefetch(self, keys: Iterable[FileKey]) -> None:
        """Look up together the keys a commit will ask for (in the big commits' columns, and
        those none of the commits since the snapshot holds, in the snapshot's)."""
        wanted = list(keys)
        for layer in self._newest_first():
            if isinstance(layer, ColumnFiles):
                layer.resolve(wanted)
            wanted = [k for k in wanted if not _find(layer, k)[0]]
            if not wanted:
                return

    def __call__(self, key: FileKey) -> int | None:
        for layer in self._newest_first():
            found, live = _find(layer, key)
            if found:
                return live
        return None

    def _newest_first(self) -> Iterator[dict[FileKey, int | None] | ColumnFiles]:
        """The changes since the last jump, newest first, then the snapshot before it."""
        yield self._overlay
        yield from reversed(self._layers)
        if (base := self._snapshot_files()) is not None:
            yield base

    def apply(self, commit: Commit) -> None:
        """After a commit: what it added and removed (a big commit's kept as columns)."""
        if commit.columns is not None:
            self._layers += [self._overlay, ColumnFiles(commit.columns)]
            self._overlay = {}
            return
        for action in commit.actions:
            if isinstance(action, AddFile):
                self._overlay[action.key] = action.num_live_records
            elif isinstance(action, RemoveFile):
                self._overlay[action.key] = None

    def changed(self, events: Iterable[tuple[FileKey, int | None]]) -> None:
        """Files that became live with their live records (None: unknown), or stopped
        being live (None), in file order."""
        self._overlay.update(events)

    def _snapshot_files(self) -> ColumnFiles | None:
        """The files live before the last jump, from its snapshot, read on first use (None
        before version 0, or when a gap or damage leaves the removes unknown)."""
        if self._base_version is not None:
            version, self._base_version = self._base_version, None
            try:
                self._base = ColumnFiles.live(self._log.snapshot(version).files_table)
            except InspectorError:  # a gap or damage before the commit: removes stay unknown
                pass
        return self._base


def _find(layer: dict[FileKey, int | None] | ColumnFiles, key: FileKey) -> tuple[bool, int | None]:
    return layer.find(key) if isinstance(layer, ColumnFiles) else (key in layer, layer.get(key))


def looked_up(commit: Commit) -> Iterator[FileKey]:
    """The keys the row rule may look up for a commit: removes without their own records."""
    if commit.counted is not None:
        return iter(())
    if commit.columns is not None:  # no typed records for a big commit
        return unrecorded_removes(commit.columns.removes)
    return (r.key for r in commit.removes if r.data_change and r.num_records is None)


def _sum(changes: Iterable[RowChange]) -> RowChange:
    items = list(changes)
    if len(items) == 1:
        return items[0]
    if not items:
        return RowChange.no_change("no commits in between", commits=0)
    sources: set[RowSource] = {c.source for c in items if c.source is not RowSource.NO_DATA_CHANGE}
    sources = sources or {RowSource.NO_DATA_CHANGE}
    return RowChange(
        added=known_sum([c.added for c in items]),
        removed=known_sum([c.removed for c in items]),
        updated=known_sum([c.updated for c in items]),
        net=known_sum([c.net for c in items]),
        source=sources.pop() if len(sources) == 1 else RowSource.METRICS_AND_FILE_STATS,
        exact=False,
        note=(
            f"sum over {len(items)} commits, from {_sources_text(items)}; a row added and "
            "removed again counts on both sides"
        ),
        commits=len(items),
    )


def _sources_text(items: list[RowChange]) -> str:
    used = {c.source for c in items}
    metrics = used & {RowSource.OPERATION_METRICS, RowSource.METRICS_AND_FILE_STATS}
    stats = used & {RowSource.FILE_STATS, RowSource.METRICS_AND_FILE_STATS}
    parts = (["operation metrics"] if metrics else []) + (["file stats"] if stats else [])
    estimates = sum(1 for c in items if not c.exact)
    text = " and ".join(parts) or "no data change"
    return text + (f" ({estimates} of them estimates)" if estimates else "")


def _backwards(change: RowChange) -> RowChange:
    return replace(
        change,
        added=change.removed,
        removed=change.added,
        net=None if change.net is None else -change.net,
        note=change.note + " (backwards: added and removed are swapped)",
    )


def why_they_differ(
    total: RowChange, *, added: int, removed: int, changed: int | None
) -> str | None:
    """The one sentence the Diff page shows on why the log's figures between two versions
    (``total``) differ from a row diff's (rows or keys added and removed, and keys
    ``changed`` by a keyed diff, else None); None when they agree."""
    if changed is None:
        logged: tuple[int | None, ...] = (total.added, total.removed)
        compared: tuple[int | None, ...] = (added, removed)
    else:
        logged, compared = (total.inserted, total.deleted, total.updated), (added, removed, changed)
    if logged == compared:
        return None
    how = "by key, each key once" if changed is not None else "row by row, each row once"
    return (
        "They differ because the log's figures add up what each commit did (a row inserted "
        "then deleted, or updated twice, counts every time; an update counts on both sides "
        "unless keyed), while the Rows tab compares the two versions' rows " + how + "."
    )


def num_records(table: pa.Table) -> list[int | None]:
    """``numRecords`` of each row's stats (None where absent or unreadable), by the log's one
    vectorised reading (:func:`inspector.log.columnar.num_records`)."""
    from inspector.log import columnar

    return list(columnar.num_records(table.column("stats")).to_pylist())


def dv_rows(table: pa.Table) -> list[int]:
    """The rows each row's deletion vector marks deleted (0 without one)."""
    import pyarrow.compute as pc

    dv = table.column("deletionVector").combine_chunks()
    if dv.null_count == len(dv):
        return [0] * len(dv)
    cardinality = pc.if_else(dv.is_valid(), pc.struct_field(dv, "cardinality"), 0)
    return [v or 0 for v in cardinality.to_pylist()]


def unrecorded_removes(removes: pa.Table) -> Iterator[FileKey]:
    """The keys of the data-changing removes that carry no ``numRecords`` of their own."""
    from inspector.log import columnar

    if not removes.num_rows:
        return iter(())
    changes = removes.column("dataChange").to_pylist()
    return (
        key
        for key, records, change in zip(
            columnar.keys(removes), num_records(removes), changes, strict=True
        )
        if records is None and change is not False
    )


class ColumnFiles:
    """A big commit's added and removed files, looked up by key a batch at a time
    (:meth:`resolve`, then :meth:`find`): only the rows asked for become Python values."""

    def __init__(self, files: CommitFiles) -> None:
        self._files = files
        self._asked: set[FileKey] = set()
        self._found: dict[FileKey, int | None] = {}  # live records; None: removed

    @classmethod
    def live(cls, files: pa.Table) -> ColumnFiles:
        """The files live at a version (a snapshot's ``files_table``), as if added by one commit."""
        from inspector.log import arrays

        lines = arrays.span(0, files.num_rows)
        return cls(
            CommitFiles(
                adds=files,
                removes=files.slice(0, 0),
                add_lines=lines,
                remove_lines=arrays.span(0, 0),
                other_lines=(),
            )
        )

    def resolve(self, keys: Iterable[FileKey]) -> None:
        """Look the keys up together (those asked before are not looked up again)."""
        import pyarrow.compute as pc

        from inspector.log import arrays, columnar

        todo = set(keys) - self._asked
        if not todo:
            return
        self._asked |= todo
        paths = arrays.texts(sorted({path for path, _ in todo}))  # pa.array imports pandas
        events: list[tuple[int, FileKey, int | None]] = []
        for kind, table, lines in self._files.by_kind():
            if not table.num_rows:
                continue
            mask = pc.is_in(table.column("key_path"), value_set=paths)  # no copy of the paths
            if not pc.any(mask).as_py():
                continue
            part = table.filter(mask)
            lives: list[int | None] = [None] * part.num_rows
            if kind == "add":  # records minus those the deletion vector marks deleted
                lives = [
                    None if n is None else n - d
                    for n, d in zip(num_records(part), dv_rows(part), strict=True)
                ]
            at = lines.filter(mask.combine_chunks()).to_pylist()
            events += zip(at, columnar.keys(part), lives, strict=True)
        events.sort(key=lambda e: e[0])  # file order: a later action on the same key wins
        self._found.update((key, live) for _, key, live in events if key in todo)

    def find(self, key: FileKey) -> tuple[bool, int | None]:
        """Whether the commit added or removed the key, and the live records it left."""
        self.resolve((key,))
        return key in self._found, self._found.get(key)
