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
reader); a crash after it leaves a complete commit.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from inspector.delta.errors import ConcurrentModification

#: Seconds to pause between the writer's steps. Always 0 in normal use; the
#: fault-injection test raises it in a subprocess so that a SIGKILL can land
#: between every pair of steps.
STEP_PAUSE_SECONDS = 0.0

_CHUNK = 1 << 16


def commit_file_name(version: int) -> str:
    """The file name of a version's commit: ``00000000000000000042.json``."""
    return f"{version:020d}.json"


def encode_actions(actions: Iterable[Mapping[str, Any]]) -> bytes:
    """Newline-delimited JSON, one action per line, as the protocol requires."""
    lines = [json.dumps(a, separators=(",", ":"), ensure_ascii=False) for a in actions]
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_commit(log_folder: str, version: int, actions: Iterable[Mapping[str, Any]]) -> str:
    """Create the commit file of ``version`` atomically, only if it does not exist.

    Args:
        log_folder: The table's ``_delta_log`` folder.
        version: The version to create (the read version + 1).
        actions: The commit's actions, each a one-key mapping such as ``{"add": {...}}``.

    Returns:
        The path of the new commit file.

    Raises:
        ConcurrentModification: If the version already exists; nothing was written.
    """
    final = os.path.join(log_folder, commit_file_name(version))
    temp = os.path.join(log_folder, f".{commit_file_name(version)}.{uuid.uuid4()}.tmp")
    content = encode_actions(actions)
    try:
        _write_durably(temp, content)
        _pause()
        try:
            os.link(temp, final)
        except FileExistsError:
            raise ConcurrentModification(
                f"Another writer created version {version} first; the restore wrote nothing.",
                "Make a new plan from the table's new latest version and try again.",
            ) from None
        _pause()
    finally:
        _remove_quietly(temp)
    _fsync_folder(log_folder)
    return final


def _write_durably(path: str, content: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(content)
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
            _pause()
        os.fsync(fd)
    finally:
        os.close(fd)


def _pause() -> None:
    if STEP_PAUSE_SECONDS:
        time.sleep(STEP_PAUSE_SECONDS)


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
