"""Which retained versions reference which physical files, from one forward pass over the log.

A file (data file plus its deletion-vector file) is live over a run of versions:
from the commit that adds it to the one before the commit that removes it. Knowing
these spans answers "which versions does losing this file break?" for any set of
files in O(spans + versions), without rebuilding every snapshot: what VACUUM's
planner and the replica check ask.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InspectorError
from inspector.files.filecheck import FileRole, judge_size
from inspector.files.tablefiles import relative_path
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey


@dataclass(frozen=True, kw_only=True)
class FileSpan:
    """One live file and the versions that reference it.

    Attributes:
        add: The add action that made it live.
        data_path: The data file relative to the table root (None when it lies
            outside the table folder).
        dv_path: The deletion-vector file likewise, None when there is none on disk.
        first: The first version that references it.
        last: The last version that references it (inclusive).
    """

    add: AddFile
    data_path: str | None
    dv_path: str | None
    first: int
    last: int

    @property
    def paths(self) -> tuple[str, ...]:
        """Its physical files inside the table folder."""
        return tuple(p for p in (self.data_path, self.dv_path) if p is not None)


@dataclass(frozen=True, kw_only=True)
class Reference:
    """What the retained versions need of one physical file.

    Attributes:
        version: The first version that references it.
        size: The size it must have (at least, for a deletion vector).
        role: A data file or a deletion-vector file.
    """

    version: int
    size: int
    role: FileRole

    def usable(self, path: str, size: int | None) -> bool:
        """Whether a file of this size (None: missing) can serve, by the shared rule."""
        return judge_size("", size, path=path, role=self.role, expected_size=self.size) is None


@dataclass(frozen=True, kw_only=True)
class VersionSpans:
    """Every retained version's files, as spans.

    Attributes:
        first_version: The earliest version the log can rebuild.
        last_version: The latest version.
        spans: One per live run of a file, in the order the log made them.
        unreadable: Versions the log cannot be replayed to (commit missing or
            damaged with no checkpoint to bridge it).
    """

    first_version: int
    last_version: int
    spans: tuple[FileSpan, ...]
    unreadable: frozenset[int]

    def versions_using(self, paths: Collection[str]) -> set[int]:
        """The readable versions that reference any of ``paths``."""
        if not paths:
            return set()
        size = self.last_version - self.first_version + 2
        marks = [0] * size
        for span in self.spans:
            if any(p in paths for p in span.paths):
                marks[span.first - self.first_version] += 1
                marks[span.last - self.first_version + 1] -= 1
        found, running = set(), 0
        for offset, mark in enumerate(marks[:-1]):
            running += mark
            version = self.first_version + offset
            if running and version not in self.unreadable:
                found.add(version)
        return found

    def first_reference(self) -> dict[str, Reference]:
        """For each referenced path: the first version that needs it and the size it must have.

        A data file must have the size its add action records; a deletion-vector
        file at least the bytes its descriptor reaches (the largest any user needs).
        """
        found: dict[str, Reference] = {}
        for span in self.spans:
            dv = span.add.deletion_vector
            needs = [(span.data_path, span.add.size, FileRole.DATA_FILE)]
            if dv is not None:
                needs.append((span.dv_path, dv.required_file_size, FileRole.DELETION_VECTOR))
            for path, need, role in needs:
                if path is None:
                    continue
                seen = found.get(path)
                if seen is not None:
                    need = max(need, seen.size)
                first = span.first if seen is None else min(seen.version, span.first)
                found[path] = Reference(version=first, size=need, role=role)
        return found


def version_spans(log: DeltaLog) -> VersionSpans:
    """Replay the retained log forward once and record each file's live span.

    Args:
        log: An opened log.

    Returns:
        The spans; a break in the log (a missing or damaged commit) ends every
        span, and replay resumes at the next checkpoint.
    """
    return _Replay(log).run()


class _Replay:
    def __init__(self, log: DeltaLog) -> None:
        self.log = log
        self.commits = {c.version: c for c in log.commits}
        self.checkpoints = {cp.version for cp in log.listing.usable_checkpoints()}
        self.live: dict[FileKey, tuple[int, AddFile]] | None = None
        self.spans: list[FileSpan] = []
        self.unreadable: set[int] = set()

    def run(self) -> VersionSpans:
        first, last = self.log.earliest_version, self.log.latest_version
        for version in range(first, last + 1):
            commit = self.commits.get(version)
            if self.live is not None and commit is not None and commit.is_complete:
                self._apply(version, commit.actions)
            else:
                self._close_all(version - 1)
                self._rebase(version, first)
        self._close_all(last)
        return VersionSpans(
            first_version=first,
            last_version=last,
            spans=tuple(self.spans),
            unreadable=frozenset(self.unreadable),
        )

    def _apply(self, version: int, actions: Iterable[object]) -> None:
        assert self.live is not None
        for action in actions:
            if isinstance(action, AddFile):
                # Re-adding a live key (a stats update) is the same physical file.
                self.live.setdefault(action.key, (version, action))
            elif isinstance(action, RemoveFile) and action.key in self.live:
                start, add = self.live.pop(action.key)
                if start < version:
                    self._span(add, start, version - 1)

    def _rebase(self, version: int, first: int) -> None:
        """Start over from a snapshot: the first version, or a checkpoint after a break."""
        if version == first or version in self.checkpoints:
            try:
                files = self.log.snapshot(version).files
            except InspectorError:
                pass
            else:
                self.live = {key: (version, add) for key, add in files.items()}
                return
        self.unreadable.add(version)

    def _close_all(self, last: int) -> None:
        if self.live is not None:
            for start, add in self.live.values():
                if start <= last:
                    self._span(add, start, last)
        self.live = None

    def _span(self, add: AddFile, first: int, last: int) -> None:
        root = self.log.table_root
        dv = add.deletion_vector
        where = dv.relative_or_absolute_path() if dv is not None else None
        self.spans.append(
            FileSpan(
                add=add,
                data_path=relative_path(root, add.path),
                dv_path=relative_path(root, where) if where is not None else None,
                first=first,
                last=last,
            )
        )
