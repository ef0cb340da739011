"""The whole log's commits read in bulk for a history, each with its row figures.

A history needs of a commit its other actions (commitInfo, metaData, protocol), and of its
add and remove actions only counts and row figures. So a slice of commit files is read at
once: the other lines parsed by orjson into typed actions, the add and remove lines of the
whole slice by Arrow's JSON reader (as a big commit's, :mod:`inspector.log.bigcommit`),
with no typed record per file. Anything unusual in a file (blank lines, a line that does
not parse, a big commit) sends it, or the slice when Arrow refuses it, to the one commit
parser (:func:`~inspector.log.commit.parse_commit`), which says what is wrong line by line.

A commit that only adds files is answered from its writer's metrics, its add lines counted,
not parsed (:mod:`inspector.table.history_taken`).
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.delta.actions import Action, CommitInfo
from inspector.log.bigcommit import COLUMNAR_FROM, FILE_START, read_file_lines
from inspector.log.commit import (
    Commit,
    FileSummary,
    json_lines,
    known_sum,
    parse_commit,
)
from inspector.log.deltalog import DeltaLog
from inspector.log.index import Fetched
from inspector.log.listing import LogFile
from inspector.log.snapshot import FileKey
from inspector.table.history_taken import NO_CHANGE, RECORDS, REMOVE, Taken, typed_actions
from inspector.table.rowcounts import LiveBefore, dv_rows, looked_up, num_records
from inspector.table.rowrule import FileFigures, RowChange, change_from, change_of

if TYPE_CHECKING:  # pyarrow is imported where a slice's file actions are read
    import pyarrow as pa

SLICE = 1024  # commit files read and parsed together


@dataclass(frozen=True, kw_only=True)
class _Split:
    """A commit file split for the bulk read: its other actions parsed, its file lines raw."""

    version: int
    file: LogFile
    data: bytes
    parsed: tuple[Action, ...]
    file_lines: list[bytes]


@dataclass(frozen=True, kw_only=True)
class _Files:
    """A counted commit's add and remove actions as the row rule takes them, and their
    changes to the live files in file order (key, live records; None: removed)."""

    adds: Sequence[FileFigures] = ()
    removes: Sequence[FileFigures] = ()
    events: Sequence[tuple[FileKey, int | None]] = ()


def scan_commits(
    log: DeltaLog, versions: list[int], *, size: int = SLICE
) -> Iterator[tuple[Commit, RowChange]]:
    """The commits of the listed versions (ascending; those without a commit file left out)
    with their row figures, ``size`` files read together: what ``rows_along(log,
    log.stream_commits(versions))`` gives, a commit read in bulk ``counted`` (its file
    actions not kept)."""
    live = LiveBefore(log)
    listed = [(v, f) for v in versions if (f := log.commit_file(v)) is not None]
    # To the tracker of live files, a commit taken from its metrics is a gap: the files live
    # after it come from the snapshot, read when a remove looks one up. So that this happens
    # at most once, no commit is taken after a slice where it happened.
    trusted, metrics = False, True  # a commit was taken; commits may be taken
    taken = Taken()
    for start in range(0, len(listed), size):
        part = listed[start : start + size]
        read, lookups = _read_slice(log, part, metrics=taken if metrics else None)
        for commit, files in read:
            if isinstance(files, RowChange):
                trusted = True
                yield commit, files
                continue
            live.start(commit.version)
            if files is None:
                live.prefetch(looked_up(commit))
                yield commit, _change(commit, live)
                live.apply(commit)
                continue
            if files.removes:
                live.prefetch(f.key for f in files.removes if f.data_change and f.records is None)
            yield commit, change_from(commit.commit_info, files.adds, files.removes, live)
            live.changed(files.events)
        metrics = metrics and not (lookups and trusted)


def _change(commit: Commit, live: LiveBefore) -> RowChange:
    """A parsed commit's row figures (:func:`change_of`); a big one's that removes files (or
    adds none, so that it is never counted from its adds alone) from its columns, as a
    counted commit's are, with no typed record per file."""
    columns = commit.columns
    if columns is None or (columns.adds.num_rows and not columns.removes.num_rows):
        return change_of(commit, live)
    adds, removes = _figures(columns.adds), _figures(columns.removes)
    return change_from(commit.commit_info, adds, removes, live)


