"""Answers kept beside a table's commits in the log index: a question's finished result.

A result is one file per kind in the table's subfolder (``result-<kind>.bin``): the
blake2b digest of its body (hex, then a newline), then the body, which the question that
wrote it encodes and checks against the listing it is asked with (the history's entries,
:mod:`inspector.table.history_store`). A file whose digest does not match (truncated,
corrupted) is removed and not used. It is written to a temporary name and renamed into
place, so two processes writing at once leave one whole result; it counts towards the
index's size limit, and goes with its table when that is evicted or cleared.
"""

from __future__ import annotations

import os
import re
from hashlib import blake2b

from inspector.log.index import segments as seg
from inspector.log.index.tables import TableIndex
from inspector.log.index.usage import touch

_KIND = re.compile(r"^[a-z]+$")


def _path(index: TableIndex, kind: str) -> str:
    if not _KIND.match(kind):
        raise ValueError(f"not a result kind: {kind!r}")
    return os.path.join(index.folder, f"result-{kind}.bin")


def has_result(index: TableIndex, kind: str) -> bool:
    """Whether a result of this kind is kept (a cheap look, before listing a whole log)."""
    return os.path.isfile(_path(index, kind))


def load_result(index: TableIndex, kind: str) -> bytes | None:
    """The kept body of a result, or None (none kept, the folder not this user's alone, or
    the file damaged: then it is removed)."""
    path = _path(index, kind)
    if not os.path.isfile(path) or not index.index.usable():
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    digest, _, body = data.partition(b"\n")
    if digest != _digest(body):
        seg.remove_quietly(path)
        return None
    touch(index.folder)
    return body


def save_result(index: TableIndex, kind: str, body: bytes) -> None:
    """Keep a result's body (whole or not at all); a full disk leaves the answer unaffected."""
    if not index.index.usable():
        return
    try:
        os.makedirs(index.folder, mode=0o700, exist_ok=True)
        index.note_location()
        seg.write_atomically(_path(index, kind), _digest(body) + b"\n" + body)
    except OSError:
        return
    index.index.evict(keep=index.folder)


def drop_result(index: TableIndex, kind: str) -> None:
    """Remove a kept result (one found unusable)."""
    seg.remove_quietly(_path(index, kind))


def _digest(body: bytes) -> bytes:
    return blake2b(body, digest_size=16).hexdigest().encode()
