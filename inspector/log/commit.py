"""One commit file (``NNNNNNNNNNNNNNNNNNNN.json``) parsed into typed actions.

:func:`parse_json_actions` is the one parser of a JSON log file's lines (a commit, or a
JSON checkpoint part).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, cast

from inspector.delta.actions import (
    Action,
    AddCDCFile,
    AddFile,
    CommitInfo,
    Metadata,
    Protocol,
    RemoveFile,
)
from inspector.delta.parse import parse_action
from inspector.log import text
from inspector.log.bigcommit import COLUMNAR_FROM, CommitFiles, read_file_actions
from inspector.log.listing import LogFile
from inspector.log.snapshot import ReplayState


@dataclass(frozen=True, kw_only=True)
class FileSummary:
    """A commit's files added and removed as Delta counts them, and its actions as written.

    Files and bytes are the writer's ``operationMetrics`` where it recorded them, else from
    the actions by Delta's rule: a file removed and added back under the same path in one
    commit (given a deletion vector) is neither added nor removed but one of the
    ``deletion_vector_updates``. The records are those of every add and remove action.
    """

    add_actions: int
    remove_actions: int
    deletion_vector_updates: int
    num_added_files: int
    num_removed_files: int
    added_bytes: int
    removed_bytes: int
    added_records: int | None
    removed_records: int | None

    def with_metrics(self, metrics: Mapping[str, Any]) -> FileSummary:
        """The summary with the writer's file metrics where it recorded them."""
        found = file_metrics(metrics)
        return replace(self, **{k: v for k, v in found.items() if v is not None})

    @classmethod
    def of(
        cls,
        adds: Iterable[tuple[str, int]],
        removes: Iterable[tuple[str, int]],
        *,
        added_records: int | None,
        removed_records: int | None,
    ) -> FileSummary:
        """A summary from each add's and each remove's ``(path, size)``."""
        added, removed = list(adds), list(removes)
        both = {p for p, _ in added} & {p for p, _ in removed} if added and removed else set()
        return cls(
            add_actions=len(added),
            remove_actions=len(removed),
            deletion_vector_updates=len(both),
            num_added_files=len(added) - len(both),
            num_removed_files=len(removed) - len(both),
            added_bytes=sum(s for p, s in added if p not in both),
            removed_bytes=sum(s for p, s in removed if p not in both),
            added_records=added_records,
            removed_records=removed_records,
        )

    @classmethod
    def of_tables(cls, files: CommitFiles) -> FileSummary:
        """:meth:`FileSummary.of`'s rule on a big commit's Arrow tables."""
        import pyarrow.compute as pc

        from inspector.log import columnar

        adds, removes = files.adds, files.removes
        overlap, both = adds.num_rows and removes.num_rows, 0  # files given a deletion vector
        moved: list[int] = []
        records: list[int | None] = []
        for table, other in ((adds, removes), (removes, adds)):
            sizes = table.column("size")
            if overlap:  # the count of paths in both is the same from either side
                in_place = pc.is_in(
                    table.column("path"), value_set=other.column("path").combine_chunks()
                )
                both = pc.count_distinct(table.column("path").filter(in_place)).as_py()
                sizes = sizes.filter(pc.invert(in_place))
            moved.append(int(pc.sum(sizes).as_py() or 0))  # a sum skips nulls
            counts = columnar.num_records(table.column("stats"))
            records.append(None if counts.null_count else int(pc.sum(counts).as_py() or 0))
        return cls(
            add_actions=adds.num_rows,
            remove_actions=removes.num_rows,
            deletion_vector_updates=both,
            num_added_files=adds.num_rows - both,
            num_removed_files=removes.num_rows - both,
            added_bytes=moved[0],
            removed_bytes=moved[1],
            added_records=records[0],
            removed_records=records[1],
        )


_METRIC_ALIASES = {"numaddedrows": "numoutputrows"}  # delta-rs's WRITE says num_added_rows
# Each figure's metric names, normalised (lower case, no underscores), first found wins.
_FILE_METRICS = {
    "num_added_files": ("numaddedfiles", "numtargetfilesadded", "numfiles"),
    "num_removed_files": ("numremovedfiles", "numtargetfilesremoved"),
    "added_bytes": ("numaddedbytes", "numtargetbytesadded", "numoutputbytes"),
    "removed_bytes": ("numremovedbytes", "numtargetbytesremoved"),
}


