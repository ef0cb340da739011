"""Commits a history takes from their writer's ``operationMetrics``, their add lines unparsed.

The history prefers a writer's metrics (files, bytes, rows) to the actions' own counts, as
Delta's DESCRIBE HISTORY does. So a commit that only adds files, each changing data with
its ``numRecords`` and no deletion vector, whose metrics give its rows
(:func:`~inspector.table.rowrule.metrics_alone`) and bytes, is answered from them: its add
lines are counted, not parsed (a 300,000-file CREATE TABLE AS SELECT is 122 MB of them).
The checks read bytes only: a line spelled otherwise than Delta's writers spell it (spaces
after colons, say) is counted from its actions (:mod:`inspector.table.history_scan`).
"""

from __future__ import annotations

from inspector.delta.actions import Action, CommitInfo
from inspector.log.commit import Commit, FileSummary
from inspector.log.filesummary import file_metrics
from inspector.log.listing import LogFile
from inspector.table.rowrule import RowChange, metrics_alone

_ADD = b'{"add":{'
_CHANGES = b'"dataChange":true'
_NO_CHANGE = b'"dataChange":false'
_RECORDS = b'\\"numRecords\\":'  # in an action's stats (a JSON string in the line)
_VECTOR = b'"deletionVector":{'


def unrecorded_remove(line: bytes) -> bool:
    """Whether a commit's line is a remove that may change data without its own
    ``numRecords`` (the row rule then looks up the file it removes)."""
    return line.startswith(b'{"remove":{') and _RECORDS not in line and _NO_CHANGE not in line


def appends_only(lines: list[bytes]) -> bool:
    """Whether a commit's add and remove lines are adds that may be taken from metrics."""
    return bool(lines) and all(
        line.startswith(_ADD) and _CHANGES in line and _RECORDS in line and _VECTOR not in line
        for line in lines
    )


def big_appends_only(data: bytes) -> tuple[list[bytes], int] | None:
    """A big commit's other lines and its number of adds, when its file lines are adds that
    may be taken from metrics (counted in the bytes, no line split off); else None.

    The other lines are those before the first add and after the last (Spark writes them
    first, delta-rs last); a file with other lines in between is counted from its actions.
    """
    # (A blank line fails the line count below, or the parse of the other lines.)
    if b'{"remove":{' in data or _VECTOR in data:
        return None
    adds = data.count(b"\n" + _ADD) + data.startswith(_ADD)
    if not adds or data.count(_CHANGES) != adds or data.count(_RECORDS) != adds:
        return None
    end = len(data) - data.endswith(b"\n")
    first = 0 if data.startswith(_ADD) else data.find(b"\n" + _ADD) + 1
    last = data.rfind(b"\n" + _ADD) + 1  # 0: the only add is the first line
    last_end = data.find(b"\n", last, end)
    head = data[: first - 1].split(b"\n") if first else []
    tail = data[last_end + 1 : end].split(b"\n") if last_end != -1 else []
    lines = data.count(b"\n", 0, end) + 1
    if len(head) + len(tail) + adds != lines:
        return None  # other lines between the adds
    return head + tail, adds


def taken(
    version: int, file: LogFile, parsed: tuple[Action, ...], adds: int
) -> tuple[Commit, RowChange] | None:
    """A commit of ``adds`` adds (which :func:`appends_only` accepts) and its other actions,
    with its figures from its commitInfo's metrics; None when they do not give them."""
    info = next((a for a in parsed if isinstance(a, CommitInfo)), None)
    rows = None if info is None else metrics_alone(info)
    if info is None or rows is None or rows.added is None:
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
    return Commit(version=version, file=file, parsed=parsed, counted=summary), rows
