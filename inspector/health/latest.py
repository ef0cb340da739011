"""The fast health check of the latest version, in Arrow.

The latest version's live files come from its snapshot (the newest checkpoint and the
commits after it) as the snapshot's Arrow table; the table folder is walked once into two
columns (path, size). A hash look-up of one column in the other finds the missing and the
wrong-sized data files, and only those become :class:`~inspector.files.filecheck.FileIssue`
records. Deletion-vector files and paths that are not plain relative ones (absolute, or
with ``.``/``..``/empty segments) are few: they are judged one by one by the shared rule.

Only the latest snapshot is read: the newest checkpoint and the commits after it, nothing
older (a question about the latest version costs what its snapshot costs, however long the
log). So orphans are judged as Delta's VACUUM judges them (:attr:`OrphanScope.LATEST_SNAPSHOT`):
a walked file that neither a live file nor a tombstone of the latest snapshot names (data
file or deletion-vector file), nor a change-data file of the commits read. A file only an
older retained version references, whose tombstone has left the checkpoints, counts as an
orphan here; the full check of :mod:`.trace` replays every retained commit and spares it.

:func:`check_latest` answers when the latest snapshot can be read. Otherwise (and when the
latest version is not complete) the caller goes on to the full trace of :mod:`.trace`,
which names each version's damage. Damage before the newest checkpoint is the full
check's to find (``check --all-versions``), as history's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InspectorError
from inspector.files.filecheck import FileIssue, FileRole, FileState, judge_size
from inspector.files.tablefiles import is_hidden
from inspector.health.checksum import TableState, check_checksum, read_checksums, with_checksum
from inspector.health.examine import (
    ODD_PATTERN,
    Examiner,
    Progress,
    Ref,
    deep_refs,
    ref_path,
    register_add,
)
from inspector.health.intervals import whole_array
from inspector.health.problems import log_problems_at
from inspector.health.records import COMPLETE, INCOMPLETE, HealthProblem, VersionHealth
from inspector.log import arrays, columnar
from inspector.log.deltalog import DeltaLog

_ODD_PATH = re.compile(ODD_PATTERN)
_MAYBE_HIDDEN = r"(^|/)[._]"  # names starting with . or _: asked of is_hidden one by one


@dataclass(frozen=True, kw_only=True)
class LatestCheck:
    """The fast check's answer: the latest version's verdict, the orphans and the count."""

    health: VersionHealth
    files_examined: int
    orphans: tuple[tuple[str, int], ...]  # (path relative to the root, bytes)


def check_latest(
    log: DeltaLog,
    *,
    deep: bool = False,
    cap: int,
    workers: int,
    progress: Progress | None = None,
) -> LatestCheck | None:
    """The latest version's verdict from its snapshot and one walk, or None when its
    snapshot cannot be read.

    Args:
        log: The opened log.
        deep: Also read each data file's Parquet footer and compare its row count with
            the log's stats.
        cap: ``max_listed_files``: the lists of bad files are capped, the counts exact.
        workers: Parallel stat calls for the files judged one by one.
        progress: Called as ``progress(done, total)``.
    """
    latest = log.latest_version
    # The walk waits on the file system, the snapshot mostly in Arrow: both release the GIL.
    with ThreadPoolExecutor(max_workers=1) as pool:
        walk = pool.submit(log.storage.walk_sizes)
        try:
            snap = log.snapshot(latest, statistics=deep)  # else only paths and sizes are judged
        except InspectorError:
            return None
        walked = stored_files(*walk.result(), snap.metadata.partition_columns)
    root = log.table_root
    plain, refs = _referenced([snap.files_table], root, deep=deep)
    rest = _to_examine(refs, root)
    total = len(plain) + len(rest)
    if progress is not None:
        progress(0, total)
    issues, found = _judge(plain, rest, walked, log, workers, deep=deep, progress=progress)
    if progress is not None:
        progress(total, total)
    health = _health(latest, issues, cap, problems=log_problems_at(log, latest))
    crc = read_checksums(log, [latest])  # the latest version's .crc, when it has one
    if latest in crc:
        health = with_checksum(health, check_checksum(latest, crc[latest], TableState.of(snap)))
    candidates = unclaimed(walked, found, [*refs], root)
    return LatestCheck(
        health=health,
        files_examined=total,
        orphans=snapshot_orphans(log, candidates, snap.tombstones_table),
    )


def stored_files(paths: list[str], sizes: list[int], partition_columns: Iterable[str]) -> pa.Table:
    """The files of a walk (:meth:`Storage.walk_sizes`) that VACUUM may touch, as (path
    relative to the root, size).

    Hidden paths are left out by the one rule of :func:`~inspector.files.tablefiles.is_hidden`;
    only the paths with a name starting with ``.`` or ``_`` are asked one by one.
    """
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


def _referenced(
    tables: list[pa.Table], root: str, *, deep: bool
) -> tuple[pa.Table, dict[str, Ref]]:
    """The data files of ``tables`` with plain relative paths as (path, size, and for a
    deep check stats); every deletion-vector file and odd path as a :class:`Ref` by its
    location (the plain data files of DV rows are in both)."""
    plain: list[pa.Table] = []
    refs: dict[str, Ref] = {}
    for files in tables:
        odd = _register_special(files, root, refs)
        plain.append(files if odd is None else files.filter(pc.invert(odd)))
    names = ["key_path", "size", *(["stats"] if deep else [])]
    data = pa.concat_tables([t.select(names) for t in plain])
    data = data.rename_columns(["path", *names[1:]])
    return _distinct(data) if refs else data, refs


def _register_special(files: pa.Table, root: str, refs: dict[str, Ref]) -> pa.Array | None:
    """Register the rows with a deletion vector or an odd path one by one; returns which
    rows have an odd path (None when none)."""
    odd = pc.match_substring_regex(files.column("key_path"), ODD_PATTERN)
    special = pc.or_(odd, files.column("deletionVector").is_valid())
    if pc.any(special).as_py():
        for add in columnar.records("add", files.filter(special)):
            register_add(refs, root, add)  # type: ignore[arg-type]
    return odd if pc.any(odd).as_py() else None


def _to_examine(refs: dict[str, Ref], root: str) -> dict[str, Ref]:
    """The files judged one by one: all but the plain data files (in the columns already)."""
    base = root_base(root) + "/"
    return {
        where: ref
        for where, ref in refs.items()
        if not (ref.role is FileRole.DATA_FILE and where == base + ref.display)
    }


def _distinct(data: pa.Table) -> pa.Table:
    """One row per data file: a file behind several keys (deletion vectors) keeps its first size."""
    paths = data.column("path")
    distinct = pc.unique(paths)
    if len(distinct) == len(paths):
        return data
    first = pc.index_in(distinct, value_set=whole_array(paths))
    taken = [data.column(name).take(first) for name in data.column_names[1:]]
    return pa.Table.from_arrays([distinct, *taken], names=data.column_names)


def look_up(data: pa.Table, walked: pa.Table) -> tuple[pa.Array, pa.ChunkedArray, pa.Array]:
    """Data files (path, size) looked up in a walk by one hash look-up: each one's row in
    the walk (null when not there), the size found there, and whether it is missing or of
    another size."""
    found = pc.index_in(data.column("path"), value_set=whole_array(walked.column("path")))
    actual = walked.column("size").take(found)
    bad = pc.or_kleene(pc.is_null(actual), pc.not_equal(actual, data.column("size")))
    return found, actual, bad


def _judge(
    plain: pa.Table,
    rest: dict[str, Ref],
    walked: pa.Table,
    log: DeltaLog,
    workers: int,
    *,
    deep: bool,
    progress: Progress | None,
) -> tuple[list[FileIssue], pa.Array]:
    """The bad files, and each plain data file's row in the walk: the plain data files by
    one hash look-up and the rest one by one (a deep check reads every footer, one by one)."""
    if not deep:
        issues, found = _judge_plain(plain, walked, root_base(log.table_root))
        return issues + _judge_rest(rest, walked, log, workers), found
    everything = deep_refs(plain, root_base(log.table_root) + "/") | rest
    issues = _judge_rest(everything, walked, log, workers, deep=True, progress=progress)
    return issues, look_up(plain, walked)[0]


def _judge_plain(data: pa.Table, walked: pa.Table, base: str) -> tuple[list[FileIssue], pa.Array]:
    """Missing and wrong-sized data files, by one hash look-up of the paths in the walk;
    and, per file, its row in the walk (null when missing)."""
    found, actual, bad = look_up(data, walked)
    if not pc.any(bad).as_py():
        return [], found
    rows = data.append_column("actual", actual).filter(bad).to_pylist()
    role, out = FileRole.DATA_FILE, []
    for row in rows:
        path, size, actual_size = row["path"], row["size"], row["actual"]
        where = f"{base}/{path}"
        if actual_size is None:
            out.append(FileIssue.missing(where, path=path, role=role, expected_size=size))
            continue
        issue = judge_size(where, actual_size, path=path, role=role, expected_size=size)
        if issue is not None:
            out.append(issue)
    return out, found


def _judge_rest(
    rest: dict[str, Ref],
    walked: pa.Table,
    log: DeltaLog,
    workers: int,
    *,
    deep: bool = False,
    progress: Progress | None = None,
) -> list[FileIssue]:
    """The files judged one by one by the shared rule (sizes from the walk)."""
    if not rest:
        return []
    prefix = root_base(log.table_root) + "/"
    inside = [where[len(prefix) :] for where in rest if where.startswith(prefix)]
    listed = walked.filter(pc.is_in(walked.column("path"), value_set=arrays.texts(inside)))
    sizes = {
        prefix + path: size
        for path, size in zip(
            listed.column("path").to_pylist(), listed.column("size").to_pylist(), strict=True
        )
    }
    examiner = Examiner(rest, deep, workers, progress, sizes, log.storage)
    examiner.run(rest)
    return [issue for issue in examiner.issues.values() if issue is not None]


def _health(
    version: int, issues: list[FileIssue], cap: int, *, problems: list[HealthProblem]
) -> VersionHealth:
    by_state: dict[FileState, list[FileIssue]] = {state: [] for state in FileState}
    for issue in sorted(issues, key=lambda i: i.path):
        by_state[issue.state].append(issue)
    missing, sizes, broken = (by_state[s] for s in FileState)
    return VersionHealth(
        version=version,
        status=INCOMPLETE if issues else COMPLETE,
        missing_files=tuple(i.path for i in missing[:cap]),
        size_mismatches=tuple(sizes[:cap]),
        problems=tuple(problems),
        missing_count=len(missing),
        size_mismatch_count=len(sizes),
        unreadable_files=tuple(broken[:cap]),
        unreadable_count=len(broken),
    )


def _cdc_paths(log: DeltaLog) -> set[str]:
    """Change-data files that the commits the latest snapshot read name (for CDF reads:
    never orphans)."""
    latest = log.latest_version
    base = log.tail.newest_checkpoint(latest)
    first = base.version + 1 if base is not None else 0
    versions = [v for v in range(first, latest + 1) if log.commit_file(v)]
    commits = log.read_commits(versions)  # read for the snapshot already: cached
    return {ref_path(log.table_root, c.path) for commit in commits for c in commit.cdc_files}


def unclaimed(walked: pa.Table, found: pa.Array, located: list[str], root: str) -> pa.Table:
    """The walked files neither found (rows of the walk, :func:`look_up`) nor located
    (referenced files' locations): the candidates for orphans."""
    claimed = np.zeros(walked.num_rows, dtype=bool)
    claimed[arrays.to_numpy(whole_array(found).drop_null())] = True
    prefix = root_base(root) + "/"
    others = arrays.texts([where[len(prefix) :] for where in located if where.startswith(prefix)])
    if len(others):
        listed = pc.is_in(walked.column("path"), value_set=others)
        claimed[arrays.to_numpy(pc.indices_nonzero(whole_array(listed)))] = True
    return walked.take(arrays.from_numpy(np.flatnonzero(~claimed)))


def _orphans(candidates: pa.Table, tombstones: pa.Table, named: set[str], root: str) -> pa.Table:
    """The candidates that no tombstone and no location of ``named`` names.

    The tombstones' paths are looked up among the candidates (a small set), not the reverse.
    """
    if not candidates.num_rows:
        return candidates
    paths, prefix = whole_array(candidates.column("path")), root_base(root) + "/"
    found = [where[len(prefix) :] for where in named if where.startswith(prefix)]
    column = whole_array(tombstones.column("key_path"))
    known = column.filter(pc.is_in(column, value_set=paths))
    special = pc.or_(
        pc.match_substring_regex(column, ODD_PATTERN),
        tombstones.column("deletionVector").is_valid(),
    )
    if pc.any(special).as_py():
        for action in columnar.records("remove", tombstones.filter(special)):
            found += _named(action, root, prefix)
    value_set = pa.concat_arrays([known, arrays.texts(found)])
    return candidates.filter(pc.invert(pc.is_in(paths, value_set=value_set)))


def _named(action: AddFile | RemoveFile, root: str, prefix: str) -> list[str]:
    """The files an add or remove names (data file, DV file), relative to the root."""
    path, dv = action.key[0], action.deletion_vector
    if dv is None and not _ODD_PATH.search(path):
        return [path]
    where = [ref_path(root, action.path)]
    stored = dv.relative_or_absolute_path() if dv is not None else None
    if stored is not None:
        where.append(ref_path(root, stored))
    return [w[len(prefix) :] for w in where if w.startswith(prefix)]


def snapshot_orphans(
    log: DeltaLog, walked: pa.Table, tombstones: pa.Table
) -> tuple[tuple[str, int], ...]:
    """Walked files that the latest snapshot does not name: (relative path, bytes).

    ``walked`` holds the files the latest version's live files do not name; what is left
    after the snapshot's tombstones and the change-data files of the commits it read.
    """
    root = log.table_root
    stray = _orphans(walked, tombstones, _cdc_paths(log) if walked.num_rows else set(), root)
    return tuple(
        zip(stray.column("path").to_pylist(), stray.column("size").to_pylist(), strict=True)
    )
