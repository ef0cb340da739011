"""Writing one commit file to ``_delta_log``: created only if absent, never partial.

The Delta protocol needs "atomic file creation" and "mutual exclusion": a commit
file appears whole or not at all, and two writers can never both create the same
version. On a local (POSIX) filesystem we get both from a hard link:

1. write the full content to a temporary file in ``_delta_log`` (a dot-file, so
   no reader ever lists it as a commit) and ``fsync`` it;
2. ``os.link(temp, final)``: atomic, and it fails with ``FileExistsError`` when
   the version already exists (a concurrent writer won), so nothing is overwritten;
3. remove the temporary name and ``fsync`` the folder so the new name is durable.

A crash before step 2 leaves only a temporary dot-file (ignored by every Delta
reader); a crash after it leaves a complete commit. ``write_commit`` reports each
finished step (:class:`CommitStep`) to an optional callback, so a test can crash the
writer exactly there.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any

from inspector.delta.errors import ConcurrentModification

_CHUNK = 1 << 16


class CommitStep(StrEnum):
    """The steps of :func:`write_commit`, in order; each is reported once it is done."""

    TEMP_WRITTEN = "temp_written"  # the whole content is in the temporary dot-file
    TEMP_FSYNCED = "temp_fsynced"  # ... and on disk
    LINKED = "linked"  # the commit file exists under its final name
    TEMP_REMOVED = "temp_removed"  # the temporary name is gone


def _no_report(step: CommitStep) -> None:
    pass


def commit_file_name(version: int) -> str:
    """The file name of a version's commit: ``00000000000000000042.json``."""
    return f"{version:020d}.json"


def encode_actions(actions: Iterable[Mapping[str, Any]]) -> bytes:
    """Newline-delimited JSON, one action per line, as the protocol requires."""
    lines = [json.dumps(a, separators=(",", ":"), ensure_ascii=False) for a in actions]
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_commit(
    log_folder: str,
    version: int,
    actions: Iterable[Mapping[str, Any]],
    *,
    on_step: Callable[[CommitStep], None] = _no_report,
) -> str:
    """Create the commit file of ``version`` atomically, only if it does not exist.

    Args:
        log_folder: The table's ``_delta_log`` folder.
        version: The version to create (the read version + 1).
        actions: The commit's actions, each a one-key mapping such as ``{"add": {...}}``.
        on_step: Called after each step of the write (the fault-injection tests crash
            the process there).

    Returns:
        The path of the new commit file.

    Raises:
        ConcurrentModification: If the version already exists; nothing was written.
    """
    final = os.path.join(log_folder, commit_file_name(version))
    temp = os.path.join(log_folder, f".{commit_file_name(version)}.{uuid.uuid4()}.tmp")
    content = encode_actions(actions)
    try:
        _write_durably(temp, content, on_step)
        try:
            os.link(temp, final)
        except FileExistsError:
            raise ConcurrentModification(
                f"Another writer created version {version} first; the restore wrote nothing.",
                "Make a new plan from the table's new latest version and try again.",
            ) from None
        on_step(CommitStep.LINKED)
    finally:
        _remove_quietly(temp)
    on_step(CommitStep.TEMP_REMOVED)
    _fsync_folder(log_folder)
    return final


def _write_durably(path: str, content: bytes, on_step: Callable[[CommitStep], None]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(content)
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
        on_step(CommitStep.TEMP_WRITTEN)
        os.fsync(fd)
        on_step(CommitStep.TEMP_FSYNCED)
    finally:
        os.close(fd)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _fsync_folder(folder: str) -> None:
    """Make the new directory entry durable (best effort: not every OS allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
