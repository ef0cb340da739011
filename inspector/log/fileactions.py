"""A snapshot's file actions: a mapping over an Arrow table, or typed records.

A replay that read Arrow tables (a big checkpoint or commit) keeps its live files and
tombstones as tables; one that read only typed actions (a small checkpoint, small commits)
keeps the records and builds a table only when someone asks for one
(:class:`FileActions`), so ``detail`` of such a table never imports pyarrow.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar, cast

from inspector.delta.actions import AddFile, RemoveFile

if TYPE_CHECKING:
    import pyarrow as pa

FileKey = tuple[str, "str | None"]


_R = TypeVar("_R", AddFile, RemoveFile)


class FileMap(Mapping[FileKey, _R]):
    """A read-only mapping (path, deletion-vector id) -> typed record over an Arrow table.

    Keys are cheap (two columns); looking one file up builds only its record; asking for
    every value builds all the records at once and keeps them.
    """

    def __init__(self, kind: str, table: pa.Table) -> None:
        self.kind, self.table = kind, table
        self._records: dict[FileKey, _R] | None = None

    def _all(self) -> dict[FileKey, _R]:
        from inspector.log import columnar

        if self._records is None:
            records = cast(Iterator[_R], columnar.records(self.kind, self.table))
            self._records = dict(zip(columnar.keys(self.table), records, strict=True))
        return self._records

    @cached_property
    def _rows(self) -> dict[FileKey, int]:
        from inspector.log import columnar

        return dict(zip(columnar.keys(self.table), range(self.table.num_rows), strict=True))

    def __getitem__(self, key: FileKey) -> _R:
        if self._records is not None:
            return self._records[key]
        from inspector.log import columnar

        row = self._rows[key]
        return cast(_R, next(columnar.records(self.kind, self.table.slice(row, 1))))

    def __iter__(self) -> Iterator[FileKey]:
        from inspector.log import columnar

        return iter(self._all()) if self._records is not None else columnar.keys(self.table)

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def __contains__(self, key: object) -> bool:
        if self._records is not None:
            return key in self._records
        return key in self._rows

    def values(self) -> ValuesView[_R]:
        """Every record (built all at once)."""
        return self._all().values()

    def items(self) -> ItemsView[FileKey, _R]:
        """Every (key, record) pair (records built all at once)."""
        return self._all().items()


class FileActions:
    """One kind of a snapshot's file actions (``add``: the live files; ``remove``: the
    tombstones): an Arrow table, or the typed records of a replay that read no Arrow table
    (a small checkpoint and small commits), whose table is built on first use.
    """

    def __init__(
        self,
        kind: str,
        *,
        table: pa.Table | None = None,
        records: list[AddFile] | list[RemoveFile] | None = None,
    ) -> None:
        self.kind, self._table, self.records = kind, table, records

    @cached_property
    def table(self) -> pa.Table:
        """The actions as an Arrow table (:mod:`inspector.log.columnar`'s schema)."""
        if self._table is not None:
            return self._table
        from inspector.log import columnar

        return columnar.from_records(self.kind, self.records or [])

    def __len__(self) -> int:
        return len(self.records) if self.records is not None else int(self.table.num_rows)


def num_records_of(adds: list[AddFile]) -> int | None:
    """Live rows from typed adds' stats, as :attr:`Snapshot.num_records` counts them."""
    total = 0
    for add in adds:
        count = add.num_records
        if count is None:
            return None
        total += count - (add.deletion_vector.cardinality if add.deletion_vector else 0)
    return total
