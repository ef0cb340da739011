"""Where a table's files are: its log folder, and the files its actions name."""

from __future__ import annotations

import os

LOG_DIR = "_delta_log"

#: Hive's name for a null partition value, as some writers store it in ``partitionValues``
#: (and in partition folder names).
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def data_file_path(table_root: str, log_path: str) -> str:
    """Where a file named in the log (relative to the root, or absolute) is: a local path,
    or a URI for a table in an object store."""
    from inspector.delta.actions import canonical_path  # the log's parsing: not for a listing

    decoded = canonical_path(log_path)
    if os.path.isabs(decoded) or "://" in decoded:
        return decoded  # an absolute path or an object store URI
    if "://" in table_root:
        return f"{table_root.rstrip('/')}/{decoded}"
    return os.path.join(table_root, decoded)


def log_dir(table_root: str) -> str:
    """The ``_delta_log`` folder of a table root (a local folder or a URI)."""
    if "://" in table_root:
        return f"{table_root.rstrip('/')}/{LOG_DIR}"
    return os.path.join(table_root, LOG_DIR)
