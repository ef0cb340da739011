"""How much of the log index a table's subfolder takes and when it was last used (the
index evicts the least recently used tables first)."""

from __future__ import annotations

import os

MANIFEST = "table.json"  # a table's subfolder's record of its location and table id


def touch(folder: str) -> None:
    """Mark a table's subfolder used now (eviction removes the least recently used first)."""
    try:
        os.utime(os.path.join(folder, MANIFEST))
    except OSError:
        pass


def last_used(folder: str) -> float:
    """When a table's subfolder was last used (0: never recorded)."""
    try:
        return os.stat(os.path.join(folder, MANIFEST)).st_mtime
    except OSError:
        return 0.0


def folder_size(folder: str) -> int:
    """Bytes the files of a table's subfolder take."""
    try:
        with os.scandir(folder) as it:
            return sum(e.stat().st_size for e in it if e.is_file())
    except OSError:
        return 0
