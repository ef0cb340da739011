"""Each distinct file the log references, judged once against one walk of the table folder.

The data files with plain relative paths by one hash look-up in the walk's (path, size)
columns; the rest (not found or of another size, deletion-vector files, odd paths, every
footer of a deep check) one by one by the shared rule of :mod:`inspector.files.filecheck`,
in parallel. The walked files nothing claims are the candidates for orphans. The
:class:`Tally` keeps a count of bad files in a live set as versions change it.
"""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from inspector.delta.actions import AddFile, DeletionVector
from inspector.delta.paths import data_file_path
from inspector.files.filecheck import (
    CHUNK,
    FileIssue,
    FileRole,
    FileState,
    examine_file,
    judge_size,
    referenced_files,
)
from inspector.files.tablefiles import is_hidden, relative_path
from inspector.health.intervals import whole_array
from inspector.health.records import HealthProblem, VersionHealth, VersionStatus
from inspector.log import arrays, columnar
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey
from inspector.storage import Storage

Progress = Callable[[int, int], None]


@dataclass(frozen=True, kw_only=True)
class Judging:
    """How a check judges files: ``deep``, also read each data file's Parquet footer;
    ``workers``, parallel stat calls; ``cap``, ``max_listed_files`` (the lists of bad files
    are capped, the counts exact); ``progress(done, total)``, called while files are examined."""

    deep: bool = False
    workers: int = 1
    cap: int = 0
    progress: Progress | None = None


_MAYBE_HIDDEN = r"(^|/)[._]"  # names starting with . or _: asked of is_hidden one by one


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
        for (path, size), count in zip(sized_paths(plain), records, strict=True)
    }


def ref_path(root: str, log_path: str) -> str:
    """The one spelling of a referenced file's location (the key of the refs): normalised,
    a URI's ``scheme://`` kept."""
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


def named_paths(root: str, kind: str, table: pa.Table) -> Iterator[str]:
    """:func:`physical_paths` of every action of an Arrow action table (``add`` or
    ``remove``), read column-wise: a record is built only for a row with a deletion vector."""
    with_dv = table.column("deletionVector").is_valid()
    for path in table.filter(pc.invert(with_dv)).column("path").to_pylist():
        if found := relative_path(root, path):
            yield found
    for record in columnar.records(kind, table.filter(with_dv)):
        yield from physical_paths(root, record.path, record.deletion_vector)


def examine(
    refs: dict[str, Ref], walked: dict[str, int], storage: Storage, how: Judging
) -> dict[str, FileIssue]:
    """The bad files among ``refs`` by location, each judged once by the shared rule (a
    deep check also reads each data file's footer, and reports progress), in parallel. The
    files ``walked`` holds the sizes of are not stat'ed unless their footer is read (in an
    object store, no file)."""
    stored = storage if storage.local_path() is None else None
    deep, progress = how.deep, how.progress if how.deep else None
    todo, found, done = sorted(refs), dict[str, FileIssue | None](), 0
    if progress is not None:
        progress(done, len(todo))

    def judged(where: str) -> FileIssue | None:
        ref = refs[where]
        facts: dict[str, Any] = {"path": ref.display, "role": ref.role, "expected_size": ref.size}
        if not deep and where in walked:
            return judge_size(where, walked[where], **facts)
        issue = examine_file(where, storage=stored, sizes=walked, **facts)
        if issue is None and deep and ref.role is FileRole.DATA_FILE:
            return _footer_issue(where, ref, stored)
        return issue

    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
    with ThreadPoolExecutor(max_workers=how.workers) as pool:
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
                if (issue := self.issues.get(path)) is None:
                    continue
                self.refcount[path] += delta
                if self.refcount[path] == 0:
                    del self.live[issue.state][path]
                else:
                    self.live[issue.state][path] = issue

    def health(self, version: int, problems: Iterable[HealthProblem], cap: int) -> VersionHealth:
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


@dataclass(frozen=True, kw_only=True)
class Checked:
    """A check's answer: the versions judged (oldest first), the files examined, the orphans."""

    versions: tuple[VersionHealth, ...]
    files_examined: int
    orphans: tuple[tuple[str, int], ...]  # (path relative to the root, bytes)


@dataclass(frozen=True, kw_only=True)
class Judged:
    """The bad files by location, and what the orphans are told from."""

    issues: dict[str, FileIssue]
    examined: int  # distinct files judged
    rest: dict[str, Ref]  # the files judged one by one (DV files, odd paths)
    found: pa.Array  # each plain data file's row in the walk (null when not there)


