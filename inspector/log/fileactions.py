"""A snapshot's file actions as a mapping of typed records over their Arrow table."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar, cast

from inspector.delta.actions import AddFile, RemoveFile

if TYPE_CHECKING:  # pyarrow (and columnar) is imported where a snapshot's table is read
    import pyarrow as pa

FileKey = tuple[str, "str | None"]
_R = TypeVar("_R", AddFile, RemoveFile)


class FileMap(Mapping[FileKey, _R]):
    """A read-only mapping (path, deletion-vector id) -> typed record over an Arrow table:
    a look-up builds one record, asking for every value builds them all and keeps them."""

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

        return columnar.keys(self.table)  # the records' keys, in the same order

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def __contains__(self, key: object) -> bool:
        return key in (self._rows if self._records is None else self._records)

    def values(self) -> ValuesView[_R]:
        """Every record (built all at once)."""
        return self._all().values()

    def items(self) -> ItemsView[FileKey, _R]:
        """Every (key, record) pair (records built all at once)."""
        return self._all().items()
