"""How much of the log index a table's subfolder takes and when it, or one of its files,
was last used (the index evicts the least recently used tables and copies first)."""

from __future__ import annotations

import os

MANIFEST = "table.json"  # a table's subfolder's record of its location and table id


def touch(folder: str) -> None:
    """Mark a table's subfolder used now (eviction removes the least recently used first)."""
    touch_file(os.path.join(folder, MANIFEST))


def last_used(folder: str) -> float:
    """When a table's subfolder was last used (0: never recorded)."""
    return used_at(os.path.join(folder, MANIFEST))


def touch_file(path: str) -> None:
    """Mark a file of the index used now: its modification time is when it was last used
    (another process may have removed it already)."""
    try:
        os.utime(path)
    except OSError:
        pass


def used_at(path: str) -> float:
    """When a file of the index was last used or written (0: it is gone)."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def folder_size(folder: str) -> int:
    """Bytes the files of a table's subfolder take."""
    try:
        with os.scandir(folder) as it:
            return sum(e.stat().st_size for e in it if e.is_file())
    except OSError:
        return 0
