"""Listing the ``_delta_log`` folder: which commits, checkpoints and checksums exist.

The folder is listed through the table's :class:`~inspector.storage.Storage`, so a
local folder and an object store prefix are read alike. Versions always come from file names (``00000000000000000042.json`` is version 42),
never from counting files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from inspector.delta.errors import NotADeltaTable
from inspector.delta.paths import LOG_DIR
from inspector.log import text
from inspector.storage import FileColumns, ObjectMeta, Storage

COMMIT_FILE = re.compile(r"^(\d{20})\.json$")
_CLASSIC = re.compile(r"^(\d{20})\.checkpoint\.parquet$")
_MULTI = re.compile(r"^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$")
_V2 = re.compile(r"^(\d{20})\.checkpoint\.([0-9a-fA-F-]{36})\.(json|parquet)$")
CRC_FILE = re.compile(r"^(\d{20})\.crc$")
_CHECKPOINT_KINDS = {_CLASSIC: "classic", _MULTI: "multi-part", _V2: "v2"}
_COMPACTED = re.compile(r"^(\d{20})\.(\d{20})\.compacted\.json$")
LAST_CHECKPOINT = "_last_checkpoint"
_T = TypeVar("_T")


@dataclass(frozen=True, kw_only=True)
class LogFile:
    """A file in ``_delta_log``: its name, location, size and modification time (ms).

    ``path`` is an absolute local path, or a URI for a table in an object store; the
    table's storage reads either. ``etag`` is the store's (:attr:`ObjectMeta.etag`).
    """

    name: str
    path: str
    size: int
    modification_time: int
    etag: str | None = None


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """One checkpoint of a version: classic, multi-part or V2 (UUID-named).

    ``complete`` is False for a multi-part checkpoint with parts missing; such a
    checkpoint must not be used for log replay. ``expected_parts`` is the part
    count a multi-part checkpoint's file names announce (None for other kinds).
    """

    version: int
    kind: str
    files: tuple[LogFile, ...]
    complete: bool = True
    expected_parts: int | None = None

    def incomplete_reason(self) -> str:
        """Why an incomplete multi-part checkpoint is ignored, in plain words."""
        expected = f" of its {self.expected_parts}" if self.expected_parts else ""
        return (
            f"Checkpoint {self.version} is a multi-part checkpoint with only {len(self.files)}"
            f"{expected} parts present; it is ignored, and versions from {self.version} on are "
            "read from an older checkpoint or from the commits instead, where they exist."
        )


@dataclass(frozen=True, kw_only=True)
class LastCheckpoint:
    """The parsed ``_last_checkpoint`` hint, or the reason it could not be parsed."""

    version: int | None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    problem: str | None = None


@dataclass(frozen=True, kw_only=True)
class LogListing:
    """Everything in ``_delta_log`` that log replay cares about, keyed by version.

    ``from_version`` is 0 for a listing of the whole folder, or the version of the
    checkpoint a listing started at (:meth:`~inspector.log.relist.LogLister.tail`): then only that checkpoint,
    newer ones and the commits from it on are in it.
    """

    commits: Mapping[int, LogFile]
    checkpoints: Mapping[int, tuple[Checkpoint, ...]]
    crcs: Mapping[int, LogFile]
    compacted: tuple[LogFile, ...]
    last_checkpoint: LastCheckpoint | None
    from_version: int = 0
    #: The digest of the listing record a whole listing was made from (an indexed log:
    #: :meth:`~inspector.log.index.listed.ListingRecord.key`), else None: what names the
    #: files a kept answer was computed from without going through them.
    record: str | None = field(default=None, compare=False)

    @property
    def is_whole(self) -> bool:
        """True for a listing of the whole folder; False for one that started at a checkpoint."""
        return self.from_version == 0

    @property
    def commit_versions(self) -> list[int]:
        """Versions that have a commit file, ascending."""
        return sorted(self.commits)

    def usable_checkpoints(self) -> list[Checkpoint]:
        """Complete checkpoints, newest first (several may share a version)."""
        found = [cp for cps in self.checkpoints.values() for cp in cps if cp.complete]
        return sorted(found, key=lambda cp: (-cp.version, cp.kind != "v2"))

    def newest_checkpoint(self, version: int) -> Checkpoint | None:
        """The newest complete checkpoint at or below ``version`` (a replay's base)."""
        return next((cp for cp in self.usable_checkpoints() if cp.version <= version), None)


def list_log_from(storage: Storage, version: int, *, last: LastCheckpoint | None) -> LogListing:
    """``_delta_log`` from ``version`` on (a start-after listing: an object store does not send
    older names); 0 or less lists the whole folder. Raises as :func:`list_log` does."""
    if version <= 0:
        return list_log(storage, last=last)
    after = f"{LOG_DIR}/{version - 1:020d}~"  # "~" sorts after every name of version - 1
    return replace(
        classify(storage.list(LOG_DIR, start_after=after), storage, last=last),
        from_version=version,
    )


def list_log(storage: Storage, *, last: LastCheckpoint | None = None) -> LogListing:
    """List a table's whole ``_delta_log``.

    Args:
        storage: The table's storage.
        last: ``_last_checkpoint`` when the caller has read it already (it is not read again).

    Raises:
        NotADeltaTable: If the location is missing, has no ``_delta_log``, or the log
            has neither commits nor checkpoints.
        StorageUnavailable: If the object store cannot be reached or refuses access.
    """
    return listing_of(storage, list_entries(storage), last=last)


def list_entries(storage: Storage) -> list[ObjectMeta]:
    """Every file directly in ``_delta_log``, sorted by path. Raises as :func:`list_log`."""
    return _log_folder(storage, storage.list)


def list_entry_columns(storage: Storage) -> FileColumns:
    """:func:`list_entries` as columns (:meth:`~inspector.storage.Storage.list_columns`: no
    record per file). Raises as :func:`list_log`."""
    return _log_folder(storage, storage.list_columns)


def _log_folder(storage: Storage, lister: Callable[[str], _T]) -> _T:
    try:
        return lister(LOG_DIR)
    except OSError as exc:
        raise NotADeltaTable(
            f"The _delta_log folder of '{storage.root}' cannot be read ({exc.strerror}).",
            "Check that you may read the folder (permissions, a stale mount).",
        ) from None


def listing_of(
    storage: Storage, entries: list[ObjectMeta], *, last: LastCheckpoint | None
) -> LogListing:
    """The whole listing that ``entries`` (all of ``_delta_log``) make. Raises as :func:`list_log`."""
    if not entries:
        _explain_empty(storage)
    listing = classify(entries, storage, last=last)
    if not listing.commits and not listing.checkpoints:
        raise NotADeltaTable(
            f"'{storage.root}' has a _delta_log folder but no commit or checkpoint files in it.",
            "The table was never committed or its log was deleted; restore _delta_log from a backup.",
        )
    return listing


def listing_stamp(storage: Storage) -> tuple[int, int] | None:
    """What changes whenever a file is added to, removed from or renamed in a local ``_delta_log``.

    The folder's modification time (ns) and inode: Delta never rewrites a log file in
    place (commits are created, checkpoints written beside, cleanup deletes), so while
    the stamp is unchanged a new listing would find the same names. A caller that
    re-lists to notice new commits may skip the listing then (see ``ui/tables.py``).

    Returns:
        The stamp, or None for an object store (no folder to ask) or a missing folder.
    """
    local = storage.local_path(LOG_DIR)
    if local is None:
        return None
    try:
        info = os.stat(local)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ino


def _explain_empty(storage: Storage) -> None:
    """Say why a ``_delta_log`` listing came back empty (no table there, or no log)."""
    root, local = storage.root, storage.local_path()
    if local is not None and not os.path.isdir(root):
        raise NotADeltaTable(
            f"'{root}' does not exist or is not a folder.",
            "Check the path; it should be the folder that contains _delta_log.",
        )
    if local is None and not storage.exists(""):
        raise NotADeltaTable(
            f"'{root}' does not exist: there are no objects under it.",
            "Check the location; it should be the prefix that contains _delta_log.",
        )
    if not storage.exists(LOG_DIR):
        table = _enclosing_table(local) if local is not None else None
        raise NotADeltaTable(
            f"'{root}' is not a Delta table: it has no _delta_log folder.",
            f"Open '{table}', the table this folder belongs to."
            if table
            else "Open the folder that contains _delta_log (the table root).",
        )


def _enclosing_table(path: str, levels: int = 8) -> str | None:
    """The nearest folder above ``path`` that has a ``_delta_log`` (a typed ``…/_delta_log``
    or a partition folder), or None."""
    current = os.path.normpath(path)
    for _ in range(levels):
        parent = os.path.dirname(current)
        if parent == current:
            return None
        if os.path.isdir(os.path.join(parent, LOG_DIR)):
            return parent
        current = parent
    return None


def log_file(storage: Storage, meta: ObjectMeta) -> LogFile:
    """A listed file (of ``_delta_log`` or a folder in it) as a LogFile."""
    return LogFile(
        name=meta.name,
        path=storage.uri(meta.path),
        size=meta.size,
        modification_time=meta.last_modified,
        etag=meta.etag,
    )


def classify(
    entries: list[ObjectMeta], storage: Storage, *, last: LastCheckpoint | None = None
) -> LogListing:
    commits, crcs, compacted = {}, {}, []
    parts: dict[tuple[int, str, int | str, int | None], list[LogFile]] = {}
    for meta in entries:
        name = meta.name
        if m := COMMIT_FILE.match(name):
            commits[int(m.group(1))] = log_file(storage, meta)
        elif m := CRC_FILE.match(name):
            crcs[int(m.group(1))] = log_file(storage, meta)
        elif m := (_CLASSIC.match(name) or _MULTI.match(name) or _V2.match(name)):
            # The parts of one multi-part checkpoint gather under its announced part count.
            expected = int(m.group(3)) if m.re is _MULTI else None
            key = (
                int(m.group(1)),
                _CHECKPOINT_KINDS[m.re],
                name if expected is None else expected,
                expected,
            )
            parts.setdefault(key, []).append(log_file(storage, meta))
        elif _COMPACTED.match(name):
            compacted.append(log_file(storage, meta))
        elif name == LAST_CHECKPOINT and last is None:
            last = read_last_checkpoint(storage, meta.path)
    return LogListing(
        commits=commits,
        checkpoints=_group_checkpoints(parts),
        crcs=crcs,
        compacted=tuple(sorted(compacted, key=lambda f: f.name)),
        last_checkpoint=last,
    )


def _group_checkpoints(
    parts: dict[tuple[int, str, int | str, int | None], list[LogFile]],
) -> dict[int, tuple[Checkpoint, ...]]:
    grouped: dict[int, list[Checkpoint]] = {}
    for (version, kind, _, expected), files in parts.items():
        cp = Checkpoint(
            version=version,
            kind=kind,
            files=tuple(sorted(files, key=lambda f: f.name)),
            complete=expected in (None, len(files)),
            expected_parts=expected,
        )
        grouped.setdefault(version, []).append(cp)
    return {v: tuple(cps) for v, cps in grouped.items()}


def read_last_checkpoint(
    storage: Storage, path: str = f"{LOG_DIR}/{LAST_CHECKPOINT}"
) -> LastCheckpoint | None:
    """Parse ``_last_checkpoint`` (read directly: one GET, no listing); None when absent, and
    a garbage file gives a problem instead of an error.

    Args:
        storage: The table's storage.
        path: The file, relative to the table root (or absolute).
    """
    try:
        raw = text.loads(storage.read(path))
        return LastCheckpoint(version=int(raw["version"]), raw=raw)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return LastCheckpoint(
            version=None,
            problem=f"_last_checkpoint is unreadable ({type(exc).__name__}); "
            "it was ignored and the log folder was listed instead.",
        )
