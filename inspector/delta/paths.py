"""Where a table's files are: its log folder, and the files its actions name."""

from __future__ import annotations

import os
from urllib.parse import unquote

LOG_DIR = "_delta_log"

#: Hive's name for a null partition value, as some writers store it in ``partitionValues``
#: (and in partition folder names).
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def canonical_path(path: str) -> str:
    """Decode a log path (a URI) to the string used for identity and file access."""
    decoded = unquote(path)
    return decoded[7:] if decoded.startswith("file://") else decoded.removeprefix("file:")


def data_file_path(table_root: str, log_path: str) -> str:
    """Where a file named in the log (relative to the root, or absolute) is: a local path,
    or a URI for a table in an object store."""
    decoded = canonical_path(log_path)
    if os.path.isabs(decoded) or "://" in decoded:
        return decoded  # an absolute path or an object store URI
    if "://" in table_root:
        return f"{table_root.rstrip('/')}/{decoded}"
    return os.path.join(table_root, decoded)


def log_dir(table_root: str) -> str:
    """The ``_delta_log`` folder of a table root (a local folder or a URI)."""
    return data_file_path(table_root, LOG_DIR)
