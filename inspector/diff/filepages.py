"""Pages of a file list: a few hundred records of a commit's (or a diff's) files at a time.

A commit of 300,000 add actions is kept by the log as an Arrow table: a front end shows its
counts from the columns and one page of ``files --json`` records, built from an Arrow
slice, so no more than a page of typed records (or of rows in a browser) exists at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.schema import ColumnNames
from inspector.log import columnar
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.table.versions import file_action_record

PAGE_SIZE = 500
HEAD_BYTES = 1 << 20  # a commit at least this big is shown from its first bytes only


class FileKind(StrEnum):
    """Which of a commit's file actions."""

    ADD = "add"
    REMOVE = "remove"


@dataclass(frozen=True, kw_only=True)
class FilePage:
    """One page (numbered from 0) of a list of ``total`` files, as ``files --json`` records."""

    total: int
    page: int
    page_size: int
    records: tuple[dict[str, Any], ...]

    @property
    def pages(self) -> int:
        """How many pages the list has (at least 1)."""
        return _pages(self.total, self.page_size)

    @property
    def first(self) -> int:
        """The position of this page's first file in the list, from 0."""
        return self.page * self.page_size


def commit_file_page(
    commit: Commit,
    kind: FileKind,
    page: int = 0,
    page_size: int = PAGE_SIZE,
    names: ColumnNames | None = None,
) -> FilePage:
    """One page (clamped to the pages there are) of a commit's add or remove actions, in
    file order: a big commit's from a slice of its Arrow table. ``names`` are the logical
    column names (``delta.schema.logical_names``) for the records."""
    if commit.columns is None:
        every = commit.adds if kind == FileKind.ADD else commit.removes
        return sequence_page(every, page, page_size, names)
    table = commit.columns.adds if kind == FileKind.ADD else commit.columns.removes

    def actions(start: int) -> list[AddFile | RemoveFile]:
        return list(columnar.records(str(kind), table.slice(start, page_size)))

    return _page(table.num_rows, page, page_size, actions, names)


def sequence_page(
    files: Sequence[AddFile | RemoveFile],
    page: int = 0,
    page_size: int = PAGE_SIZE,
    names: ColumnNames | None = None,
) -> FilePage:
    """One page of a list of files already in memory (e.g. a file diff's added files)."""
    return _page(len(files), page, page_size, lambda start: files[start : start + page_size], names)


def _page(
    total: int,
    page: int,
    page_size: int,
    files: Callable[[int], Sequence[AddFile | RemoveFile]],
    names: ColumnNames | None,
) -> FilePage:
    """Page ``page`` clamped to the pages there are, its files taken from where it starts."""
    page = min(max(page, 0), _pages(total, page_size) - 1)
    records = tuple(file_action_record(f, names) for f in files(page * page_size))
    return FilePage(total=total, page=page, page_size=page_size, records=records)


def _pages(total: int, page_size: int) -> int:
    return max(1, -(-total // page_size))


def commit_action_count(commit: Commit) -> int:
    """How many actions (lines) a commit file holds that parsed, without building records."""
    if commit.columns is None:
        return len(commit.parsed)
    return int(len(commit.parsed) + commit.columns.adds.num_rows + commit.columns.removes.num_rows)


def commit_head(log: DeltaLog, version: int, max_lines: int) -> list[str]:
    """The first ``max_lines`` non-blank lines of a commit file as written, reading only its
    start when big.

    Raises:
        VersionNotFound: If the version has no commit file.
        CorruptLog: If the file vanished or became unreadable since it was listed.
    """
    text = log.commit_text(version, head=HEAD_BYTES)
    return [line for line in text.splitlines() if line.strip()][:max_lines]
