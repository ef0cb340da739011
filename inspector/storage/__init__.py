"""Storage: the one way Delta Inspector reads and writes a table's files.

The lowest layer (it imports only :mod:`inspector.delta` and :mod:`inspector.connection`).
A :class:`Storage` serves one table location; :class:`LocalStorage` reads a local folder,
:class:`~inspector.storage.objectstore.ObjectStorage` an S3, Azure or GCS prefix through
``obstore`` (imported only when an object store is opened: start-up time).
:func:`open_storage` turns what a user typed (a path or a URI) into the right one.
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
