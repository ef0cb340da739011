"""Storage: the one way Delta Inspector reads and writes a table's files.

The lowest layer (it imports only :mod:`inspector.delta` and :mod:`inspector.connection`).
:func:`open_storage` turns what a user typed (a path or a URI) into a :class:`Storage`.
"""

from inspector.storage.base import FileColumns, ObjectMeta, Storage
from inspector.storage.local import LocalStorage
from inspector.storage.location import open_storage, parse_location

__all__ = [
    "FileColumns",
    "LocalStorage",
    "ObjectMeta",
    "Storage",
    "open_storage",
    "parse_location",
]