def stored_files(paths: list[str], sizes: list[int], partition_columns: Iterable[str]) -> pa.Table:
    """The files of a walk (:meth:`Storage.walk_sizes`) that VACUUM may touch (by the one
    rule of ``is_hidden``, asked only of names starting with ``.`` or ``_``), as (path
    relative to the root, size)."""
    column = arrays.texts(paths)
    counts = arrays.from_numpy(np.array(sizes, dtype=np.int64))
    table = pa.Table.from_arrays([column, counts], names=["path", "size"])
    maybe = pc.match_substring_regex(column, _MAYBE_HIDDEN)
    if not pc.any(maybe).as_py():
        return table
    columns = tuple(partition_columns)
    keep = np.ones(len(paths), dtype=bool)
    for i in pc.indices_nonzero(maybe).to_pylist():
        keep[i] = not is_hidden(paths[i], columns)
    return table.take(arrays.from_numpy(np.flatnonzero(keep)))


def root_base(root: str) -> str:
    """The root as a referenced file's location starts (``ref_path``'s spelling)."""
    return os.path.normpath(root).rstrip("/") if "://" not in root else root.rstrip("/")


def judge_files(
    log: DeltaLog, plain: pa.Table, refs: dict[str, Ref], walked: pa.Table, how: Judging
) -> Judged:
    """Judge each distinct file once (a file named both plainly and by an odd path, once):
    ``plain``, the data files with plain relative paths (``path``, ``size``, ``stats``);
    ``refs``, every deletion-vector file and odd path's data file by location; ``walked``,
    :func:`stored_files`."""
    prefix, progress = root_base(log.table_root) + "/", how.progress
    rest = {
        where: ref
        for where, ref in refs.items()
        if not (ref.role is FileRole.DATA_FILE and where == prefix + ref.display)
    }
    inside = [where[len(prefix) :] for where in rest if where.startswith(prefix)]
    if inside:
        named = pc.is_in(arrays.texts(inside), value_set=whole_array(plain.column("path")))
        twice = {prefix + p for p, hit in zip(inside, named.to_pylist(), strict=True) if hit}
        rest = {where: ref for where, ref in rest.items() if where not in twice}
    total = plain.num_rows + len(rest)
    if progress is not None:
        progress(0, total)
    # the plain data files by one hash look-up: each one's row in the walk (null when not
    # there), and whether it is missing or of another size
    found = pc.index_in(plain.column("path"), value_set=whole_array(walked.column("path")))
    actual = walked.column("size").take(found)
    bad = pc.or_kleene(pc.is_null(actual), pc.not_equal(actual, plain.column("size")))
    chosen = plain if how.deep else plain.filter(bad)  # a deep check reads every footer
    todo = (deep_refs(chosen, prefix) if chosen.num_rows else {}) | rest
    issues = examine(todo, _walked_sizes(walked, todo, prefix), log.storage, how)
    if progress is not None:
        progress(total, total)
    return Judged(issues=issues, examined=total, rest=rest, found=found)


def _walked_sizes(walked: pa.Table, todo: dict[str, Ref], prefix: str) -> dict[str, int]:
    """The sizes the walk found of the files judged one by one (no stat for these)."""
    inside = [where[len(prefix) :] for where in todo if where.startswith(prefix)]
    listed = walked.filter(pc.is_in(walked.column("path"), value_set=arrays.texts(inside)))
    return {prefix + path: size for path, size in sized_paths(listed)}


def unclaimed(walked: pa.Table, found: pa.Array, located: Iterable[str], root: str) -> pa.Table:
    """The walked files neither found (rows of the walk) nor located
    (referenced files' locations): the candidates for orphans."""
    claimed = np.zeros(walked.num_rows, dtype=bool)
    claimed[arrays.to_numpy(whole_array(found).drop_null())] = True
    prefix = root_base(root) + "/"
    others = arrays.texts([where[len(prefix) :] for where in located if where.startswith(prefix)])
    if len(others):
        listed = pc.is_in(walked.column("path"), value_set=others)
        claimed[arrays.to_numpy(pc.indices_nonzero(whole_array(listed)))] = True
    return walked.take(arrays.from_numpy(np.flatnonzero(~claimed)))


def sized_paths(files: pa.Table) -> tuple[tuple[str, int], ...]:
    paths, sizes = files.column("path").to_pylist(), files.column("size").to_pylist()
    return tuple(zip(paths, sizes, strict=True))
