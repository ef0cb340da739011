"""Listing the ``_delta_log`` folder: which commits, checkpoints and checksums exist.

Versions always come from file names (``00000000000000000042.json`` is version 42),
never from counting files.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.delta.errors import NotADeltaTable
from inspector.delta.paths import log_dir

_COMMIT = re.compile(r"^(\d{20})\.json$")
_CLASSIC = re.compile(r"^(\d{20})\.checkpoint\.parquet$")
_MULTI = re.compile(r"^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$")
_V2 = re.compile(r"^(\d{20})\.checkpoint\.([0-9a-fA-F-]{36})\.(json|parquet)$")
_CRC = re.compile(r"^(\d{20})\.crc$")
_COMPACTED = re.compile(r"^(\d{20})\.(\d{20})\.compacted\.json$")
LAST_CHECKPOINT = "_last_checkpoint"


@dataclass(frozen=True)
class LogFile:
    """A file in ``_delta_log``: its name, absolute path, size and modification time (ms)."""

    name: str
    path: str
    size: int
    modification_time: int


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class LastCheckpoint:
    """The parsed ``_last_checkpoint`` hint, or the reason it could not be parsed."""

    version: int | None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    problem: str | None = None


@dataclass(frozen=True)
class LogListing:
    """Everything in ``_delta_log`` that log replay cares about, keyed by version."""

    commits: Mapping[int, LogFile]
    checkpoints: Mapping[int, tuple[Checkpoint, ...]]
    crcs: Mapping[int, LogFile]
    compacted: tuple[LogFile, ...]
    last_checkpoint: LastCheckpoint | None
    staged_commits: int = 0

    @property
    def commit_versions(self) -> list[int]:
        """Versions that have a commit file, ascending."""
        return sorted(self.commits)

    def usable_checkpoints(self) -> list[Checkpoint]:
        """Complete checkpoints, newest first (several may share a version)."""
        found = [cp for cps in self.checkpoints.values() for cp in cps if cp.complete]
        return sorted(found, key=lambda cp: (-cp.version, cp.kind != "v2"))


def list_log(table_root: str) -> LogListing:
    """List a table's ``_delta_log``.

    Args:
        table_root: Absolute path of the table root.

    Returns:
        The listing.

    Raises:
        NotADeltaTable: If the folder is missing, has no ``_delta_log``, or the log
            has neither commits nor checkpoints.
    """
    folder = log_dir(table_root)
    if not os.path.isdir(table_root):
        raise NotADeltaTable(
            f"'{table_root}' does not exist or is not a folder.",
            "Check the path; it should be the folder that contains _delta_log.",
        )
    if not os.path.isdir(folder):
        root = _enclosing_table(table_root)
        raise NotADeltaTable(
            f"'{table_root}' is not a Delta table: it has no _delta_log folder.",
            f"Open '{root}', the table this folder belongs to."
            if root
            else "Open the folder that contains _delta_log (the table root).",
        )
    try:
        entries = _scan(folder)
    except OSError as exc:
        raise NotADeltaTable(
            f"The _delta_log folder of '{table_root}' cannot be read ({exc.strerror}).",
            "Check that you may read the folder (permissions, a stale mount).",
        ) from None
    listing = _classify(entries, folder)
    if not listing.commits and not listing.checkpoints:
        raise NotADeltaTable(
            f"'{table_root}' has a _delta_log folder but no commit or checkpoint files in it.",
            "The table was never committed or its log was deleted; restore _delta_log from a backup.",
        )
    return listing


def _enclosing_table(path: str, levels: int = 8) -> str | None:
    """The nearest folder above ``path`` that has a ``_delta_log`` (a typed ``…/_delta_log``
    or a partition folder), or None."""
    current = os.path.normpath(path)
    for _ in range(levels):
        parent = os.path.dirname(current)
        if parent == current:
            return None
        if os.path.isdir(log_dir(parent)):
            return parent
        current = parent
    return None


def _scan(folder: str) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        return list(it)


def _log_file(entry: os.DirEntry) -> LogFile | None:
    try:
        st = entry.stat()
    except OSError:  # removed since the folder was listed (a concurrent log cleanup)
        return None
    return LogFile(entry.name, entry.path, st.st_size, int(st.st_mtime * 1000))


def _classify(entries: list[os.DirEntry], folder: str) -> LogListing:
    commits: dict[int, LogFile | None] = {}
    crcs: dict[int, LogFile | None] = {}
    compacted: list[LogFile | None] = []
    staged = 0
    parts: dict[tuple[int, str], list[LogFile | None]] = {}
    last = None
    for entry in entries:
        name = entry.name
        if m := _COMMIT.match(name):
            commits[int(m.group(1))] = _log_file(entry)
        elif m := _CRC.match(name):
            crcs[int(m.group(1))] = _log_file(entry)
        elif m := (_CLASSIC.match(name) or _MULTI.match(name) or _V2.match(name)):
            parts.setdefault((int(m.group(1)), _checkpoint_group(name, m)), []).append(
                _log_file(entry)
            )
        elif _COMPACTED.match(name):
            compacted.append(_log_file(entry))
        elif name == LAST_CHECKPOINT:
            last = read_last_checkpoint(entry.path)
        elif name == "_staged_commits" and entry.is_dir():
            staged = _count_entries(entry.path)
    # A file that vanished between listing and stat (a concurrent cleanup) is not there.
    present = {key: [f for f in files if f] for key, files in parts.items()}
    return LogListing(
        {v: f for v, f in commits.items() if f},
        _group_checkpoints(present),
        {v: f for v, f in crcs.items() if f},
        tuple(sorted((f for f in compacted if f), key=lambda f: f.name)),
        last,
        staged,
    )


def _count_entries(path: str) -> int:
    try:
        return len(os.listdir(path))
    except OSError:
        return 0


def _checkpoint_group(name: str, match: re.Match) -> str:
    """A key that gathers the parts of one checkpoint (``multi:N`` or the file name)."""
    if match.re is _MULTI:
        return f"multi:{int(match.group(3))}"
    return name


def _group_checkpoints(
    parts: dict[tuple[int, str], list[LogFile]],
) -> dict[int, tuple[Checkpoint, ...]]:
    grouped: dict[int, list[Checkpoint]] = {}
    for (version, group), files in parts.items():
        if not files:
            continue
        files.sort(key=lambda f: f.name)
        if group.startswith("multi:"):
            expected = int(group.split(":")[1])
            cp = Checkpoint(
                version,
                "multi-part",
                tuple(files),
                complete=len(files) == expected,
                expected_parts=expected,
            )
        elif _V2.match(group):
            cp = Checkpoint(version, "v2", tuple(files))
        else:
            cp = Checkpoint(version, "classic", tuple(files))
        grouped.setdefault(version, []).append(cp)
    return {v: tuple(cps) for v, cps in grouped.items()}


def read_last_checkpoint(path: str) -> LastCheckpoint:
    """Parse ``_last_checkpoint``; a garbage file gives a problem instead of an error."""
    try:
        with open(path, "rb") as fh:
            raw = json.loads(fh.read().decode("utf-8"))
        return LastCheckpoint(int(raw["version"]), raw)
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        return LastCheckpoint(
            None,
            {},
            f"_last_checkpoint is unreadable ({type(exc).__name__}); "
            "it was ignored and the log folder was listed instead.",
        )
