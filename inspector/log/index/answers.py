"""Short answers kept in the log index: a question's printed text, under the identity of
every log file it was computed from.

A question that reads only the newest part of the log (``detail``: the newest checkpoint and
the commits after it, and the commit files' times that the file-time rule chains from) may
keep the text it printed (``result-<kind>.bin``, :mod:`inspector.log.index.results`) under a
digest of what it read: each file's identity (:mod:`inspector.log.index.identity`), the
``_last_checkpoint`` hint, and whatever else the question names (its setting, the times). A
later run gives the kept text only when the digest of what it has just listed is the same,
so any changed, added or removed file computes the answer afresh, which is then kept. A
catalog's staged commits are never kept. The text is the CLI's one renderer's output, kept,
not a second renderer: it is written only from what that renderer printed. A result that is
not printed is kept the same way when computing it costs a pass over every commit: the
retention band's first removals (:mod:`inspector.health.retention`, as JSON).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from hashlib import blake2b
from typing import Any

import orjson

import inspector
from inspector.log.index.identity import files_identity
from inspector.log.index.results import drop_result, load_result, save_result
from inspector.log.index.tables import TableIndex
from inspector.log.listing import LogListing

_FORMAT = 2  # bumped whenever what is kept, or what an identity holds, changes


class KeptAnswer:
    """One question's kept text for the files it reads (see the module).

    Args:
        index: The table's part of the log index.
        kind: The question (``detail``).
        identity: What the answer was computed from (:func:`listing_identity` and more);
            JSON values.
    """

    def __init__(self, index: TableIndex, kind: str, identity: Sequence[Any]) -> None:
        self.index, self.kind = index, kind
        try:
            material = orjson.dumps([_FORMAT, inspector.__version__, kind, *identity])
        except TypeError:  # a value JSON cannot hold: nothing is kept
            self.key: bytes | None = None
        else:
            self.key = blake2b(material, digest_size=16).hexdigest().encode()

    def load(self) -> str | None:
        """The kept text when it was kept for this identity (else None)."""
        found = None if self.key is None else load_result(self.index, self.kind, parts=2)
        if found is None:
            return None
        key, text = found.parts
        if key.tobytes() != self.key:
            return None  # kept for other files: computed afresh
        try:
            return str(text, "utf-8")
        except UnicodeDecodeError:
            drop_result(self.index, self.kind)
            return None

    def save(self, text: str) -> None:
        """Keep the text the renderer printed for this identity."""
        if self.key is not None:
            save_result(self.index, self.kind, self.key, text.encode())


def times_identity(times: Mapping[int, int]) -> str:
    """A digest of commit files' modification times by version (a log's every commit: no
    JSON of 20,000 pairs)."""
    versions = sorted(times)
    ordered = (
        array("q", versions).tobytes() + array("q", map(times.__getitem__, versions)).tobytes()
    )
    return blake2b(ordered, digest_size=16).hexdigest()


def listing_identity(listing: LogListing) -> list[Any] | None:
    """Every file of a listing (commits, checkpoints, checksums, compacted files: their
    :func:`~inspector.log.index.identity.files_identity`) and its ``_last_checkpoint`` hint;
    None when it holds a catalog's staged commit (never kept)."""
    files = files_identity(listing)
    if files is None:
        return None
    last = listing.last_checkpoint
    return [
        listing.from_version,
        files,
        None if last is None else [last.version, dict(last.raw), last.problem],
    ]
