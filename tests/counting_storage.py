"""A local table's storage that counts what is listed and read through it.

Instrumentation, not a mock: every call goes to the real :class:`LocalStorage`; the
counts say how many listings and reads (GETs, ranged GETs, HEADs) a question cost, the
requests an object store would be sent.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Sequence

from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.storage import FileColumns, LocalStorage, ObjectMeta


class CountingStorage(LocalStorage):
    """A :class:`LocalStorage` that counts its ``list`` calls and its reads, by file.

    It has no local paths to offer (as an object store), so every read goes through
    :meth:`read` or :meth:`read_range` and is counted; and it lists whole, as Azure does.
    """

    lists_after = False

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.lists: builtins.list[str] = []
        self.reads: Counter[str] = Counter()

    @property
    def calls(self) -> int:
        """Listings plus reads: what an object store would be asked."""
        return len(self.lists) + sum(self.reads.values())

    def reset(self) -> None:
        self.lists.clear()
        self.reads.clear()

    def list(self, prefix: str, *, start_after: str | None = None) -> builtins.list[ObjectMeta]:
        self.lists.append(prefix if start_after is None else f"{prefix} after {start_after}")
        return super().list(prefix, start_after=start_after)

    def list_columns(self, prefix: str) -> FileColumns:
        self.lists.append(prefix)
        return super().list_columns(prefix)

    def walk_sizes(self, prefix: str = "") -> tuple[builtins.list[str], builtins.list[int]]:
        self.lists.append(f"{prefix or '(the table folder)'}, walked")
        return super().walk_sizes(prefix)

    def local_path(self, path: str = "") -> str | None:
        return None

    def head(self, path: str) -> ObjectMeta | None:
        self.reads[_name(path)] += 1
        return super().head(path)

    def read(self, path: str) -> bytes:
        self.reads[_name(path)] += 1
        return super().read(path)

    def read_range(self, path: str, start: int, end: int) -> bytes:
        self.reads[_name(path)] += 1
        return super().read_range(path, start, end)

    def read_many(self, paths: Sequence[str]) -> builtins.list[bytes | OSError]:
        return [self._one(p) for p in paths]

    def _one(self, path: str) -> bytes | OSError:
        try:
            return self.read(path)
        except OSError as exc:
            return exc


def counted_log(
    root: object, index: LogIndex | None = None, *, count_open: bool = False
) -> tuple[DeltaLog, CountingStorage]:
    """The table's log on a :class:`CountingStorage` (with the log ``index``, if any), listed
    once; the counts then start afresh, or with ``count_open`` keep what the opening read."""
    storage = CountingStorage(str(root))
    log = DeltaLog(str(root), storage, index=index)
    log.refresh()
    if not count_open:
        storage.reset()
    return log, storage


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]
