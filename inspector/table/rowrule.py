"""The one rule for the rows a commit inserted, deleted and updated, from the log (no Spark).

A commit's add and remove actions alone mislead: a deletion-vector DELETE of one row
removes a file of 250 rows and adds it back with a deletion vector, and a copy-on-write
MERGE rewrites whole files. So the figures come from the ``operationMetrics`` the writer
recorded (Spark's camelCase names, delta-rs's snake_case), else from file stats and
deletion vectors (a file re-added with a larger deletion vector lost exactly the newly
deleted rows; a file added or removed whole brought or took all its live records).

The metrics are checked against the file stats where a commit removes files (a
disagreement is marked); a commit that only adds files is taken at its writer's word
(:func:`metrics_alone`). Where neither is exact (files rewritten without metrics), the
figures are the rewritten files' rows, said to be an estimate (the net change is exact).
People and scripts see inserted, deleted and updated as Delta's metrics define them (an
updated row is in neither of the first two); inside, ``added`` and ``removed`` count an
updated row on both sides, as an unkeyed row diff does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.actions import AddFile, CommitInfo, RemoveFile
from inspector.delta.jsonvalue import camel_json
from inspector.log.commit import Commit, metric_name
from inspector.log.snapshot import FileKey

#: The live records of the file live under a key (None: no such file, or no stats).
Lookup = Callable[[FileKey], "int | None"]


class RowSource(StrEnum):
    """Where a commit's row figures come from."""

    OPERATION_METRICS = "operation metrics"
    METRICS_AND_FILE_STATS = "operation metrics and file stats"
    FILE_STATS = "file stats"
    NO_DATA_CHANGE = "no data change"
    UNKNOWN = "unknown"


# What each operation's metrics mean, by normalised name (lower case, no underscores):
# (inserted, deleted, updated); None where the operation's files say it instead.
_METRICS: dict[str, tuple[str | None, str | None, str | None]] = {
    "MERGE": ("numtargetrowsinserted", "numtargetrowsdeleted", "numtargetrowsupdated"),
    "DELETE": (None, "numdeletedrows", None),
    "UPDATE": (None, None, "numupdatedrows"),
    "WRITE": ("numoutputrows", None, None),
    "STREAMING UPDATE": ("numoutputrows", None, None),
    "CREATE TABLE AS SELECT": ("numoutputrows", None, None),
    "REPLACE TABLE AS SELECT": ("numoutputrows", None, None),
    "CREATE OR REPLACE TABLE AS SELECT": ("numoutputrows", None, None),
}


@dataclass(frozen=True, kw_only=True)
class RowChange:
    """Rows a commit (or several) added and removed.

    Attributes:
        added: Rows added, updated rows' new versions included; None when unknown.
        removed: Rows removed, updated rows' old versions included; None when unknown.
        updated: Of those, rows updated in place (an UPDATE or a MERGE's matched
            update); None when the log does not say.
        net: Live rows after minus before, from file stats (a commit taken at its
            writer's word: its metrics); None when unknown.
        source: Where ``added``/``removed`` come from.
        exact: False when the figures are an estimate (``note`` says why).
        note: One sentence on the source, and on the estimate when not exact.
        commits: How many commits the figures cover.
    """

    added: int | None
    removed: int | None
    updated: int | None
    net: int | None
    source: RowSource
    exact: bool
    note: str
    commits: int = 1

    @classmethod
    def no_change(cls, note: str, *, commits: int = 1) -> RowChange:
        """No row added, removed or updated (exactly), for the reason ``note`` gives."""
        return cls(
            added=0,
            removed=0,
            updated=0,
            net=0,
            source=RowSource.NO_DATA_CHANGE,
            exact=True,
            note=note,
            commits=commits,
        )

    @classmethod
    def unknown(cls, note: str) -> RowChange:
        """Figures the log cannot give, for the reason ``note`` gives."""
        return cls(
            added=None,
            removed=None,
            updated=None,
            net=None,
            source=RowSource.UNKNOWN,
            exact=False,
            note=note,
        )

    @property
    def estimate(self) -> bool:
        """Files were rewritten without metrics: added and removed are the rewritten files' rows."""
        return self.source is RowSource.FILE_STATS and not self.exact

    @property
    def inserted(self) -> int | None:
        """Rows inserted (updates not included); None when the log cannot know."""
        return None if self.estimate else _minus(self.added, self.updated)

    @property
    def deleted(self) -> int | None:
        """Rows deleted (updates not included); None when the log cannot know."""
        return None if self.estimate else _minus(self.removed, self.updated)

    def history_json(self) -> dict[str, int | None]:
        """``rowsInserted``, ``rowsDeleted``, ``rowsUpdated`` of a ``history --json`` entry."""
        return {
            "rowsInserted": self.inserted,
            "rowsDeleted": self.deleted,
            "rowsUpdated": None if self.estimate else self.updated,
        }

    def label(self) -> str:
        """``+550 / −0 / 450 updated`` (updated rows in neither of the first two); ``?``
        where the log cannot know (then the net change, when known), ``~`` where the
        metrics disagree with the files. The same text on every page and command."""
        if self.estimate:
            return "? / ?" + ("" if self.net is None else f" (net {self.net:+,})")
        mark = "" if self.exact else "~"
        text = f"{mark}{_count(self.inserted, '+')} / {mark}{_count(self.deleted, '−')}"
        if self.updated:
            text += f" / {mark}{self.updated:,} updated"
        return text

    def to_json(self) -> dict[str, Any]:
        """``rows`` of a commit, and their total, in ``diff --json``."""
        return {
            **self.history_json(),
            "netRows": self.net,
            "source": str(self.source),
            **camel_json(self, "exact", "note", "commits"),
        }


