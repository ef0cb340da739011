"""The files under a table root: one recursive listing, and Delta's rule for hidden paths.

VACUUM (full mode) and the replica check both need every file in the table folder
with its size and modification time: one recursive listing through the table's
storage (a local folder or an object store).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

from inspector.delta.actions import canonical_path
from inspector.log.deltalog import DeltaLog
from inspector.storage import ObjectMeta


def walk_table(log: DeltaLog) -> dict[str, ObjectMeta]:
    """Every file under a table's root (``_delta_log`` included), keyed by relative path.

    Args:
        log: The table's opened log; its storage (a local folder or an object
            store) is listed recursively.

    Returns:
        The files; a file deleted while the folder is listed is left out.
    """
    return {meta.path: meta for meta in log.storage.walk("")}


def is_hidden(path: str, partition_columns: Iterable[str]) -> bool:
    """Whether VACUUM leaves a path alone, by Delta's rule (``DeltaTableUtils.isHiddenDirectory``).

    A path is hidden when any of its folder or file names starts with ``.`` or
    ``_`` (``_delta_log``, ``.crc`` sidecars, ``_SUCCESS``, ``_tmp`` folders),
    except names starting with ``_delta_index`` or ``_change_data`` and partition
    folders ``<partition column>=<value>`` (a partition column may start with ``_``).

    Args:
        path: Relative to the table root, ``/``-separated.
        partition_columns: The table's partition columns.

    Returns:
        True when VACUUM never deletes the file.
    """
    if not path.startswith((".", "_")) and "/." not in path and "/_" not in path:
        return False  # the common case (no name starts with . or _), decided without a split
    prefixes = tuple(f"{c}=" for c in partition_columns)
    for name in path.split("/"):
        if not name.startswith((".", "_")):
            continue
        if name.startswith(("_delta_index", "_change_data")) or (
            prefixes and name.startswith(prefixes)
        ):
            continue
        return True
    return False


def relative_path(table_root: str, log_path: str) -> str | None:
    """A path named in the log, relative to the table root as the listing names it.

    Args:
        table_root: The table's root folder.
        log_path: An action's ``path`` or a deletion vector's path (encoded or not).

    Returns:
        The decoded relative path, or None for a file outside the table folder
        (VACUUM never deletes those).
    """
    decoded = canonical_path(log_path)
    if "://" in decoded:  # an object store URI: inside the table only under its root
        root = table_root.rstrip("/") + "/"
        return decoded[len(root) :] if decoded.startswith(root) else None
    if os.path.isabs(decoded):
        root = os.path.normpath(table_root)
        target = os.path.normpath(decoded)
        if os.path.commonpath([root, target]) != root:
            return None
        return os.path.relpath(target, root).replace(os.sep, "/")
    return posixpath.normpath(decoded)
