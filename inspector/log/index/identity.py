"""The identity of a listing's log files: what an answer kept in the log index is kept under.

An answer computed from a listing (a whole history, :mod:`inspector.table.history_store`;
``detail``'s text, :mod:`inspector.log.index.answers`) is kept under a digest of every log
file it was computed from: each commit's and checksum's version, size, modification time and
ETag (a local file's is its inode and modification time in ns), and each checkpoint's and
compacted file's name, size, modification time and ETag. A later listing whose digest is the
same has the same files, unchanged; a file rewritten, added or removed changes it. A whole
listing's commits and checksums are read from its columns
(:class:`~inspector.log.columnlisting.ColumnFiles`): no record per file.
"""

from __future__ import annotations

from collections.abc import Mapping
from hashlib import sha256

import orjson

from inspector.log.columnlisting import ColumnFiles, FileColumns
from inspector.log.listing import LogFile, LogListing
from inspector.log.staged import STAGED_DIR


def files_identity(listing: LogListing, *, upto: int | None = None) -> str | None:
    """The digest of the identity of every log file of ``listing`` up to version ``upto``
    (every file when None; a compacted file counts at its last version).

    Returns:
        The digest (hex), or None when the listing holds a catalog's staged commit (an answer
        computed from one is never kept: a staged commit is not immutable).
    """
    commits = _by_version(listing.commits, upto)
    if any(f"{STAGED_DIR}/" in path for path in commits[1]):
        return None
    crcs = _by_version(listing.crcs, upto)
    within = [cps for v, cps in listing.checkpoints.items() if upto is None or v <= upto]
    others = [f for cps in within for cp in cps for f in cp.files]
    others += [f for f in listing.compacted if upto is None or int(f.name[21:41]) <= upto]
    identity = [
        [commits[0], *commits[2:]],
        [crcs[0], *crcs[2:]],
        sorted((f.name, f.size, f.modification_time, f.etag) for f in others),
    ]
    return sha256(orjson.dumps(identity)).hexdigest()


def _by_version(files: Mapping[int, LogFile], upto: int | None) -> FileColumns:
    """Files by version up to ``upto`` as columns (:meth:`ColumnFiles.columns`)."""
    if isinstance(files, ColumnFiles):
        return files.columns(upto)
    versions = sorted(v for v in files if upto is None or v <= upto)
    found = [files[v] for v in versions]
    return (
        versions,
        [f.path for f in found],
        [f.size for f in found],
        [f.modification_time for f in found],
        [f.etag for f in found],
    )