def _read_slice(
    log: DeltaLog, part: list[tuple[int, LogFile]], *, metrics: Taken | None
) -> tuple[list[tuple[Commit, _Files | RowChange | None]], bool]:
    """A slice's commits in order: counted ones with their files, those taken from their
    metrics (None: none may be) with their rows, parsed ones with None; and whether a remove
    in the slice may look up the files live before it (then only big commits before the
    first such are taken)."""
    cached = {v: c for v, _ in part if (c := log.cached_commit(v)) is not None}
    todo = [(v, f) for v, f in part if v not in cached]
    # Bytes, a big commit's too: one that only adds files is taken from its metrics, and
    # parsing it to keep it parsed in the index would cost what that spares.
    contents: Sequence[Fetched] = log.read_commit_files([f for _, f in todo])
    done: dict[int, tuple[Commit, _Files | RowChange | None]]
    done = {v: (c, None) for v, c in cached.items()}
    splits = split_slice(todo, contents)
    big: dict[int, tuple[Commit, RowChange]] = {}  # big commits taken from their metrics
    for (version, file), data in zip(todo, contents, strict=True):
        if (
            metrics is not None
            and version not in splits
            and (found := metrics.big(version, file, data))
        ):
            big[version] = found
        elif version not in splits:
            done[version] = (parse_commit(version, file, data), None)
    first = _first_lookup([c for c, _ in done.values()], splits.values())
    for (version, file), data in zip(todo, contents, strict=True):
        if version in big and version > first:  # parsed after all: an older remove looks up
            done[version] = (parse_commit(version, file, data), None)
        elif version in big:
            done[version] = big[version]
    # A remove that looks up files after a commit taken from its metrics reads a snapshot
    # (a checkpoint and the commits after it): worth it to skip a big commit's parse only.
    if metrics is not None and first == sys.maxsize:
        for split in splits.values():
            found = metrics.lines(split.version, split.file, split.parsed, split.file_lines)
            if found is not None:
                done[split.version] = found
    counted = _counted([s for s in splits.values() if s.version not in done])
    _release_arrow_memory()
    for split in splits.values() if counted is None else ():
        if split.version not in done:
            done[split.version] = (parse_commit(split.version, split.file, split.data), None)
    done.update(counted or {})
    return [done[v] for v, _ in part], first < sys.maxsize


def _first_lookup(parsed: list[Commit], splits: Iterable[_Split]) -> int:
    """The first version of a slice with a remove that may look up the files live before it
    (one that changes data without its own ``numRecords``); ``sys.maxsize`` for none."""
    found = [c.version for c in parsed if next(looked_up(c), None) is not None]
    found += [s.version for s in splits if any(map(_unrecorded_remove, s.file_lines))]
    return min(found, default=sys.maxsize)


def split_slice(todo: list[tuple[int, LogFile]], contents: Sequence[Fetched]) -> dict[int, _Split]:
    """The files of a slice fit for the bulk read, split; their other lines are parsed in one
    orjson call (file by file when that call fails, so that only the bad files are left out).
    The history's and the health check's trace's bulk read."""
    lined: list[tuple[int, LogFile, bytes, list[bytes], list[bytes]]] = []
    for (version, file), data in zip(todo, contents, strict=True):
        if isinstance(data, bytes) and (found := split_lines(data)) is not None:
            lined.append((version, file, data, found[0], found[1]))
    others = [line for *_, lines, _ in lined for line in lines]
    every = json_lines(others)
    out: dict[int, _Split] = {}
    at = 0
    for version, file, data, lines, files in lined:
        objects = json_lines(lines) if every is None else every[at : at + len(lines)]
        at += len(lines)
        parsed = None if objects is None else typed_actions(objects)
        if parsed is not None:
            out[version] = _Split(
                version=version, file=file, data=data, parsed=parsed, file_lines=files
            )
    return out


def split_lines(data: bytes) -> tuple[list[bytes], list[bytes]] | None:
    """A commit file's lines: the other actions' and the add and remove lines; None for
    anything the one commit parser must see (blank lines, a big commit)."""
    if len(data) >= COLUMNAR_FROM:
        return None
    if b"\r" in data or b"\n\n" in data or data[:1] in (b"", b"\n"):
        return None
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    others: list[bytes] = []
    files: list[bytes] = []
    for line in lines:
        (files if line.startswith(FILE_START) else others).append(line)
    return others, files


