"""Storage: the one way Delta Inspector reads and writes a table's files.

The lowest layer (it imports only :mod:`inspector.delta`). A :class:`Storage` serves
one table location; :class:`LocalStorage` reads a local folder, :class:`ObjectStorage`
an S3, Azure or GCS prefix through ``obstore``. :func:`open_storage` turns what a
user typed (a path or a URI) into the right one. ``obstore`` is imported only when an
object store is opened (``ObjectStorage`` is loaded on first use): start-up time.
"""

from typing import TYPE_CHECKING, Any

from inspector.storage.base import ObjectMeta, Storage
from inspector.storage.local import LocalStorage
from inspector.storage.location import Location, StoreKind, open_storage, parse_location

if TYPE_CHECKING:
    from inspector.storage.objectstore import ObjectStorage

__all__ = [
    "LocalStorage",
    "Location",
    "ObjectMeta",
    "ObjectStorage",
    "Storage",
    "StoreKind",
    "open_storage",
    "parse_location",
]


def __getattr__(name: str) -> Any:
    """``ObjectStorage`` on first use (it imports obstore, which a local table never needs)."""
    if name == "ObjectStorage":
        from inspector.storage.objectstore import ObjectStorage

        return ObjectStorage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
