"""A table in a local folder (or a mounted one).

Commits are created with a hard link, the Delta protocol's "atomic file creation" and
"mutual exclusion" on POSIX: the content goes to a temporary dot-file (no reader lists
it) and is fsynced; ``os.link`` to the final name fails with ``FileExistsError`` when a
concurrent writer won; then the temporary name goes and the folder is fsynced. A crash
leaves a dot-file or a complete commit. Each finished :class:`CommitStep` is reported to
an optional callback, so a test can crash the writer exactly there.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import uuid
from collections.abc import Callable, Iterator
from enum import StrEnum
from operator import attrgetter
from stat import S_ISDIR, S_ISLNK, S_ISREG
from urllib.parse import unquote, urlparse

from inspector.delta.errors import ConcurrentModification
from inspector.storage.base import FileColumns, ObjectMeta, Storage


class CommitStep(StrEnum):
    """The steps of a local create-if-absent, in order; each is reported once done."""

    TEMP_WRITTEN = "temp_written"  # the whole content is in the temporary dot-file
    TEMP_FSYNCED = "temp_fsynced"  # ... and on disk
    LINKED = "linked"  # the file exists under its final name
    TEMP_REMOVED = "temp_removed"  # the temporary name is gone


StepCallback = Callable[[CommitStep], None]


def _no_report(step: CommitStep) -> None:
    pass


_CHUNK = 1 << 16

# A relative path of plain segments (no leading, doubled or trailing "/", no "." or "..").
_PLAIN = re.compile(r"^(?!\.\.?(/|$))[^/]+(/(?!\.\.?(/|$))[^/]+)*$")
#: The log folder's prefix (its files are named most often, once per listed file).
_LOG = "_delta_log/"


def _plain_name(name: str) -> bool:
    """A single plain path segment (not empty, ``.`` or ``..``, no ``/``), as :data:`_PLAIN`."""
    return "/" not in name and name not in ("", ".", "..")


class LocalStorage(Storage):
    """The files of a table in a local folder (``root``: an absolute path).

    It lists from a start as an object store does (:attr:`lists_after`): the names are read
    whole, but only those after the start are stat'ed, which is what a listing costs here.
    """

    scheme = "file"
    lists_after = True

    def __init__(self, root: str) -> None:
        self._root = root
        self._prefix = root.rstrip(os.sep) + os.sep  # what _rel slices off

    @property
    def root(self) -> str:
        return self._root

    def _abs(self, path: str) -> str:
        if path.startswith(_LOG) and _plain_name(path[len(_LOG) :]):
            return self._prefix + path  # a listed log file, by far the most common: no regex
        if path.startswith("file:"):
            return unquote(urlparse(path).path)
        if os.path.isabs(path):
            return path
        if _PLAIN.match(path):  # the common case (a listed log file): no empty segments
            return f"{self._root.rstrip(os.sep)}{os.sep}{path}"
        return os.path.join(self._root, *[p for p in path.split("/") if p]) if path else self._root

    def _rel(self, absolute: str) -> str:
        # A listing's entries are under the root: slicing is exact and far cheaper than
        # relpath, which normalises both paths (a 100,000-commit log lists in 1/3 the time).
        if os.sep == "/" and absolute.startswith(self._prefix):
            return absolute[len(self._prefix) :]
        return os.path.relpath(absolute, self._root).replace(os.sep, "/")

    def list(self, prefix: str, *, start_after: str | None = None) -> list[ObjectMeta]:
        folder = self._abs(prefix)
        base = self._rel(os.path.join(folder, ""))  # "_delta_log/": what every entry starts with
        try:
            with os.scandir(folder) as it:
                if start_after is None:
                    entries = list(it)
                elif base.endswith("/") and start_after.startswith(base):
                    after = start_after[len(base) :]  # names compare as their paths do (cheaper)
                    entries = [e for e in it if e.name > after]
                else:
                    entries = [e for e in it if self._rel(e.path) > start_after]
        except (FileNotFoundError, NotADirectoryError):
            return []
        found = [meta for e in entries if (meta := self._meta(e)) is not None]
        return sorted(found, key=lambda m: m.path)

    def list_first(self, prefix: str, count: int) -> tuple[builtins.list[ObjectMeta], str | None]:
        names = sorted(self.names(prefix) or ())  # as their paths sort: one folder's
        if len(names) <= count:
            return self.list(prefix), None
        folder = prefix.strip("/") + "/" if prefix.strip("/") else ""
        page = [meta for n in names[:count] if (meta := self._stat_meta(folder + n)) is not None]
        return page, folder + names[count - 1]

    def names(self, prefix: str) -> builtins.list[str] | None:
        try:
            return os.listdir(self._abs(prefix))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def _stat_meta(self, path: str) -> ObjectMeta | None:
        """A listed file's entry (None: a folder, or removed since it was listed)."""
        try:
            st = os.stat(self._abs(path))
        except OSError:
            return None
        return _object_meta(path, st) if S_ISREG(st.st_mode) else None

    def list_columns(self, prefix: str) -> FileColumns:
        try:
            with os.scandir(self._abs(prefix)) as it:
                entries = sorted(it, key=attrgetter("name"))  # as their paths sort: one folder's
        except (FileNotFoundError, NotADirectoryError):
            entries = []
        paths: builtins.list[str] = []
        sizes: builtins.list[int] = []
        times: builtins.list[int] = []
        etags: builtins.list[str | None] = []
        for entry in entries:
            if (st := _file_stat(entry)) is not None:
                paths.append(self._rel(entry.path))
                sizes.append(st.st_size)
                times.append(_millis(st))
                etags.append(_etag(st))
        return paths, sizes, times, etags

    def _meta(self, entry: os.DirEntry[str]) -> ObjectMeta | None:
        st = _file_stat(entry)
        return None if st is None else _object_meta(self._rel(entry.path), st)

    def walk(self, prefix: str = "") -> Iterator[ObjectMeta]:
        return (_object_meta(path, st) for path, st in self._files(prefix))

    def walk_sizes(self, prefix: str = "") -> tuple[builtins.list[str], builtins.list[int]]:
        paths: builtins.list[str] = []
        sizes: builtins.list[int] = []
        for path, st in self._files(prefix):
            paths.append(path)
            sizes.append(st.st_size)
        return paths, sizes

    def _files(self, prefix: str) -> Iterator[tuple[str, os.stat_result]]:
        """Every file under a folder with its ``stat``: names from ``listdir``, one ``lstat``
        each relative to the folder's descriptor (a symbolic link is followed to a file, never
        into a folder)."""
        stack = [(self._abs(prefix), prefix.strip("/") + "/" if prefix.strip("/") else "")]
        while stack:
            folder, rel = stack.pop()
            try:
                names = os.listdir(folder)
                fd = os.open(folder, os.O_RDONLY)
            except OSError:
                continue
            try:
                for name in names:
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                        if S_ISLNK(st.st_mode):
                            st = os.stat(name, dir_fd=fd)
                            if not S_ISREG(st.st_mode):
                                continue
                    except OSError:  # removed since the folder was listed
                        continue
                    if S_ISREG(st.st_mode):
                        yield rel + name, st
                    elif S_ISDIR(st.st_mode):
                        stack.append((os.path.join(folder, name), f"{rel}{name}/"))
            finally:
                os.close(fd)

    def exists(self, prefix: str = "") -> bool:
        return os.path.isdir(self._abs(prefix))

    def head(self, path: str) -> ObjectMeta | None:
        full = self._abs(path)
        try:
            st = os.stat(full)
        except OSError:
            return None
        return _object_meta(path, st)

    def read(self, path: str) -> bytes:
        # os.read, not a buffered file object: a history reads thousands of small commits,
        # and the file object's set-up was a third of each read. A regular file reads short
        # only at its end: a small file (most commits) is one read, with no fstat; a larger
        # one is read again whole from its start (one buffer: no copy of a 122 MB commit).
        fd = os.open(self._abs(path), os.O_RDONLY)
        try:
            first = os.read(fd, _FIRST_READ)
            if len(first) < _FIRST_READ:
                return first
            os.lseek(fd, 0, os.SEEK_SET)
            parts = [os.read(fd, max(os.fstat(fd).st_size, 1 << 16))]
            while parts[-1]:  # until end of file (a file may grow while it is read)
                parts.append(os.read(fd, 1 << 20))
        finally:
            os.close(fd)
        return parts[0] if len(parts) == 2 else b"".join(parts)

    def read_range(self, path: str, start: int, end: int) -> bytes:
        with open(self._abs(path), "rb") as fh:
            fh.seek(start)
            return fh.read(max(end - start, 0))

    def put_if_absent(self, path: str, data: bytes, *, on_step: StepCallback = _no_report) -> str:
        final = self._abs(path)
        folder, name = os.path.split(final)
        temp = os.path.join(folder, f".{name}.{uuid.uuid4()}.tmp")
        os.makedirs(folder, exist_ok=True)  # like an object store, which has no folders
        try:
            _write_durably(temp, data, on_step)
            try:
                os.link(temp, final)
            except FileExistsError:
                raise ConcurrentModification(  # the writer's caller says what to do next
                    f"{name} already exists in {folder} (another writer created it first)."
                ) from None
            on_step(CommitStep.LINKED)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        on_step(CommitStep.TEMP_REMOVED)
        _fsync_folder(folder)
        return final

    def local_path(self, path: str = "") -> str | None:
        return self._abs(path)

    def uri(self, path: str = "") -> str:
        return self._abs(path)


