"""Passes 2 and 3 of the health check: examine each distinct file once, then evaluate.

Pass 2 stats each file exactly once, in parallel (a deep check also reads Parquet
footers). Pass 3 walks the versions keeping only a count of bad files in the live set,
so a full check costs O(changes + distinct files), not O(versions x files). Files under
the root that no retained version references are the orphans.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from itertools import islice

import pyarrow.parquet as pq

from inspector.log.snapshot import FileKey
from inspector.views.filecheck import FileIssue, FileRole, FileState, examine_file, judge_size
from inspector.views.health.records import COMPLETE, INCOMPLETE, UNREADABLE, VersionHealth
from inspector.views.health.trace import Ref, Step, Trace
from inspector.views.tablefiles import is_hidden

_CHUNK = 256  # files per worker task: few enough futures, smooth enough progress

Progress = Callable[[int, int], None]


class Examiner:
    """Stats (and in deep mode reads the footer of) each file once, in parallel."""

    def __init__(
        self,
        refs: dict[str, Ref],
        deep: bool,
        workers: int,
        progress: Progress | None,
        walked: dict[str, int] | None = None,
    ):
        self.refs, self.deep, self.workers, self.progress = refs, deep, workers, progress
        self.walked = walked or {}  # sizes from one directory walk: no stat for these
        self.issues: dict[str, FileIssue | None] = {}

    def run(self, paths: Iterable[str]) -> None:
        todo = sorted(p for p in paths if p not in self.issues)
        total, done = len(todo), 0
        if self.progress is not None:
            self.progress(0, total)
        if not self.deep:
            listed = [p for p in todo if p in self.walked]
            for p in listed:
                ref = self.refs[p]
                self.issues[p] = judge_size(
                    p, self.walked[p], path=ref.display, role=ref.role, expected_size=ref.size
                )
            todo = [p for p in todo if p not in self.issues]
            done = len(listed)
            if self.progress is not None and listed:
                self.progress(done, total)
        chunks = [todo[i : i + _CHUNK] for i in range(0, len(todo), _CHUNK)]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for chunk, verdicts in zip(chunks, pool.map(self._examine_chunk, chunks), strict=False):
                self.issues.update(zip(chunk, verdicts, strict=False))
                done += len(chunk)
                if (
                    self.progress is not None
                ):  # called on the caller's thread (Streamlit needs that)
                    self.progress(done, total)

    def _examine_chunk(self, chunk: list[str]) -> list[FileIssue | None]:
        return [_examine(path, self.refs[path], self.deep) for path in chunk]


def _examine(path: str, ref: Ref, deep: bool) -> FileIssue | None:
    """The verdict for one file (the shared presence-and-size rule), or None when usable."""
    issue = examine_file(path, path=ref.display, role=ref.role, expected_size=ref.size)
    if issue is None and deep and ref.role is FileRole.DATA_FILE:
        return _footer_issue(path, ref)
    return issue


def _footer_issue(path: str, ref: Ref) -> FileIssue | None:
    """Deep check: the Parquet footer is readable and its row count matches the stats."""
    unreadable = FileIssue(
        path=ref.display,
        role=ref.role,
        state=FileState.UNREADABLE,
        expected_size=ref.size,
        actual_size=ref.size,
        local_path=path,
    )
    try:
        rows = pq.read_metadata(path).num_rows
    except Exception as exc:  # pyarrow raises many types for a damaged file
        return replace(unreadable, detail=f"Parquet footer unreadable: {exc}")
    expected = ref.add.num_records if ref.add is not None else None
    if expected is not None and rows != expected:
        return replace(
            unreadable, detail=f"the footer holds {rows} rows, the log's stats say {expected}"
        )
    return None


# --- pass 3: evaluate every version incrementally -------------------------------------------


class Tally:
    """Bad files in the live set, by problem, reference-counted (a DV file serves many keys)."""

    def __init__(self, trace: Trace, issues: dict[str, FileIssue | None]) -> None:
        self.trace, self.issues = trace, issues
        self.reset()

    def reset(self) -> None:
        self.refcount: Counter[str] = Counter()
        # dicts keep insertion order, so a capped list is O(cap) per version
        self.live: dict[FileState, dict[str, FileIssue]] = {state: {} for state in FileState}

    def change(self, keys: Iterable[FileKey], delta: int) -> None:
        for key in keys:
            for path in self.trace.key_paths[key]:
                issue = self.issues.get(path)
                if issue is None:
                    continue
                self.refcount[path] += delta
                if self.refcount[path] == 0:
                    del self.live[issue.state][path]
                else:
                    self.live[issue.state][path] = issue

    def health(self, step: Step, cap: int) -> VersionHealth:
        missing, sizes, broken = (self.live[s] for s in FileState)
        bad = len(missing) + len(sizes) + len(broken)
        return VersionHealth(
            version=step.version,
            status=INCOMPLETE if bad else COMPLETE,
            missing_files=tuple(sorted(i.path for i in islice(missing.values(), cap))),
            size_mismatches=_capped(sizes, cap),
            problems=tuple(step.problems),
            missing_count=len(missing),
            size_mismatch_count=len(sizes),
            unreadable_files=_capped(broken, cap),
            unreadable_count=len(broken),
        )


def _capped(issues: dict[str, FileIssue], cap: int) -> tuple[FileIssue, ...]:
    return tuple(sorted(islice(issues.values(), cap), key=lambda i: i.path))


def evaluate(
    trace: Trace, steps: list[Step], issues: dict[str, FileIssue | None], cap: int
) -> list[VersionHealth]:
    tally, out = Tally(trace, issues), []
    for step in steps:
        if not step.readable:
            out.append(
                VersionHealth(
                    version=step.version, status=UNREADABLE, problems=tuple(step.problems)
                )
            )
            continue
        if step.base is not None:
            tally.reset()
            tally.change(step.base, +1)
        tally.change(step.removed, -1)
        tally.change(step.added, +1)
        out.append(tally.health(step, cap))
    return out


# --- orphans --------------------------------------------------------------------------------


def walk_sizes(root: str, partition_columns: Iterable[str]) -> dict[str, int]:
    """Every file under the root with its size, in one directory walk.

    Hidden paths are skipped as VACUUM skips them, by the one rule of
    :func:`inspector.views.tablefiles.is_hidden` (``_delta_log``, ``_SUCCESS``, ``.crc``
    files; not ``_change_data`` nor partition folders whose column starts with ``_``).
    """
    columns = tuple(partition_columns)
    found: dict[str, int] = {}
    stack = [root]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            relative = os.path.relpath(entry.path, root).replace(os.sep, "/")
            if is_hidden(relative, columns):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                size = _size(entry)
                if size is not None:
                    found[os.path.normpath(entry.path)] = size
    return found


def find_orphans(trace: Trace, walked: dict[str, int]) -> list[tuple[str, int]]:
    """Files under the root that no retained version references: (path relative to root, bytes)."""
    referenced = set(trace.refs) | trace.other_paths
    return [
        (os.path.relpath(path, trace.root), size)
        for path, size in walked.items()
        if path not in referenced
    ]


def _size(entry: os.DirEntry) -> int | None:
    try:
        return entry.stat().st_size
    except OSError:  # deleted while we walked
        return None
