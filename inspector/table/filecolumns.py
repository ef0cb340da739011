"""What the history needs of file actions kept as Arrow columns: records, deletion-vector rows.

The figures equal the typed records' without building one record per file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from inspector.log.bigcommit import CommitFiles
from inspector.log.snapshot import FileKey

if TYPE_CHECKING:  # pyarrow is imported where columns are read: small logs never need it
    import pyarrow as pa


def num_records(table: pa.Table) -> list[int | None]:
    """``numRecords`` of each row's stats (None where absent or unreadable), by the log's one
    vectorised reading (:func:`inspector.log.columnar.num_records`)."""
    from inspector.log import columnar

    return list(columnar.num_records(table.column("stats")).to_pylist())


def dv_rows(table: pa.Table) -> list[int]:
    """The rows each row's deletion vector marks deleted (0 without one)."""
    import pyarrow.compute as pc

    dv = table.column("deletionVector").combine_chunks()
    if dv.null_count == len(dv):
        return [0] * len(dv)
    cardinality = pc.if_else(dv.is_valid(), pc.struct_field(dv, "cardinality"), 0)
    return [v or 0 for v in cardinality.to_pylist()]


def unrecorded_removes(removes: pa.Table) -> Iterator[FileKey]:
    """The keys of the data-changing removes that carry no ``numRecords`` of their own."""
    from inspector.log import columnar

    if not removes.num_rows:
        return iter(())
    changes = removes.column("dataChange").to_pylist()
    return (
        key
        for key, records, change in zip(
            columnar.keys(removes), num_records(removes), changes, strict=True
        )
        if records is None and change is not False
    )


class ColumnFiles:
    """A big commit's added and removed files, looked up by key a batch at a time.

    Only the rows whose path is asked for become Python values (a commit of 300,000 files
    is never turned into a mapping of them all). :meth:`resolve` a batch first;
    :meth:`find` then answers from it (an unresolved key is resolved on its own).
    """

    def __init__(self, files: CommitFiles) -> None:
        self._files = files
        self._asked: set[FileKey] = set()
        self._found: dict[FileKey, int | None] = {}  # live records; None: removed

    @classmethod
    def live(cls, files: pa.Table) -> ColumnFiles:
        """The files live at a version (a snapshot's ``files_table``), as if added by one commit."""
        from inspector.log import arrays

        lines = arrays.span(0, files.num_rows)
        return cls(
            CommitFiles(
                adds=files,
                removes=files.slice(0, 0),
                add_lines=lines,
                remove_lines=arrays.span(0, 0),
                other_lines=(),
            )
        )

    def resolve(self, keys: Iterable[FileKey]) -> None:
        """Look the keys up together (those asked before are not looked up again)."""
        import pyarrow.compute as pc

        from inspector.log import arrays, columnar

        todo = set(keys) - self._asked
        if not todo:
            return
        self._asked |= todo
        paths = arrays.texts(sorted({path for path, _ in todo}))  # pa.array imports pandas
        events: list[tuple[int, FileKey, int | None]] = []
        files = self._files
        for table, lines, added in (
            (files.adds, files.add_lines, True),
            (files.removes, files.remove_lines, False),
        ):
            if not table.num_rows:
                continue
            mask = pc.is_in(table.column("key_path").combine_chunks(), value_set=paths)
            if not pc.any(mask).as_py():
                continue
            part = table.filter(mask)
            lives: list[int | None] = [None] * part.num_rows
            if added:  # records minus those the deletion vector marks deleted
                lives = [
                    None if n is None else n - d
                    for n, d in zip(num_records(part), dv_rows(part), strict=True)
                ]
            at = lines.filter(mask).to_pylist()
            events += zip(at, columnar.keys(part), lives, strict=True)
        events.sort(key=lambda e: e[0])  # file order: a later action on the same key wins
        self._found.update((key, live) for _, key, live in events if key in todo)

    def find(self, key: FileKey) -> tuple[bool, int | None]:
        """Whether the commit added or removed the key, and the live records it left."""
        self.resolve((key,))
        return key in self._found, self._found.get(key)
