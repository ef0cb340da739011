"""Table locations: what a user types (or a log holds) turned into a :class:`Storage`.

Supported: local paths and ``file://``; ``s3://`` and ``s3a://``;
``abfss://container@account.dfs.core.windows.net/...``, ``abfs://``, ``az://container/...``
(also ``azure://``, ``adl://``); ``gs://``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote, urlparse

from inspector.delta.errors import NotADeltaTable
from inspector.storage.base import Storage
from inspector.storage.local import LocalStorage

# inspector.storage.objectstore (obstore) is imported by open_storage, for object
# stores only: a local table's commands start faster without it.


class StoreKind(StrEnum):
    """Where a table's files are: a local folder or one of the object stores."""

    FILE = "file"
    S3 = "s3"
    AZ = "az"
    GS = "gs"


#: URI scheme → store kind.
SCHEMES = {
    **dict.fromkeys(("s3", "s3a", "s3n"), StoreKind.S3),
    **dict.fromkeys(("az", "azure", "adl", "abfs", "abfss"), StoreKind.AZ),
    "gs": StoreKind.GS,
}


@dataclass(frozen=True, kw_only=True)
class Location:
    """A parsed table location: its kind and root (an absolute local path, or the URI
    without a trailing ``/``)."""

    kind: StoreKind
    root: str

    @property
    def is_local(self) -> bool:
        return self.kind == StoreKind.FILE


def parse_location(text: str) -> Location:
    """Normalise a table location as typed by a user or stored in a log: a local path
    (``~`` expanded, relative made absolute), a ``file://`` URI, or an object store URI.

    Raises:
        NotADeltaTable: If the location is empty, has no bucket, or uses an unsupported scheme.
    """
    text = (text or "").strip()
    if not text:
        raise NotADeltaTable(
            "No table location was given.",
            "Type the folder that contains _delta_log, a file:// URI, or an object store "
            "URI such as s3://bucket/table.",
        )
    parsed = urlparse(text)
    scheme = parsed.scheme.lower()
    if scheme == "file":
        text = unquote(parsed.path)
    elif scheme in SCHEMES:
        if not parsed.netloc:
            raise NotADeltaTable(
                f"'{text}' names no bucket or container.",
                f"Write it as {scheme}://BUCKET/path/to/table.",
            )
        return Location(kind=SCHEMES[scheme], root=text.rstrip("/"))
    elif scheme and len(scheme) > 1:
        raise NotADeltaTable(
            f"'{text}' uses the {scheme}:// scheme, which Delta Inspector cannot read.",
            "Use a local path, file://, s3://, s3a://, abfss://, abfs://, az:// or gs://.",
        )
    root = os.path.abspath(os.path.expanduser(text)).rstrip(os.sep) or os.sep
    return Location(kind=StoreKind.FILE, root=root)


def open_storage(location: str, *, options: Mapping[str, str] | None = None) -> Storage:
    """The storage of a table location (:func:`parse_location`); ``options`` with
    delta-rs's names, given explicitly (never read from the environment here).

    Raises:
        NotADeltaTable: If the location cannot be parsed.
        InvalidInput: If a storage option is unknown or malformed.
    """
    parsed = parse_location(location)
    if parsed.is_local:
        return LocalStorage(parsed.root)
    from inspector.storage.objectstore import ObjectStorage

    return ObjectStorage(parsed.root, scheme=parsed.kind, options=options or {})