_FIRST_READ = 1 << 16  # a file's first read: the whole of most commit files


def _write_durably(path: str, content: bytes, on_step: StepCallback) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(content)
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
        on_step(CommitStep.TEMP_WRITTEN)
        os.fsync(fd)
        on_step(CommitStep.TEMP_FSYNCED)
    finally:
        os.close(fd)


def _fsync_folder(folder: str) -> None:
    """Make the new directory entry durable (best effort: not every OS allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _file_stat(entry: os.DirEntry[str]) -> os.stat_result | None:
    """A listed entry's ``stat`` when it is a file (None: not a file, or removed since the
    folder was listed, by a concurrent log cleanup)."""
    try:
        return entry.stat() if entry.is_file() else None
    except OSError:
        return None


def _object_meta(path: str, st: os.stat_result) -> ObjectMeta:
    """A file's listing entry; its ``etag`` changes when the file is written again or replaced."""
    return ObjectMeta(path=path, size=st.st_size, last_modified=_millis(st), etag=_etag(st))


def _millis(st: os.stat_result) -> int:
    """A file's modification time in ms since the epoch."""
    return int(st.st_mtime * 1000)


def _etag(st: os.stat_result) -> str:
    """What changes when a local file is written again or replaced: inode and mtime in ns."""
    return f"{st.st_ino:x}-{st.st_mtime_ns:x}"