def _counted(splits: list[_Split]) -> dict[int, tuple[Commit, _Files | None]] | None:
    """The split commits counted, their file lines read together; None when Arrow refuses."""
    n = len(splits)
    owners = [i for i, s in enumerate(splits) for _ in s.file_lines]
    adds = removes = _Kind.none(n)
    if owners:
        files = read_file_lines(b"\n".join(line for s in splits for line in s.file_lines))
        if files is None:
            return None
        adds = _Kind.read(files.adds, files.add_lines.to_pylist(), owners, n)
        removes = _Kind.read(files.removes, files.remove_lines.to_pylist(), owners, n)
    out: dict[int, tuple[Commit, _Files | None]] = {}
    for i, split in enumerate(splits):
        added, add_sizes, add_records, add_lines = adds.part(i)
        removed, remove_sizes, remove_records, remove_lines = removes.part(i)
        summary = FileSummary.of(
            ((f.path, s) for f, s in zip(added, add_sizes, strict=True)),
            ((f.path, s) for f, s in zip(removed, remove_sizes, strict=True)),
            added_records=known_sum(add_records),
            removed_records=known_sum(remove_records),
        )
        info = next((a for a in split.parsed if isinstance(a, CommitInfo)), None)
        if info is not None:  # the writer's file metrics first, as Commit.file_summary
            summary = summary.with_metrics(info.operation_metrics)
        commit = Commit(
            version=split.version, file=split.file, parsed=split.parsed, counted=summary
        )
        events = _events(added, add_lines, removed, remove_lines)
        out[split.version] = (commit, _Files(adds=added, removes=removed, events=events))
    return out


def _events(
    added: list[FileFigures],
    add_lines: list[int],
    removed: list[FileFigures],
    remove_lines: list[int],
) -> list[tuple[FileKey, int | None]]:
    """A commit's changes to the live files, in file order (a later action on a key wins)."""
    if not (added and removed):
        return [(f.key, f.live) for f in added] + [(f.key, None) for f in removed]
    placed: list[tuple[int, FileKey, int | None]] = [
        *((at, f.key, f.live) for at, f in zip(add_lines, added, strict=True)),
        *((at, f.key, None) for at, f in zip(remove_lines, removed, strict=True)),
    ]
    placed.sort(key=lambda e: e[0])
    return [(key, live) for _, key, live in placed]


@dataclass(frozen=True, kw_only=True)
class _Kind:
    """One kind of file action of a slice in file order: figures, sizes, line numbers, and
    where each commit's rows start (``starts[i]`` to ``starts[i + 1]``)."""

    figures: list[FileFigures]
    sizes: list[int]
    records: list[int | None]
    lines: list[int]
    starts: list[int]

    @classmethod
    def none(cls, n: int) -> _Kind:
        """No actions of this kind in a slice of ``n`` commits."""
        return cls(figures=[], sizes=[], records=[], lines=[], starts=[0] * (n + 1))

    @classmethod
    def read(cls, table: pa.Table, lines: list[int], owners: list[int], n: int) -> _Kind:
        """From the slice's Arrow table of this kind, its rows' line numbers and the commit
        (index in the slice) of each line."""
        figures = _figures(table)
        records = [f.records for f in figures]
        sizes = [s or 0 for s in table.column("size").to_pylist()]
        rows_owner = [owners[at] for at in lines]
        starts = [bisect.bisect_left(rows_owner, i) for i in range(n + 1)]
        return cls(figures=figures, sizes=sizes, records=records, lines=lines, starts=starts)

    def part(self, i: int) -> tuple[list[FileFigures], list[int], list[int | None], list[int]]:
        """The figures, sizes, records and line numbers of commit ``i``'s actions of this kind."""
        lo, hi = self.starts[i], self.starts[i + 1]
        return self.figures[lo:hi], self.sizes[lo:hi], self.records[lo:hi], self.lines[lo:hi]


def _figures(table: pa.Table) -> list[FileFigures]:
    """The row rule's figures of each row of a ``columnar`` add or remove table, in order."""
    from inspector.log import columnar

    changes = [c is not False for c in table.column("dataChange").to_pylist()]
    return [
        FileFigures(path=p, key=k, data_change=c, records=r, dv_rows=d)
        for p, k, c, r, d in zip(
            table.column("path").to_pylist(),
            columnar.keys(table),
            changes,
            num_records(table),
            dv_rows(table),
            strict=True,
        )
    ]


def _release_arrow_memory() -> None:
    """Hand the memory Arrow freed back to the system (its allocator keeps it otherwise: a
    history's peak would hold every slice's read buffers)."""
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()


def _unrecorded_remove(line: bytes) -> bool:
    """Whether a commit's line is a remove that may change data without its own
    ``numRecords`` (the row rule then looks up the file it removes)."""
    return line.startswith(REMOVE) and RECORDS not in line and NO_CHANGE not in line
