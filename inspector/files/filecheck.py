"""Whether a file the log references is present with the size the log records.

One rule and one vocabulary for the health check, the restore plan and guard, and the
reader's pre-check: a data file must have exactly its ``add.size`` bytes; a
deletion-vector file must reach at least as far as the vector it holds
(``DeletionVector.required_file_size``), since one file may hold many vectors.

On an object store (:class:`~inspector.storage.Storage` without local paths) sizes come from
one listing of the table prefix, never a request per file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from inspector.delta.actions import AddFile, canonical_path
from inspector.delta.jsonvalue import camel_json
from inspector.delta.paths import data_file_path
from inspector.storage import Storage

if TYPE_CHECKING:
    import pyarrow as pa


class FileState(StrEnum):
    """What is wrong with a referenced file."""

    MISSING = "missing"
    SIZE_MISMATCH = "size_mismatch"
    UNREADABLE = "unreadable"


class FileRole(StrEnum):
    """What a referenced file is for."""

    DATA_FILE = "data file"
    DELETION_VECTOR = "deletion vector"


@dataclass(frozen=True, kw_only=True)
class FileIssue:
    """A file the log references that a reader could not use.

    Attributes:
        path: As the log names it (decoded; relative to the table root unless absolute).
        expected_size: The size the log records (at least this, for a deletion vector).
        actual_size: The size on disk, when the file exists.
        detail: The facts in words (sizes, the OS error, the footer's row count).
        local_path: Where the file was looked for.
        key: The key of the add action it belongs to, when known.
    """

    path: str
    role: FileRole
    state: FileState
    expected_size: int | None
    actual_size: int | None = None
    detail: str = ""
    local_path: str = ""
    key: tuple[str, str | None] | None = None

    def to_json(self) -> dict[str, Any]:
        """The one JSON shape (health ``sizeMismatches``/``unreadableFiles``, plan ``missingFiles``)."""
        return {
            "path": self.path,
            "kind": str(self.role),
            "state": str(self.state),
            **camel_json(self, "expected_size", "actual_size", "detail", "local_path"),
        }


#: Files per worker task: a task per file costs more than its ``stat`` (about 100 us
#: against a few), yet a slow store's stat calls still spread over the workers.
CHUNK = 256


def examine_file(
    local_path: str,
    *,
    path: str,
    role: FileRole,
    expected_size: int,
    storage: Storage | None = None,
    sizes: Mapping[str, int] | None = None,
) -> FileIssue | None:
    """Judge the file at ``local_path`` (``path`` in the log) by the rule above; None when
    it is usable. It is stat'ed; in an object store (``storage``) its size comes from the
    listing's ``sizes`` (by full location), and only a file outside the table root (an
    absolute URI in the log) is asked for alone."""
    size: int | None = None
    if storage is not None:
        size = (sizes or {}).get(local_path)
        if size is None and not local_path.startswith(storage.uri().rstrip("/") + "/"):
            meta = storage.head(local_path)
            size = meta.size if meta is not None else None
    else:
        try:
            size = os.stat(local_path).st_size
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError as exc:
            return FileIssue(
                path=path,
                role=role,
                state=FileState.UNREADABLE,
                expected_size=expected_size,
                detail=exc.strerror or str(exc),
                local_path=local_path,
            )
    return judge_size(local_path, size, path=path, role=role, expected_size=expected_size)


def judge_size(
    local_path: str, size: int | None, *, path: str, role: FileRole, expected_size: int
) -> FileIssue | None:
    """The same rule for a file whose size is already known (None: missing)."""
    state, detail = FileState.SIZE_MISMATCH, ""
    if size is None:
        state = FileState.MISSING
    elif role is FileRole.DATA_FILE and size != expected_size:
        detail = f"{size} bytes on disk, {expected_size} in the log"
    elif role is FileRole.DELETION_VECTOR and size < expected_size:
        detail = f"{size} bytes on disk, at least {expected_size} needed"
    else:
        return None
    return FileIssue(
        path=path,
        role=role,
        state=state,
        expected_size=expected_size,
        actual_size=size,
        detail=detail,
        local_path=local_path,
    )


def referenced_files(add: AddFile) -> list[tuple[str, str, FileRole, int]]:
    """The files behind an add action, its data file, then its deletion-vector file: each
    where the log spells it (to locate it), its decoded path (to show it), its role, and
    the size it must have by the rule above."""
    files = [(add.path, canonical_path(add.path), FileRole.DATA_FILE, add.size)]
    dv = add.deletion_vector
    where = dv.relative_or_absolute_path() if dv is not None else None
    if dv is not None and where is not None:
        files.append(
            (where, canonical_path(where), FileRole.DELETION_VECTOR, dv.required_file_size)
        )
    return files


#: One file an action names: where the log spells it (to locate it), its decoded path (to
#: show it), its role, the size it must have, and the action's replay identity.
FileRef = tuple[str, str, FileRole, int, tuple[str, str | None]]


def check_files(
    table_root: str, adds: Sequence[AddFile], *, workers: int, storage: Storage | None = None
) -> list[FileIssue]:
    """Examine every add action's files; every issue, in the order of ``adds``."""
    refs = [(*ref, add.key) for add in adds for ref in referenced_files(add)]
    return check_refs(table_root, refs, workers=workers, storage=storage)


def table_refs(adds: pa.Table) -> list[FileRef]:
    """The files an Arrow table of add actions names, in path order, read column-wise: a
    record is built only for a row with a deletion vector (a snapshot's every file)."""
    from inspector.log import columnar

    ordered = adds.sort_by("path")
    with_dv = ordered.column("deletionVector").is_valid()
    rows = (i for i, has in enumerate(with_dv.to_pylist()) if has)
    dv_adds = dict(zip(rows, columnar.records("add", ordered.filter(with_dv)), strict=True))
    refs: list[FileRef] = []
    columns = (ordered.column(name).to_pylist() for name in ("path", "key_path", "size"))
    for row, (path, key, size) in enumerate(zip(*columns, strict=True)):
        if (add := dv_adds.get(row)) is None:
            refs.append((path, key, FileRole.DATA_FILE, size, (key, None)))
        else:
            assert isinstance(add, AddFile)
            refs += [(*ref, add.key) for ref in referenced_files(add)]
    return refs


def check_refs(
    table_root: str, refs: Sequence[FileRef], *, workers: int, storage: Storage | None = None
) -> list[FileIssue]:
    """Examine files the log references; every issue, in the order of ``refs``.

    Local ``os.stat`` calls in ``workers`` threads are faster than shipping paths to the JVM
    (Delta checks existence on Spark executors), and they compare sizes too. In an object
    store (``storage`` that is not a local folder), one listing gives every size.
    """
    if not refs:
        return []
    stored = storage if storage is not None and storage.local_path() is None else None
    sizes = {stored.uri(m.path): m.size for m in stored.walk()} if stored is not None else None

    def issues(chunk: Sequence[FileRef]) -> list[FileIssue]:
        found = (
            (key, examine_file(data_file_path(table_root, at), path=path, role=role,
                               expected_size=size, storage=stored, sizes=sizes))
            for at, path, role, size, key in chunk
        )  # fmt: skip
        return [replace(issue, key=key) for key, issue in found if issue is not None]

    if stored is not None:  # one listing gave every size
        return issues(refs)
    chunks = [refs[i : i + CHUNK] for i in range(0, len(refs), CHUNK)]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return [issue for found in pool.map(issues, chunks) for issue in found]