def _count(value: int | None, sign: str) -> str:
    return "?" if value is None else f"{sign}{value:,}"


def _minus(value: int | None, updated: int | None) -> int | None:
    return None if value is None else value - (updated or 0)


UNKNOWN = RowChange.unknown("unknown: the commit file is gone")


def change_of(commit: Commit, live_before: Lookup) -> RowChange:
    """The row figures of one commit; ``live_before`` gives the live records of the file
    live under a key just before it (None: no such file, or its records are unknown)."""
    appended = _appended_rows(commit)
    if appended is not None:
        return metrics_alone(commit.commit_info) or appended
    adds = [_figures(a) for a in commit.adds]
    removes = [_figures(r) for r in commit.removes]
    return change_from(commit.commit_info, adds, removes, live_before)


@dataclass(frozen=True, kw_only=True, slots=True)
class FileFigures:
    """What the row rule needs of one add or remove: its identity, ``records`` (``numRecords``
    of its stats; None: none) and ``dv_rows`` (the rows its deletion vector marks deleted)."""

    path: str
    key: FileKey
    data_change: bool
    records: int | None
    dv_rows: int

    @property
    def live(self) -> int | None:
        """Records minus those its deletion vector marks deleted (None: no stats)."""
        return None if self.records is None else self.records - self.dv_rows


def _figures(action: AddFile | RemoveFile) -> FileFigures:
    return FileFigures(
        path=action.path,
        key=action.key,
        data_change=action.data_change,
        records=action.num_records,
        dv_rows=action.deletion_vector.cardinality if action.deletion_vector else 0,
    )


def change_from(
    info: CommitInfo,
    adds: Sequence[FileFigures],
    removes: Sequence[FileFigures],
    live_before: Lookup,
) -> RowChange:
    """The row figures of one commit from its commitInfo and its add and remove actions'
    figures (in file order); ``live_before`` as for :func:`change_of`."""
    changed_adds = [a for a in adds if a.data_change]
    changed_removes = [r for r in removes if r.data_change]
    if not changed_adds and not changed_removes:
        why = (
            "no data change: files were rewritten with dataChange=false"
            if adds or removes
            else "no data change: the commit adds and removes no files"
        )
        return RowChange.no_change(why)
    if not removes and len(changed_adds) == len(adds) and (alone := metrics_alone(info)):
        return alone
    stats = _from_files(changed_adds, changed_removes, live_before)
    return _with_metrics(info, stats) or stats


def metrics_alone(info: CommitInfo) -> RowChange | None:
    """A commit that only adds files, each changing data: its figures from the writer's
    metrics alone (None when they do not give them), as Delta's DESCRIBE HISTORY shows
    them, so that a history need not read the adds. The net change is the rows added."""
    return _with_metrics(info, None)


