"""Checkpoint files kept in the log index, so that a later read GETs no checkpoint.

A checkpoint part (classic, multi-part, V2) or a V2 checkpoint's sidecar is kept as the
file the store holds: a Parquet file is already the columnar form the log core reads a
checkpoint in (:func:`~inspector.log.checkpoint.read_checkpoint_state` reads only the
columns a question needs, from the store's bytes or the kept copy alike), so a kept copy is
read by the one reader, smaller than its Arrow tables decoded, and costs no encoding to fill.

One file per checkpoint file: ``checkpoint-<key>-<digest>.<parquet|json>``. The key is a
digest of the file's name, size, modification time and ETag as listed (a sidecar: its name,
``sizeInBytes`` and ``modificationTime`` as the checkpoint that names it says), so a
rewritten checkpoint, or a table recreated at the same path, is never served from an older
copy. The digest is of the content: a truncated or corrupted copy is found when read,
removed and read from the store again. Copies are written to a temporary name and renamed
into place (two processes write the same name with the same bytes). Only the newest
:data:`KEPT` checkpoint files a table used are kept; the index's size limit evicts
whole tables as for commits.
"""

from __future__ import annotations

import os
import re

from inspector.log.index import tables
from inspector.log.index.segments import digest, names_in, remove_quietly, write_atomically
from inspector.log.index.tables import TableIndex
from inspector.log.index.usage import touch_file, used_at
from inspector.log.listing import LogFile
from inspector.storage import Storage

_NAME = re.compile(r"^checkpoint-([0-9a-f]{32})-([0-9a-f]{32})\.(parquet|json)$")
#: Checkpoint files kept per table (the least recently used beyond it are removed): a full
#: history reads the newest two, ``files --version N`` the one below N.
KEPT = 8


def read_checkpoint_file(table: TableIndex | None, storage: Storage, file: LogFile) -> bytes:
    """A checkpoint part's or sidecar's bytes: the index's copy when it is of this very file,
    else read from ``storage`` and kept.

    Args:
        table: The table's part of the log index (None: read from the store).
        storage: The table's storage.
        file: The file as listed (a sidecar: as its checkpoint describes it).

    Raises:
        OSError: As :meth:`~inspector.storage.Storage.read`.
    """
    if table is None or not kept_in(table, storage):
        return storage.read(file.path)
    found = _cached(table, file)
    if found is not None:
        return found
    data = storage.read(file.path)
    if len(data) == file.size:  # a file that changed since it was listed is not kept
        _keep(table, file, data)
    return data


def kept_in(table: TableIndex | None, storage: Storage) -> bool:
    """Whether a table's checkpoints go through the index: an object store's do; a local
    one is read in place (unless the tests send local reads through it, ``LOCAL_FROM``)."""
    return table is not None and (storage.local_path() is None or tables.LOCAL_FROM <= 1)


def _key(file: LogFile) -> str:
    return digest(f"{file.name}\0{file.size}\0{file.modification_time}\0{file.etag}".encode())


def _cached(table: TableIndex, file: LogFile) -> bytes | None:
    """The kept copy of this very file (None: none, or a damaged one, which is removed).
    Another user's folder is never read: they could have planted what it serves."""
    if not os.path.isdir(table.folder) or not table.index.usable():
        return None
    key = _key(file)
    for name in names_in(table.folder, _NAME):
        if not name.startswith(f"checkpoint-{key}-"):
            continue
        path = os.path.join(table.folder, name)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError:
            continue  # removed meanwhile by another process
        if digest(raw) == _NAME.fullmatch(name)[2] and len(raw) == file.size:  # type: ignore[index]
            touch_file(path)
            return raw
        remove_quietly(path)
    return None


def _keep(table: TableIndex, file: LogFile, data: bytes) -> None:
    """Keep a copy; a full disk or an unusable folder leaves it out, never changes an answer."""
    if not table.index.usable():
        return
    suffix = "json" if file.name.endswith(".json") else "parquet"
    name = f"checkpoint-{_key(file)}-{digest(data)}.{suffix}"
    try:
        os.makedirs(table.folder, mode=0o700, exist_ok=True)
        write_atomically(os.path.join(table.folder, name), data)
    except OSError:
        return
    _prune(table.folder, keep=name)
    table.index.evict(keep=table.folder)


def _prune(folder: str, *, keep: str) -> None:
    """Remove the least recently used copies beyond :data:`KEPT` (never the one just kept)."""
    names = [n for n in names_in(folder, _NAME) if n != keep]
    names.sort(key=lambda n: -used_at(os.path.join(folder, n)))
    for stale in names[KEPT - 1 :]:
        remove_quietly(os.path.join(folder, stale))
