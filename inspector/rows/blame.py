"""Who wrote a row: every version that inserted, changed or deleted the rows a filter matches.

A walk forward from the oldest readable version reads (by Delta, the filter pushed down)
only the versions whose commit adds or removes a file that may hold a matching row (its
statistics, :mod:`inspector.files.pruning`) or removes a file holding a followed row, and
compares consecutive reads:

- with row tracking rows are linked by ``_metadata.row_id``, so a row is followed after
  its filtered columns change (reads take ``filter OR row_id IN (...)``);
- without it rows are matched by their values: one row leaving and one arriving in a
  version is an update, anything else is deletes and inserts.

Log retention and VACUUM cut the history short; the answer says where.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.delta import properties
from inspector.delta.actions import canonical_path
from inspector.delta.errors import InvalidInput, MissingDataFile
from inspector.files.pruning import Filters, prune
from inspector.log.deltalog import DeltaLog
from inspector.rows.blame_records import (
    Blame,
    BlamedRow,
    HistoryCut,
    Method,
    RowWrite,
    WriteKind,
)
from inspector.rows.delta_engine import read_snapshot
from inspector.rows.explain import relative_path
from inspector.rows.predicate import filtered, log_filters
from inspector.rows.preview import spark_action
from inspector.rows.session import get_spark
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from inspector.delta.schema import StructType
    from inspector.log.commit import Commit

_ID, _RCV, _FILE = "__blame_row_id", "__blame_row_commit_version", "__blame_file"
_NO_TRACKING = (
    "The table has no row tracking: rows are matched by the filter alone, so a row whose "
    "filtered columns change leaves (deleted) or arrives (inserted)."
)


@dataclass(frozen=True, kw_only=True)
class _Seen:
    """A row as one read saw it."""

    row_id: int | None
    values: dict[str, Any]
    rcv: int | None
    file: str


@dataclass(kw_only=True)
class _Track:
    """A row being followed: its writes so far and how the last read saw it."""

    row_id: int | None
    writes: list[tuple[int, WriteKind, dict[str, Any] | None, _Seen | None]] = field(
        default_factory=list
    )
    last: _Seen | None = None


def blame_rows(
    log: DeltaLog,
    version: int,
    where: str,
    *,
    settings: Settings,
    spark: SparkSession | None = None,
    max_rows: int = 100,
) -> Blame:
    """Every version up to ``version`` that wrote a row matching ``where`` (then or before).

    Raises:
        VersionNotFound: The version is not in the log.
        InvalidInput: The filter does not parse, names a column the version lacks, or
            matches more than ``max_rows`` rows.
        UnsupportedFeature: Delta refuses to read the version.
    """
    snapshot = log.snapshot(version)
    spark = spark or get_spark(settings)
    read = read_snapshot(snapshot, spark=spark, check_workers=None)  # planned, not read
    filters = log_filters(filtered(read, where), snapshot)
    walk = _Walk(log, spark, where, snapshot.schema, max_rows)
    earliest = log.earliest_version
    commits = log.read_commits([v for v in log.listing.commits if earliest < v <= version])
    config = dict(log.snapshot(earliest).metadata.configuration)
    walk.read(earliest, _tracking(config))
    for commit in commits:
        if commit.metadata is not None:
            config = dict(commit.metadata.configuration)
        if walk.touches(commit, filters, snapshot.schema):
            walk.read(commit.version, _tracking(config))
    cuts = list(walk.cuts)
    if earliest > 0:
        cuts.insert(
            0,
            HistoryCut(
                version=earliest,
                reason=f"the log keeps versions from {earliest} on (log retention removed "
                "older commits); writes before it are not known",
            ),
        )
    tracking = _tracking(dict(snapshot.metadata.configuration))
    return Blame(
        version=version,
        where=where.strip(),
        method=Method.ROW_TRACKING if tracking else Method.PREDICATE,
        earliest_version=earliest,
        versions_read=tuple(walk.read_versions),
        versions_considered=version - earliest + 1,
        rows=_rows(log, settings, walk.tracks, version),
        cuts=tuple(cuts),
        notes=() if tracking else (_NO_TRACKING,),
    )


def _tracking(config: dict[str, str]) -> bool:
    return properties.enabled(config, properties.ENABLE_ROW_TRACKING)


class _Walk:
    """The reads of the walk, and the rows followed so far."""

    def __init__(
        self, log: DeltaLog, spark: Any, where: str, schema: StructType, max_rows: int
    ) -> None:
        self.log, self.spark, self.where, self.schema = log, spark, where, schema
        self.max_rows = max_rows
        self.tracks: list[_Track] = []
        self.previous: list[_Seen] | None = None
        self.read_versions: list[int] = []
        self.cuts: list[HistoryCut] = []

    def touches(self, commit: Commit, filters: Filters, schema: StructType) -> bool:
        """Whether a commit may have written a followed or matching row."""
        files = commit.file_tables()
        followed = {s.file for s in self.previous or ()}
        if any(p in followed for p in files.removes.column("key_path").to_pylist()):
            return True
        return any(
            table.num_rows and any(prune(table, schema, filters).stats.to_pylist())
            for _, table, _ in files.by_kind()
        )

    def read(self, version: int, tracking: bool) -> None:
        """Read a version and record what it wrote of the rows followed."""
        seen = self._seen(version, tracking)
        if seen is None:
            return
        self.read_versions.append(version)
        if self.previous is None:
            self._start(version, seen)
        else:
            self._compare(version, self.previous, seen)
        self.previous = seen
        if len(self.tracks) > self.max_rows:
            raise InvalidInput(
                f"More than {self.max_rows} rows match `{self.where}` at or before version "
                f"{version}.",
                "Narrow --where to the rows you mean (e.g. a key), or raise --max-rows.",
            )

    def _seen(self, version: int, tracking: bool) -> list[_Seen] | None:
        from pyspark.sql import functions as F

        snapshot = self.log.snapshot(version)
        # Not checked first: a version whose files VACUUM removed cuts the history short.
        df = read_snapshot(snapshot, spark=self.spark, check_workers=None)
        ids = [t.row_id for t in self.tracks if t.row_id is not None]
        by_id = F.col("_metadata.row_id").isin(ids) if tracking and ids else None
        condition = _resolved(df, self.where)
        if condition is None:  # the version lacks a column of the filter: no row matches it
            if by_id is None:
                return []
            condition = by_id
        elif by_id is not None:
            condition = condition | by_id
        extra = [F.col("_metadata.file_path").alias(_FILE)]
        if tracking:
            extra += [
                F.col("_metadata.row_id").alias(_ID),
                F.col("_metadata.row_commit_version").alias(_RCV),
            ]
        try:
            rows = spark_action(df.where(condition).select("*", *extra).collect)
        except MissingDataFile:  # VACUUM cut the history
            reason = "its data files are gone (VACUUM); its writes are not known"
            self.cuts.append(HistoryCut(version=version, reason=reason))
            self.previous = None
            return None
        names = [f.name for f in snapshot.schema.fields]
        return [
            _Seen(
                row_id=r[_ID] if tracking else None,
                values={n: r[n] for n in names},
                rcv=r[_RCV] if tracking else None,
                file=relative_path(canonical_path(r[_FILE]), self.log.table_root),
            )
            for r in rows
        ]

    def _start(self, version: int, seen: list[_Seen]) -> None:
        by_id = {t.row_id: t for t in self.tracks if t.row_id is not None}
        for row in seen:
            track = by_id.get(row.row_id) if row.row_id is not None else None
            if track is None:
                track = _Track(row_id=row.row_id)
                self.tracks.append(track)
            kind = WriteKind.INSERTED if version == 0 else WriteKind.PRESENT
            track.writes.append((row.rcv if row.rcv is not None else version, kind, None, row))
            track.last = row

    def _compare(self, version: int, before: list[_Seen], after: list[_Seen]) -> None:
        if all(r.row_id is not None for r in (*before, *after)):
            self._compare_ids(version, after)
            return
        self._compare_values(version, before, after)

    def _compare_ids(self, version: int, after: list[_Seen]) -> None:
        now = {r.row_id: r for r in after}
        for track in self.tracks:
            last = track.last
            if last is None:
                continue
            row = now.pop(track.row_id, None) if track.row_id is not None else None
            if row is None:
                track.writes.append((version, WriteKind.DELETED, last.values, None))
            elif row.values != last.values or row.rcv != last.rcv:
                track.writes.append((version, WriteKind.UPDATED, last.values, row))
            track.last = row
        for row in now.values():
            track = _Track(row_id=row.row_id, last=row)
            kind = WriteKind.INSERTED if row.rcv == version else WriteKind.PRESENT
            track.writes.append((row.rcv or version, kind, None, row))
            self.tracks.append(track)

    def _compare_values(self, version: int, before: list[_Seen], after: list[_Seen]) -> None:
        def key(r: _Seen) -> tuple[str, ...]:
            return tuple(repr(v) for v in r.values.values())

        left = Counter(key(r) for r in before) - Counter(key(r) for r in after)
        arrived = Counter(key(r) for r in after) - Counter(key(r) for r in before)
        leaving: list[_Track] = []
        for track in self.tracks:
            if track.last is not None and left[key(track.last)] > 0:
                left[key(track.last)] -= 1
                leaving.append(track)
        coming: list[_Seen] = []
        for row in after:
            if arrived[key(row)] > 0:
                arrived[key(row)] -= 1
                coming.append(row)
        if len(leaving) == 1 and len(coming) == 1:
            track, row = leaving[0], coming[0]
            track.writes.append(
                (version, WriteKind.UPDATED, track.last.values if track.last else None, row)
            )
            track.last = row
            return
        for track in leaving:
            track.writes.append(
                (version, WriteKind.DELETED, track.last.values if track.last else None, None)
            )
            track.last = None
        for row in coming:
            track = _Track(row_id=row.row_id, last=row)
            track.writes.append((version, WriteKind.INSERTED, None, row))
            self.tracks.append(track)
        for track in self.tracks:  # rows kept: their file may have moved (OPTIMIZE)
            if track.last is not None:
                track.last = next((r for r in after if r.values == track.last.values), track.last)


def _resolved(df: Any, where: str) -> Any:
    """The filter as a Spark column over ``df``, or None when ``df`` lacks one of its columns."""
    from pyspark.sql import functions as F

    try:
        filtered(df, where)
    except InvalidInput:
        return None
    return F.expr(where)


def _rows(
    log: DeltaLog, settings: Settings, tracks: list[_Track], version: int
) -> tuple[BlamedRow, ...]:
    """The followed rows as records, each write with the history's time and operation."""
    from inspector.table.history import history_page

    versions = {v for t in tracks for v, *_ in t.writes}
    earliest = min(versions, default=version)
    entries = {
        e.version: e
        for e in history_page(log, settings, limit=version - earliest + 1, newest=version)
    }
    rows = []
    for track in tracks:
        writes = []
        for v, kind, before, row in track.writes:
            entry = entries.get(v)
            writes.append(
                RowWrite(
                    version=v,
                    change=kind,
                    timestamp=entry.timestamp.isoformat().replace("+00:00", "Z") if entry else None,
                    operation=entry.operation if entry else "UNKNOWN",
                    user_name=entry.user if entry else None,
                    engine_info=entry.engine_info if entry else None,
                    before=before,
                    after=row.values if row is not None else None,
                    row_commit_version=row.rcv if row is not None else None,
                )
            )
        rows.append(BlamedRow(row_id=track.row_id, writes=tuple(writes)))
    return tuple(rows)
