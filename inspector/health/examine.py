"""The files the log references, and their verdicts: each distinct file judged once.

:func:`examine` judges files one by one by the shared rule of :mod:`inspector.files.filecheck`,
in parallel (a deep check also reads Parquet footers); the :class:`Tally` keeps a count of
bad files in a live set as versions change it.
"""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from inspector.delta.actions import AddFile, DeletionVector
from inspector.delta.paths import data_file_path
from inspector.files.filecheck import (
    FileIssue,
    FileRole,
    FileState,
    examine_file,
    examine_stored,
    judge_size,
    referenced_files,
)
from inspector.files.tablefiles import relative_path
from inspector.health.records import HealthProblem, VersionHealth, VersionStatus
from inspector.log import columnar
from inspector.log.snapshot import FileKey
from inspector.storage import Storage

_CHUNK = 256  # files per worker task: few enough futures, smooth enough progress

Progress = Callable[[int, int], None]

# Paths that are not plain relative ones: judged one by one (``ref_path`` spells them).
ODD_PATTERN = r"(^|/)\.\.?(/|$)|//|/$|^/|://"


@dataclass(kw_only=True)
class Ref:
    """One physical file referenced by the log: what size it must have, and (for a deep
    check of a data file) how many rows its add's stats record."""

    display: str
    role: FileRole
    size: int
    add: AddFile | None = None  # a data file's add action, for its stats (read when deep)
    records: int | None = None  # numRecords, when known without the add


def register_add(refs: dict[str, Ref], root: str, add: AddFile) -> tuple[str, ...]:
    """Note in ``refs`` the physical files behind an add (:func:`referenced_files`) and the
    size each must have (a DV file's largest need); returns their locations."""
    paths = []
    for at, path, role, size in referenced_files(add):
        where = ref_path(root, at)
        data = role is FileRole.DATA_FILE
        ref = refs.setdefault(
            where, Ref(display=path, role=role, size=size, add=add if data else None)
        )
        if not data:
            ref.size = max(ref.size, size)
        paths.append(where)
    return tuple(paths)


def deep_refs(plain: pa.Table, prefix: str) -> dict[str, Ref]:
    """Plain data files as (``path``, ``size``, ``stats``) rows, as refs by location (a
    deep check reads every footer, one by one)."""
    records = columnar.num_records(plain.column("stats")).to_pylist()
    return {
        prefix + path: Ref(display=path, role=FileRole.DATA_FILE, size=size, records=count)
        for path, size, count in zip(
            plain.column("path").to_pylist(),
            plain.column("size").to_pylist(),
            records,
            strict=True,
        )
    }


def ref_path(root: str, log_path: str) -> str:
    """The one spelling of a referenced file's location (the key of the refs).

    A local path is ``normpath``-ed; a URI keeps its ``scheme://`` and normalises the rest.
    """
    located = data_file_path(root, log_path)
    if "://" not in located:
        return os.path.normpath(located)
    scheme, rest = located.split("://", 1)
    return f"{scheme}://{posixpath.normpath(rest)}"


def physical_paths(root: str, path: str, dv: DeletionVector | None) -> list[str]:
    """The files an action names (its file, its deletion vector's), relative to the root;
    none outside it."""
    where = dv.relative_or_absolute_path() if dv is not None else None
    found = [relative_path(root, path), relative_path(root, where) if where else None]
    return [p for p in found if p]


def examine(
    refs: dict[str, Ref],
    walked: dict[str, int],
    storage: Storage,
    *,
    deep: bool,
    workers: int,
    progress: Progress | None,
) -> dict[str, FileIssue]:
    """The bad files among ``refs`` by location, each judged once by the shared
    presence-and-size rule (a deep check also reads each data file's footer), in parallel.

    ``walked`` holds the sizes one walk of the table folder found: those files are not
    stat'ed unless their footer is read; in an object store every size comes from it.
    """
    stored = storage if storage.local_path() is None else None
    todo, found, done = sorted(refs), dict[str, FileIssue | None](), 0
    if progress is not None:
        progress(done, len(todo))

    def judged(where: str) -> FileIssue | None:
        ref = refs[where]
        facts: dict[str, Any] = {"path": ref.display, "role": ref.role, "expected_size": ref.size}
        if not deep and where in walked:
            return judge_size(where, walked[where], **facts)
        if stored is not None:
            issue = examine_stored(where, stored, walked, **facts)
        else:
            issue = examine_file(where, **facts)
        if issue is None and deep and ref.role is FileRole.DATA_FILE:
            return _footer_issue(where, ref, stored)
        return issue

    chunks = [todo[i : i + _CHUNK] for i in range(0, len(todo), _CHUNK)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for chunk, verdicts in zip(
            chunks, pool.map(lambda c: [*map(judged, c)], chunks), strict=True
        ):
            found.update(zip(chunk, verdicts, strict=True))
            done += len(chunk)
            if progress is not None:  # called on the caller's thread (Streamlit needs that)
                progress(done, len(todo))
    return {path: issue for path, issue in found.items() if issue is not None}


def _footer_issue(path: str, ref: Ref, storage: Storage | None) -> FileIssue | None:
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
    expected = ref.records if ref.records is not None or ref.add is None else ref.add.num_records
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


class Tally:
    """Bad files in the live set, by problem, reference-counted (a DV file serves many keys)."""

    def __init__(
        self, key_paths: dict[FileKey, tuple[str, ...]], issues: dict[str, FileIssue]
    ) -> None:
        self.key_paths, self.issues = key_paths, issues
        self.reset()

    def reset(self) -> None:
        """An empty live set (a replay starts over from a snapshot)."""
        self.refcount: Counter[str] = Counter()
        # dicts keep insertion order, so a capped list is O(cap) per version
        self.live: dict[FileState, dict[str, FileIssue]] = {state: {} for state in FileState}

    def change(self, keys: Iterable[FileKey], delta: int) -> None:
        """Keys come to life (``+1``) or leave the live set (``-1``)."""
        for key in keys:
            for path in self.key_paths[key]:
                issue = self.issues.get(path)
                if issue is None:
                    continue
                self.refcount[path] += delta
                if self.refcount[path] == 0:
                    del self.live[issue.state][path]
                else:
                    self.live[issue.state][path] = issue

    def health(self, version: int, problems: Iterable[HealthProblem], cap: int) -> VersionHealth:
        """The verdict of the live set as it stands."""
        missing, sizes, broken = (self.live[s] for s in FileState)
        bad = len(missing) + len(sizes) + len(broken)
        return VersionHealth(
            version=version,
            status=VersionStatus.INCOMPLETE if bad else VersionStatus.COMPLETE,
            missing_files=tuple(sorted(i.path for i in islice(missing.values(), cap))),
            size_mismatches=_capped(sizes, cap),
            problems=tuple(problems),
            missing_count=len(missing),
            size_mismatch_count=len(sizes),
            unreadable_files=_capped(broken, cap),
            unreadable_count=len(broken),
        )


def version_health(
    version: int, issues: dict[str, FileIssue], problems: Iterable[HealthProblem], cap: int
) -> VersionHealth:
    """A version's verdict from its bad files (by location); each list the first ``cap`` by path."""
    tally = Tally({}, {})
    for where, issue in sorted(issues.items(), key=lambda item: item[1].path):
        tally.live[issue.state][where] = issue
    return tally.health(version, problems, cap)


def _capped(issues: dict[str, FileIssue], cap: int) -> tuple[FileIssue, ...]:
    return tuple(sorted(islice(issues.values(), cap), key=lambda i: i.path))
