"""Answers kept beside a table's commits in the log index: a question's finished result.

A result is one file per kind in the table's subfolder (``result-<kind>.bin``): the digest
of its body (128 bits of SHA-256 in hex, then a newline: a history's text is tens of MB,
and processors hash SHA-256 in hardware), then the body (parts joined by newlines, read back
as views of the file read, not copies), which the question that wrote it encodes and checks
against the listing it is asked with (the history's entries,
:mod:`inspector.table.history_store`; short answers, :mod:`inspector.log.index.answers`).
A file whose digest does not match (truncated, corrupted) is removed and not used. It is
written to a temporary name and renamed into place, so two processes writing at once leave
one whole result; it counts towards the index's size limit, and goes with its table when
that is evicted or cleared.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import sha256

from inspector.log.index import segments as seg
from inspector.log.index.tables import TableIndex
from inspector.log.index.usage import touch

_KIND = re.compile(r"^[a-z]+$")


def _path(index: TableIndex, kind: str) -> str:
    if not _KIND.match(kind):
        raise ValueError(f"not a result kind: {kind!r}")
    return os.path.join(index.folder, f"result-{kind}.bin")


@dataclass(frozen=True)
class KeptResult:
    """A result's body as kept: the digest it is kept under, and the body's parts."""

    key: bytes  # the digest of the body (what names the body a later result belongs to)
    parts: list[memoryview]  # the body split at its first newlines (views of the file read)


def has_result(index: TableIndex, kind: str) -> bool:
    """Whether a result of this kind is kept (a cheap look, before listing a whole log)."""
    return os.path.isfile(_path(index, kind))


def load_result(index: TableIndex, kind: str, parts: int = 1) -> KeptResult | None:
    """The kept body of a result, split at its first ``parts - 1`` newlines, or None (none
    kept, too few parts, the folder not this user's alone, or the file damaged: then it is
    removed)."""
    path = _path(index, kind)
    if not os.path.isfile(path) or not index.index.usable():
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    ends = [data.find(b"\n")]
    while len(ends) < parts and ends[-1] >= 0:
        ends.append(data.find(b"\n", ends[-1] + 1))
    view = memoryview(data)
    if ends[-1] < 0 or data[: ends[0]] != _digest(view[ends[0] + 1 :]):
        seg.remove_quietly(path)
        return None
    touch(index.folder)
    bounds = [*ends, len(data)]
    split = [view[bounds[i] + 1 : bounds[i + 1]] for i in range(len(ends))]
    return KeptResult(key=data[: ends[0]], parts=split)


def save_result(index: TableIndex, kind: str, *parts: bytes | Sequence[bytes]) -> bytes:
    """Keep a result's body, its ``parts`` joined by newlines (whole or not at all); a full
    disk leaves the answer unaffected. A part given as chunks is written chunk by chunk: the
    body is never joined in memory (a history's text is tens of MB).

    Returns:
        The digest the body is kept under (:attr:`KeptResult.key`).
    """
    joined: list[bytes] = []
    for i, part in enumerate(parts):
        joined += [b"\n"] if i else []
        joined += [part] if isinstance(part, bytes) else part
    hashed = sha256()
    for chunk in joined:
        hashed.update(chunk)
    key = hashed.hexdigest()[:32].encode()
    if not index.index.usable():
        return key
    try:
        os.makedirs(index.folder, mode=0o700, exist_ok=True)
        index.note_location()
        seg.write_atomically(_path(index, kind), key + b"\n", *joined)
    except OSError:
        return key
    index.index.evict(keep=index.folder)
    return key


def drop_result(index: TableIndex, kind: str) -> None:
    """Remove a kept result (one found unusable)."""
    seg.remove_quietly(_path(index, kind))


def _digest(body: bytes | memoryview) -> bytes:
    return sha256(body).hexdigest()[:32].encode()
