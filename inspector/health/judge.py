"""Each distinct file the log references, judged once against one walk of the table folder.

The data files with plain relative paths by one hash look-up in the walk's (path, size)
columns; the rest (not found or of another size, deletion-vector files, odd paths, every
footer of a deep check) one by one by :func:`~.examine.examine`. The walked files nothing
claims are the candidates for orphans.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.files.filecheck import FileIssue, FileRole
from inspector.files.tablefiles import is_hidden
from inspector.health.examine import Progress, Ref, deep_refs, examine
from inspector.health.intervals import whole_array
from inspector.health.records import VersionHealth
from inspector.log import arrays
from inspector.storage import Storage

_MAYBE_HIDDEN = r"(^|/)[._]"  # names starting with . or _: asked of is_hidden one by one


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


def judge_files(
    plain: pa.Table,
    refs: dict[str, Ref],
    walked: pa.Table,
    storage: Storage,
    *,
    root: str,
    deep: bool,
    workers: int,
    progress: Progress | None,
) -> Judged:
    """Judge each distinct file once (a file named both plainly and by an odd path, once):
    ``plain``, the data files with plain relative paths (``path``, ``size``, ``stats``);
    ``refs``, every deletion-vector file and odd path's data file by location; ``walked``,
    :func:`stored_files`; the rest as :func:`~.examine.examine`'s."""
    prefix = root_base(root) + "/"
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
    chosen = plain if deep else plain.filter(bad)  # a deep check reads every footer
    todo = (deep_refs(chosen, prefix) if chosen.num_rows else {}) | rest
    sizes = _walked_sizes(walked, todo, prefix)
    issues = examine(
        todo, sizes, storage, deep=deep, workers=workers, progress=progress if deep else None
    )
    if progress is not None:
        progress(total, total)
    return Judged(issues=issues, examined=total, rest=rest, found=found)


def _walked_sizes(walked: pa.Table, todo: dict[str, Ref], prefix: str) -> dict[str, int]:
    """The sizes the walk found of the files judged one by one (no stat for these)."""
    inside = [where[len(prefix) :] for where in todo if where.startswith(prefix)]
    listed = walked.filter(pc.is_in(walked.column("path"), value_set=arrays.texts(inside)))
    paths, sizes = listed.column("path").to_pylist(), listed.column("size").to_pylist()
    return {prefix + path: size for path, size in zip(paths, sizes, strict=True)}


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
    """A (path, size) table's rows."""
    paths, sizes = files.column("path").to_pylist(), files.column("size").to_pylist()
    return tuple(zip(paths, sizes, strict=True))
