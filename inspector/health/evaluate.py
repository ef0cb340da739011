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

import pyarrow as pa
import pyarrow.parquet as pq

from inspector.files.filecheck import (
    FileIssue,
    FileRole,
    FileState,
    examine_file,
    examine_stored,
    judge_size,
)
from inspector.files.tablefiles import is_hidden
from inspector.health.records import COMPLETE, INCOMPLETE, UNREADABLE, VersionHealth
from inspector.health.trace import Ref, Step, Trace
from inspector.log.snapshot import FileKey
from inspector.storage import Storage

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
        storage: Storage | None = None,
    ):
        self.refs, self.deep, self.workers, self.progress = refs, deep, workers, progress
        self.storage = storage if storage is not None and storage.local_path() is None else None
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
        return [self._examine(path, self.refs[path]) for path in chunk]

    def _examine(self, path: str, ref: Ref) -> FileIssue | None:
        """The verdict for one file (the shared presence-and-size rule), or None when usable.

        In an object store the size comes from the listing (``walked``), never a request.
        """
        kw = {"path": ref.display, "role": ref.role, "expected_size": ref.size}
        if self.storage is not None:
            issue = examine_stored(path, self.storage, self.walked, **kw)  # type: ignore[arg-type]
        else:
            issue = examine_file(path, **kw)  # type: ignore[arg-type]
        if issue is None and self.deep and ref.role is FileRole.DATA_FILE:
            return _footer_issue(path, ref, self.storage)
        return issue


def _footer_issue(path: str, ref: Ref, storage: Storage | None = None) -> FileIssue | None:
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
        source = path if storage is None else pa.BufferReader(_footer_bytes(storage, path))
        rows = pq.read_metadata(source).num_rows
    except Exception as exc:  # pyarrow raises many types for a damaged file
        return replace(unreadable, detail=f"Parquet footer unreadable: {exc}")
    expected = ref.add.num_records if ref.add is not None else None
    if expected is not None and rows != expected:
        return replace(
            unreadable, detail=f"the footer holds {rows} rows, the log's stats say {expected}"
        )
    return None


def _footer_bytes(storage: Storage, path: str) -> bytes:
    """A stored Parquet file's footer (and its length and magic), in two ranged reads."""
    meta = storage.head(path)
    if meta is None:
        raise FileNotFoundError(path)
    tail = storage.read_range(path, max(meta.size - 8, 0), meta.size)
    length = int.from_bytes(tail[:4], "little") if len(tail) == 8 else 0
    start = max(meta.size - 8 - length, 0)
    return b"PAR1" + storage.read_range(path, start, meta.size)


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


def walk_sizes(storage: Storage, root: str, partition_columns: Iterable[str]) -> dict[str, int]:
    """Every file under the root with its size, in one listing of the table (``Storage.walk``).

    Keys are spelled as :attr:`Trace.refs` spells them (a normalised local path, or
    ``<root URI>/<path>``). Hidden paths are skipped as VACUUM skips them, by the one rule
    of :func:`inspector.files.tablefiles.is_hidden` (``_delta_log``, ``_SUCCESS``, ``.crc``
    files; not ``_change_data`` nor partition folders whose column starts with ``_``).
    """
    columns = tuple(partition_columns)
    # A walk's paths are clean (no ``.``, ``..`` or empty segments), so joining them to the
    # normalised root spells them as normpath would, without a normpath per file.
    base = os.path.normpath(root).rstrip("/") if "://" not in root else root.rstrip("/")
    paths, sizes = storage.walk_sizes()
    return {
        f"{base}/{p}": s for p, s in zip(paths, sizes, strict=True) if not is_hidden(p, columns)
    }


def find_orphans(trace: Trace, walked: dict[str, int]) -> list[tuple[str, int]]:
    """Files under the root that no retained version references: (path relative to root, bytes)."""
    referenced = set(trace.refs) | trace.other_paths
    return [
        (_relative(path, trace.root), size)
        for path, size in walked.items()
        if path not in referenced
    ]


def _relative(path: str, root: str) -> str:
    if "://" in root:
        return path[len(root.rstrip("/")) + 1 :]
    return os.path.relpath(path, root)