def file_metrics(metrics: Mapping[str, Any]) -> dict[str, int | None]:
    """The writer's file figures by :class:`FileSummary` field (None: not recorded)."""
    named: dict[str, Any] = {metric_name(k): v for k, v in metrics.items()}
    return {key: _metric(named, names) for key, names in _FILE_METRICS.items()}


@lru_cache(maxsize=1024)  # writers use a few dozen names
def metric_name(key: str) -> str:
    """A metric's key normalised: lower case, no underscores, delta-rs's aliases resolved."""
    name = key.replace("_", "").lower()
    return _METRIC_ALIASES.get(name, name)


def _metric(named: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    for name in names:
        try:
            return int(named[name])
        except (KeyError, TypeError, ValueError):
            continue
    return None


@dataclass(frozen=True, kw_only=True)
class Commit:
    """The actions of one version's commit file, and what was wrong reading it (log replay
    does not trust a commit with ``problems``: its actions are the lines that parsed).

    A big commit keeps its file actions as Arrow tables (``columns``), and one read in bulk
    for a whole history only counted (``counted``): ``parsed`` then holds its other actions.
    """

    version: int
    file: LogFile
    parsed: tuple[Action, ...]
    problems: tuple[str, ...] = ()
    columns: CommitFiles | None = field(default=None, repr=False)
    counted: FileSummary | None = field(default=None, repr=False)

    @cached_property
    def actions(self) -> tuple[Action, ...]:
        """Every action, in file order (typed records)."""
        if self.columns is None:
            return self._uncounted().parsed
        from inspector.log import columnar

        placed = list(zip(self.columns.other_lines, self.parsed, strict=True))
        for kind, table, lines in self.columns.by_kind():
            placed += zip(lines.to_pylist(), columnar.records(kind, table), strict=True)
        placed.sort(key=lambda p: p[0])
        return tuple(a for _, a in placed)

    def apply_to(self, state: ReplayState) -> None:
        """Apply this commit to a replay state (file actions stay columnar)."""
        columns = self._uncounted().columns
        if columns is None:
            state.apply(self.parsed)
            return
        for action in self.parsed:
            state.apply_other(action)
        base = state.next_seq
        for kind, table, lines in columns.by_kind():
            state.next_seq = base
            state.add_files(table, kind, lines)
        state.next_seq = (
            base + len(self.parsed) + len(columns.add_lines) + len(columns.remove_lines)
        )

    def file_tables(self) -> CommitFiles:
        """The adds and removes as ``columnar`` tables with their line numbers (a big commit's
        as read, a small one's built from its records: :meth:`JsonActions.file_tables`)."""
        return JsonActions(actions=self._uncounted().parsed, columns=self.columns).file_tables()

    def _uncounted(self) -> Commit:
        if self.counted is not None:
            raise ValueError(f"version {self.version}'s file actions were only counted")
        return self

    @cached_property
    def file_summary(self) -> FileSummary:
        """Counts, bytes and records added and removed (no typed records for a big commit)."""
        if self.counted is not None:
            return self.counted
        if self.columns is not None:
            summary = FileSummary.of_tables(self.columns)
        else:
            adds, removes = self._file_actions
            summary = FileSummary.of(
                ((a.path, a.size) for a in adds),
                ((r.path, r.size or 0) for r in removes),
                added_records=known_sum([a.num_records for a in adds]),
                removed_records=known_sum([r.num_records for r in removes]),
            )
        return summary.with_metrics(self.commit_info.operation_metrics)

    @property
    def is_complete(self) -> bool:
        """True when every line parsed; replay only uses complete commits."""
        return not self.problems

    @cached_property
    def commit_info(self) -> CommitInfo:
        """The commitInfo action (an empty one when the writer wrote none)."""
        # Cached: a history asks each commit for it several times (timestamps, entry, rows).
        return next((a for a in self.parsed if isinstance(a, CommitInfo)), CommitInfo(raw={}))

    @property
    def adds(self) -> list[AddFile]:
        """add actions, in file order."""
        return list(self._file_actions[0])

    @property
    def removes(self) -> list[RemoveFile]:
        """remove actions, in file order."""
        return list(self._file_actions[1])

    @cached_property  # a history asks for both, twice
    def _file_actions(self) -> tuple[tuple[AddFile, ...], tuple[RemoveFile, ...]]:
        adds: list[AddFile] = []
        removes: list[RemoveFile] = []
        for action in self.actions:
            if isinstance(action, AddFile):
                adds.append(action)
            elif isinstance(action, RemoveFile):
                removes.append(action)
        return tuple(adds), tuple(removes)

    @property
    def cdc_files(self) -> list[AddCDCFile]:
        """cdc actions (change-data files), in file order."""
        return [a for a in self.parsed if isinstance(a, AddCDCFile)]

    @property
    def metadata(self) -> Metadata | None:
        """The metaData action, when this commit changed the metadata."""
        return next((a for a in self.parsed if isinstance(a, Metadata)), None)

    @property
    def protocol(self) -> Protocol | None:
        """The protocol action, when this commit changed the protocol."""
        return next((a for a in self.parsed if isinstance(a, Protocol)), None)


def parse_commit(
    version: int, file: LogFile, data: bytes | OSError | Commit, *, columnar: bool = True
) -> Commit:
    """Parse a commit file's bytes, or say why reading them raised ``data``; a commit already
    parsed (as :meth:`~inspector.log.deltalog.DeltaLog.fetch_commits` may give it) is kept."""
    if isinstance(data, Commit):
        return data
    if isinstance(data, OSError):
        why = data.strerror or "it is gone"
        found = JsonActions(actions=(), problems=(f"The commit file could not be read: {why}.",))
    else:
        found = parse_json_actions(data, columnar=columnar)
    return Commit(
        version=version,
        file=file,
        parsed=found.actions,
        problems=found.problems,
        columns=found.columns,
    )


@dataclass(frozen=True, kw_only=True)
class JsonActions:
    """What a JSON log file holds (a big file's file actions in ``columns``), and its problems."""

    actions: tuple[Action, ...]
    columns: CommitFiles | None = None
    problems: tuple[str, ...] = ()

    def file_tables(self) -> CommitFiles:
        """The add and remove actions as tables: ``columns``, or built from the records."""
        return self.columns if self.columns is not None else CommitFiles.of_records(self.actions)


def parse_json_actions(data: bytes, *, columnar: bool = True, what: str = "commit") -> JsonActions:
    """Parse the lines of a JSON log file (``what`` it is), with problems in plain words.

    A big file (:data:`COLUMNAR_FROM` bytes or more) has its file actions read by Arrow into
    tables, unless not ``columnar``; a small one is parsed by orjson in one call. When
    anything is off, every line is parsed on its own so that problems name the line.
    """
    if not data or data.isspace():  # not data.strip(): that copies a big file
        return JsonActions(
            actions=(),
            problems=(f"The {what} file is empty (an interrupted write or a failed copy).",),
        )
    if columnar and len(data) >= COLUMNAR_FROM:
        found = read_file_actions(data)
        if found is not None:
            return JsonActions(actions=found[0], columns=found[1])
    objects = json_lines([line for line in data.splitlines() if line and not line.isspace()])
    parsed = None if objects is None else parse_actions(objects)
    if parsed is not None:
        return JsonActions(actions=parsed)
    actions, problems = [], []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            actions.append(parse_action(text.loads(line)))
        except ValueError as exc:
            problems.append(_line_problem(number, exc, data, line, what))
    return JsonActions(actions=tuple(actions), problems=tuple(problems))


def json_lines(lines: list[bytes]) -> list[Any] | None:
    """One JSON value per line, parsed in one call (twice as fast as one per line); None when
    a line does not parse or holds two values separated by a comma."""
    try:
        objects = text.loads(b"[" + b",".join(lines) + b"]")
    except (ValueError, UnicodeDecodeError, TypeError):
        return None
    return objects if isinstance(objects, list) and len(objects) == len(lines) else None


def parse_actions(objects: list[Any]) -> tuple[Action, ...] | None:
    """The typed actions of parsed lines; None when one is not a valid action."""
    try:
        return tuple(parse_action(obj) for obj in objects)
    except (ValueError, TypeError, AttributeError):
        return None


def _line_problem(number: int, exc: Exception, data: bytes, line: bytes, what: str) -> str:
    is_last = data.rstrip().endswith(line.rstrip())
    if is_last and isinstance(exc, json.JSONDecodeError):
        return (
            f"Line {number} of the {what} is cut off: the file is truncated "
            "(an interrupted write or an incomplete copy)."
        )
    return f"Line {number} of the {what} is not a valid action: {exc}."


def known_sum(values: list[int | None]) -> int | None:
    """A sum, or None when one value is unknown (0 for none)."""
    return None if None in values else sum(cast("list[int]", values))
