"""The storage interface: what the log, the read-only packages and the restore need from a table location.

Paths are relative to the table root and use ``/``; an absolute path or URI is read from
where it points.
"""

from __future__ import annotations

import builtins
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class ObjectMeta:
    """One stored file (``last_modified`` in ms since the epoch); ``etag`` changes whenever
    the file is written again (a local file's inode and modification time in ns)."""

    path: str
    size: int
    last_modified: int
    etag: str | None = None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


#: Listed files as columns (:meth:`Storage.list_columns`): paths, sizes, modification times
#: (ms) and ETags.
FileColumns = tuple[
    builtins.list[str], builtins.list[int], builtins.list[int], builtins.list[str | None]
]


class Storage(ABC):
    """Files of one table location, local or in an object store. Thread-safe. Reads raise
    FileNotFoundError for a missing file, StorageUnavailable for an unreachable store."""

    #: The location's scheme: ``file``, ``s3``, ``az`` or ``gs``.
    scheme: str = "file"
    #: True when :meth:`list`'s ``start_after`` saves the older entries' cost: the server
    #: answers it (S3, GCS), or a folder stats only the names after it; False where a whole
    #: listing is filtered (Azure).
    lists_after: bool = False

    @property
    @abstractmethod
    def root(self) -> str:
        """The table root as shown to users: a local absolute path or a URI."""

    @property
    def options(self) -> dict[str, str]:
        """The storage options (delta-rs names) for another reader; secrets: never show them."""
        return {}

    @abstractmethod
    def list(self, prefix: str, *, start_after: str | None = None) -> list[ObjectMeta]:
        """The files directly in a folder (``_delta_log``), sorted by path, after the full
        relative path ``start_after`` if given; none if the folder is missing."""

    def list_with(
        self, prefix: str, *, start_after: str, subfolder: str
    ) -> tuple[builtins.list[ObjectMeta], builtins.list[ObjectMeta] | None]:
        """:meth:`list` after ``start_after``, and the files directly in the folder's
        ``subfolder`` when the same requests return them all (else None): an object store's
        start-after listing is recursive, so a subfolder that sorts after ``start_after``
        comes with it (``_delta_log/_staged_commits`` after every ``<version>.json``)."""
        return self.list(prefix, start_after=start_after), None

    def list_columns(self, prefix: str) -> FileColumns:
        """What :meth:`list` lists (without ``start_after``) as columns: paths, sizes,
        modification times and ETags, sorted by path (a local folder makes no record per
        file: a log of 100,000 commits)."""
        found = self.list(prefix)
        return (
            [m.path for m in found],
            [m.size for m in found],
            [m.last_modified for m in found],
            [m.etag for m in found],
        )

    def list_first(self, prefix: str, count: int) -> tuple[builtins.list[ObjectMeta], str | None]:
        """The files directly in a folder among its first ``count`` entries by path, and the
        last path the page reaches (None: the page holds the whole folder)."""
        return self.list(prefix), None

    def names(self, prefix: str) -> builtins.list[str] | None:
        """The names of everything directly in a folder, in no order, when that costs no
        request and no ``stat`` (a local folder); None elsewhere."""
        return None

    @abstractmethod
    def walk(self, prefix: str = "") -> Iterator[ObjectMeta]:
        """Every file under a folder, recursively, with sizes (order unspecified)."""

    @abstractmethod
    def walk_sizes(self, prefix: str = "") -> tuple[builtins.list[str], builtins.list[int]]:
        """What :meth:`walk` lists as (paths, sizes), without a record per file."""

    @abstractmethod
    def exists(self, prefix: str = "") -> bool:
        """True when the folder (local) or any object under the prefix (object store) exists."""

    @abstractmethod
    def head(self, path: str) -> ObjectMeta | None:
        """A file's metadata, or None when it does not exist."""

    @abstractmethod
    def read(self, path: str) -> bytes: ...

    @abstractmethod
    def read_range(self, path: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of a file (fewer when the file is shorter)."""

    def read_many(self, paths: Sequence[str]) -> builtins.list[bytes | OSError]:
        """Several whole files (object stores fetch them concurrently): each one's bytes or
        the OSError reading it raised (one vanished file loses no other)."""
        out: builtins.list[bytes | OSError] = []
        for path in paths:
            try:
                out.append(self.read(path))
            except OSError as exc:
                out.append(exc)
        return out

    @abstractmethod
    def put_if_absent(self, path: str, data: bytes) -> str:
        """Create a file whole, only if it does not exist yet; its :meth:`uri`.

        Raises:
            ConcurrentModification: If the file exists; nothing was written.
            RestoreRefused: If this store cannot guarantee create-if-absent.
        """

    @abstractmethod
    def local_path(self, path: str = "") -> str | None:
        """The local filesystem path of a file, or None when it is not on a local disk."""

    @abstractmethod
    def uri(self, path: str = "") -> str:
        """A location Spark and pyarrow accept: a local absolute path or a full URI."""
