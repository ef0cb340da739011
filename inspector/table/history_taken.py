"""Commits a whole history takes from their writer's metrics, their adds counted, not parsed.

A commit that only adds files, each changing data with its ``numRecords`` and no deletion
vector, whose metrics give its rows (:func:`~inspector.table.rowrule.metrics_alone`) and
bytes, is answered from them, as Delta's DESCRIBE HISTORY does. Those checks read bytes
only: a line spelled otherwise than Delta's writers spell it (spaces after colons, say) is
counted from its actions by :mod:`inspector.table.history_scan`. The figures are worked
out once per distinct operation, metrics and count of adds (a streaming table writes the
same ones in thousands of commits; they are immutable records, shared).
"""

from __future__ import annotations

from typing import Any

from inspector.delta.actions import Action, AddFile, CommitInfo, RemoveFile
from inspector.log.bigcommit import COLUMNAR_FROM, FILE_START
from inspector.log.commit import Commit, FileSummary, file_metrics, json_lines, parse_actions
from inspector.log.index import Fetched
from inspector.log.listing import LogFile
from inspector.table.rowrule import RowChange, metrics_alone

ADD, REMOVE = FILE_START  # how an add's and a remove's line start
CHANGES = b'"dataChange":true'
NO_CHANGE = b'"dataChange":false'
RECORDS = b'\\"numRecords\\":'  # in an action's stats (a JSON string in the line)
VECTOR = b'"deletionVector":{'


class Taken:
    """The commits of one history taken from their metrics (one per history read: the
    figures it keeps are its own)."""

    def __init__(self) -> None:
        self._figures: dict[tuple[Any, ...], tuple[FileSummary, RowChange] | None] = {}

    def lines(
        self, version: int, file: LogFile, parsed: tuple[Action, ...], lines: list[bytes]
    ) -> tuple[Commit, RowChange] | None:
        """A split commit (its other actions parsed, its file lines raw) taken from its
        metrics, when its file lines are adds that may be."""
        if not lines or not all(
            line.startswith(ADD) and CHANGES in line and RECORDS in line and VECTOR not in line
            for line in lines
        ):
            return None
        return self.commit(version, file, parsed, len(lines))

    def big(self, version: int, file: LogFile, data: Fetched) -> tuple[Commit, RowChange] | None:
        """A big commit taken from its metrics, when its file lines are adds that may be
        (counted in the bytes, no line split off); only its other lines are parsed.

        The other lines are those before the first add and after the last (Spark writes them
        first, delta-rs last); a file with other lines in between is counted from its actions.
        """
        if not isinstance(data, bytes) or len(data) < COLUMNAR_FROM:
            return None
        # Each check below is a pass over the bytes (a 122 MB commit: ~35 ms each), those
        # most likely to fail first. A blank line fails the line count, or the parse of the
        # other lines; a remove (or any other line) among the adds fails the line count.
        end = len(data) - data.endswith(b"\n")
        adds = data.count(b"\n" + ADD) + data.startswith(ADD)
        if not adds:
            return None
        first = 0 if data.startswith(ADD) else data.find(b"\n" + ADD) + 1
        last = data.rfind(b"\n" + ADD) + 1  # 0: the only add is the first line
        last_end = data.find(b"\n", last, end)
        if data.find(REMOVE, 0, first) != -1 or (
            last_end != -1 and data.find(REMOVE, last_end) != -1
        ):
            return None  # removes before the adds or after them (not split off to be parsed)
        head = data[: first - 1].split(b"\n") if first else []
        tail = data[last_end + 1 : end].split(b"\n") if last_end != -1 else []
        if len(head) + len(tail) + adds != data.count(b"\n", 0, end) + 1:
            return None  # other lines between the adds
        if VECTOR in data or not _changes_recorded(data, adds):
            return None
        objects = json_lines(head + tail)
        parsed = None if objects is None else typed_actions(objects)
        return None if parsed is None else self.commit(version, file, parsed, adds)

    def commit(
        self, version: int, file: LogFile, parsed: tuple[Action, ...], adds: int
    ) -> tuple[Commit, RowChange] | None:
        """A commit of ``adds`` adds (which may be taken from metrics) and its other
        actions, with its figures from its commitInfo's metrics; None when they do not
        give them."""
        info = next((a for a in parsed if isinstance(a, CommitInfo)), None)
        if info is None:
            return None
        raw = info.raw
        metrics = raw.get("operationMetrics")
        items = metrics.items() if isinstance(metrics, dict) else ()  # as operation_metrics
        key = (raw.get("operation"), adds, *items)
        try:
            figures = self._figures[key]
        except KeyError:
            figures = self._figures[key] = _figures(info, adds)
        except TypeError:  # a value that is not hashable: worked out for this commit alone
            figures = _figures(info, adds)
        if figures is None:
            return None
        summary, rows = figures
        return Commit(version=version, file=file, parsed=parsed, counted=summary), rows


def _changes_recorded(data: bytes, adds: int) -> bool:
    """Whether ``data`` spells ``"dataChange":true`` and a ``numRecords`` statistic as many
    times as it has adds: in one pass where every add writes them side by side (as Spark
    and delta-rs do), else in one pass each."""
    if data.count(CHANGES + b',"stats":"{' + RECORDS) == adds:
        return True
    return data.count(CHANGES) == adds and data.count(RECORDS) == adds


def typed_actions(objects: list[Any]) -> tuple[Action, ...] | None:
    """The other lines' typed actions; None for a bad one, or a file action written with
    unusual spacing (the whole file is then parsed by the one commit parser)."""
    parsed = parse_actions(objects)
    if parsed is None or any(isinstance(a, AddFile | RemoveFile) for a in parsed):
        return None
    return parsed


def _figures(info: CommitInfo, adds: int) -> tuple[FileSummary, RowChange] | None:
    """The figures of a commit of ``adds`` adds (which may be taken from metrics) from its
    commitInfo's metrics; None when they do not give them."""
    rows = metrics_alone(info)
    if rows is None or rows.added is None:
        return None
    found = file_metrics(info.operation_metrics)
    if found["added_bytes"] is None:
        return None
    # What the actions give (no removes, no file given a deletion vector) where the writer
    # recorded nothing, as FileSummary.with_metrics takes the writer's figures.
    counts = {"num_added_files": adds, "num_removed_files": 0, "removed_bytes": 0}
    summary = FileSummary(
        add_actions=adds,
        remove_actions=0,
        deletion_vector_updates=0,
        added_records=rows.added,
        removed_records=0,
        **{k: counts[k] if v is None else v for k, v in found.items() if k in counts},
        added_bytes=found["added_bytes"],
    )
    return summary, rows