def _appended_rows(commit: Commit) -> RowChange | None:
    """A big commit that only adds files (e.g. a CREATE TABLE AS SELECT of 300,000 files),
    counted from its columns without typed records; None for any other commit."""
    cols = commit.columns
    if cols is None or cols.removes.num_rows or not cols.adds.num_rows:
        return None
    import pyarrow.compute as pc  # here, not at module level: only a big commit has columns

    adds = cols.adds
    data_change = adds.column("dataChange")
    if data_change.null_count or not pc.all(data_change).as_py():
        return None
    if adds.column("deletionVector").null_count < adds.num_rows:
        return None
    added = commit.file_summary.added_records
    if added is None:
        return None  # some file has no numRecords: the typed path says why
    return RowChange(
        added=added,
        removed=0,
        updated=None,
        net=added,
        source=RowSource.FILE_STATS,
        exact=True,
        note="from file stats and deletion vectors",
    )


def _from_files(
    adds: Sequence[FileFigures], removes: Sequence[FileFigures], live_before: Lookup
) -> RowChange:
    removed_by_path = {r.path: r for r in removes}
    added = removed = 0
    unknown = False
    whole_added = whole_removed = False
    for add in adds:
        old = removed_by_path.pop(add.path, None)
        if old is not None:  # the same file with a new deletion vector: rows newly deleted
            newly_deleted = add.dv_rows - old.dv_rows
            removed += max(newly_deleted, 0)
            added += max(-newly_deleted, 0)  # a smaller deletion vector brings rows back
            continue
        live = add.live
        unknown |= live is None
        added += live or 0
        whole_added = True
    for remove in removed_by_path.values():
        live = _live_records(remove, live_before)
        unknown |= live is None
        removed += live or 0
        whole_removed = True
    if unknown:
        return RowChange.unknown(
            "unknown: some files have no numRecords stats and the commit has no row metrics"
        )
    rewritten = whole_added and whole_removed
    return RowChange(
        added=added,
        removed=removed,
        updated=None,
        net=added - removed,
        source=RowSource.FILE_STATS,
        exact=not rewritten,
        note=(
            "from file stats: files were rewritten without row metrics, so which rows were "
            f"inserted, deleted or updated is unknown; the rewritten files added {added:,} rows "
            f"and removed {removed:,}, and the net change ({added - removed:+,}) is exact"
            if rewritten
            else "from file stats and deletion vectors"
        ),
    )


def _live_records(remove: FileFigures, live_before: Lookup) -> int | None:
    """Live records of a removed file: the remove's own stats (writers copy the add's stats
    and deletion vector into it), else the add it removes (looked up only then: the
    lookup may replay a snapshot)."""
    if remove.records is not None:
        return remove.live
    return live_before(remove.key)


def _with_metrics(info: CommitInfo, stats: RowChange | None) -> RowChange | None:
    """The figures from the metrics, checked against those from the files (None: a commit
    that only adds files, taken at its writer's word); None when the metrics do not say."""
    operation = info.operation.upper()
    names = _METRICS.get(operation)
    if names is None:
        return None
    metrics = _normalised(info.operation_metrics, {n for n in names if n is not None})
    inserted, deleted, updated = (None if n is None else metrics.get(n) for n in names)
    if all(v is None for v in (inserted, deleted, updated)):
        return None
    mixed = False
    if names[0] is None:
        inserted = 0
    if names[1] is None:  # a WRITE's removes (overwrite) took their live records with them
        by_files = 0 if stats is None else stats.removed
        deleted, mixed = (by_files, bool(by_files)) if names[0] else (0, False)
    if names[2] is None:
        updated = 0
    if None in (inserted, deleted, updated):
        return None
    assert inserted is not None and deleted is not None and updated is not None
    added, removed = inserted + updated, deleted + updated
    exact, note = True, "from operation metrics"
    net = added - removed if stats is None else stats.net
    if net is not None and net != added - removed:
        exact = False
        note = (
            f"from operation metrics, which disagree with the file stats (net {added - removed:+,}"
            f" vs {net:+,})"
        )
    return RowChange(
        added=added,
        removed=removed,
        updated=updated,
        net=net,
        source=RowSource.METRICS_AND_FILE_STATS if mixed else RowSource.OPERATION_METRICS,
        exact=exact,
        note=note if not mixed else note.replace("metrics", "metrics and file stats", 1),
    )


def _normalised(metrics: Mapping[str, Any], wanted: set[str]) -> dict[str, int]:
    """The ``wanted`` metrics by normalised name (a later key of the same name wins)."""
    out: dict[str, int] = {}
    for key, value in metrics.items():
        name = metric_name(key)
        if name in wanted:
            try:
                out[name] = int(value)
            except (TypeError, ValueError):
                continue
    return out
