"""Turning what users type, and what the log stores, into local file paths."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from inspector.delta.actions import canonical_path
from inspector.delta.errors import NotADeltaTable

LOG_DIR = "_delta_log"

#: Hive's name for a null partition value, as some writers store it in ``partitionValues``
#: (and in partition folder names).
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def resolve_table_root(text: str) -> str:
    """Normalise a table location typed by a user: a local path or a ``file://`` URI.

    Args:
        text: The location as typed; ``~`` is expanded and relative paths are made absolute.

    Returns:
        The absolute local path of the table root.

    Raises:
        NotADeltaTable: If the location is empty or uses an unsupported scheme.
    """
    text = (text or "").strip()
    if not text:
        raise NotADeltaTable(
            "No table path was given.",
            "Type the folder that contains _delta_log, or a file:// URI.",
        )
    parsed = urlparse(text)
    if parsed.scheme == "file":
        text = unquote(parsed.path)
    elif parsed.scheme and len(parsed.scheme) > 1:
        raise NotADeltaTable(
            f"'{text}' uses the {parsed.scheme}:// scheme, which Delta Inspector cannot read directly.",
            "Mount or copy the table to a local folder and open that path.",
        )
    return os.path.abspath(os.path.expanduser(text)).rstrip(os.sep) or os.sep


def data_file_path(table_root: str, log_path: str) -> str:
    """Where a file named in the log is (relative to the root, or absolute).

    Args:
        table_root: The table's root: a local folder or an object store URI.
        log_path: The ``path`` of an add/remove/cdc action or a DV path.

    Returns:
        An absolute local path, or a URI for a table in an object store.
    """
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
