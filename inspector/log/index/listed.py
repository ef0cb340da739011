"""The listing record: the last whole listing of a table's ``_delta_log``, kept in its folder of
the index, so that a later open lists only what is new (:mod:`inspector.log.relist`).

One file, ``listing-<digest>.json`` (columnar JSON of the log files' paths, sizes,
modification times and ETags; the digest is of the file, so a truncated or corrupted one is
found, removed and ignored). It holds file names and sizes, no content and no credentials.
Written to a temporary name and renamed into place; a reader takes the newest whole one.
"""

from __future__ import annotations

import hashlib
import os
import re

import orjson

from inspector.log.index.segments import write_atomically
from inspector.log.index.tables import TableIndex
from inspector.storage import ObjectMeta

_NAME = re.compile(r"^listing-([0-9a-f]{32})\.json$")


def read_listing(table: TableIndex) -> list[ObjectMeta] | None:
    """The recorded listing, sorted by path; None when there is none (or none whole).

    Another user's folder is never read (they could have planted what it says).
    """
    if not os.path.isdir(table.folder) or not table.index.usable():
        return None
    for name in sorted(_records(table.folder), key=lambda n: -_mtime(table.folder, n)):
        path = os.path.join(table.folder, name)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            if _digest(raw) != _NAME.fullmatch(name)[1]:  # type: ignore[index]
                raise ValueError("digest mismatch")
            body = orjson.loads(raw)
            columns = zip(body["path"], body["size"], body["time"], body["etag"], strict=True)
            return [ObjectMeta(path=p, size=s, last_modified=t, etag=e) for p, s, t, e in columns]
        except OSError:
            continue  # replaced meanwhile by another process
        except (ValueError, KeyError, TypeError):
            _remove(path)
    return None


def holds_listing(table: TableIndex) -> bool:
    """Whether a listing is recorded (its file is there; it is checked when read)."""
    return bool(_records(table.folder)) and table.index.usable()


def write_listing(table: TableIndex, files: list[ObjectMeta]) -> None:
    """Record a whole listing's log files (replacing the record held); a full disk or a
    folder that cannot be used leaves the index without one, never changes an answer."""
    if not table.index.usable():
        return
    body = {
        "path": [f.path for f in files],
        "size": [f.size for f in files],
        "time": [f.last_modified for f in files],
        "etag": [f.etag for f in files],
    }
    raw = orjson.dumps(body)
    name = f"listing-{_digest(raw)}.json"
    try:
        os.makedirs(table.folder, mode=0o700, exist_ok=True)
        old = [n for n in _records(table.folder) if n != name]
        write_atomically(os.path.join(table.folder, name), raw)
    except OSError:
        return
    for stale in old:
        _remove(os.path.join(table.folder, stale))


def _records(folder: str) -> list[str]:
    try:
        return [n for n in os.listdir(folder) if _NAME.fullmatch(n)]
    except OSError:
        return []


def _mtime(folder: str, name: str) -> float:
    try:
        return os.stat(os.path.join(folder, name)).st_mtime
    except OSError:
        return 0.0


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
