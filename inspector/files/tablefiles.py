"""The files under a table root: one recursive listing (for VACUUM's full mode and the
replica check), and Delta's rule for hidden paths.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

from inspector.delta.actions import canonical_path
from inspector.log.deltalog import DeltaLog
from inspector.storage import ObjectMeta


def walk_table(log: DeltaLog) -> dict[str, ObjectMeta]:
    """Every file under a table's root (``_delta_log`` included), keyed by relative path,
    from one recursive listing of its storage (a file deleted meanwhile is left out)."""
    return {meta.path: meta for meta in log.storage.walk("")}


def is_hidden(path: str, partition_columns: Iterable[str]) -> bool:
    """Whether VACUUM never deletes a path (relative to the table root), by Delta's rule
    (``DeltaTableUtils.isHiddenDirectory``).

    A path is hidden when any of its folder or file names starts with ``.`` or
    ``_`` (``_delta_log``, ``.crc`` sidecars, ``_SUCCESS``, ``_tmp`` folders),
    except names starting with ``_delta_index`` or ``_change_data`` and partition
    folders ``<partition column>=<value>`` (a partition column may start with ``_``).
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
    """An action's or deletion vector's path (encoded or not), decoded and relative to the
    table root as the listing names it; None for a file outside the table folder (VACUUM
    never deletes those)."""
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
