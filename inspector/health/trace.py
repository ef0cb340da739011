"""The full check's trace: every retained version's file actions as one Arrow table, damage
and all.

The log is replayed from the earliest version's snapshot. A commit missing or damaged
breaks the replay: the versions from it on are unreadable until a checkpoint whose
snapshot can be read starts a new replay (a *segment*). The file actions of the replayed
commits and each segment's base become one table (:mod:`.intervals`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from inspector.delta.actions import (
    Action,
    AddCDCFile,
    DomainMetadata,
    Metadata,
    Protocol,
    Txn,
)
from inspector.delta.errors import InspectorError
from inspector.health.examine import Ref, register_add
from inspector.health.intervals import ActionRows, Intervals, intervals, plain_files, whole_array
from inspector.health.problems import COMMIT_MISSING, commit_problem
from inspector.health.records import HealthProblem, ProblemKind
from inspector.log import arrays
from inspector.log.bigcommit import read_file_lines
from inspector.log.commit import parse_commit
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import LogFile
from inspector.log.snapshot import FileKey, Snapshot
from inspector.table.history_scan import SLICE, split_slice

_STATE = (Metadata, Protocol, Txn, DomainMetadata)  # what a checksum records besides files
_NULL_TAG = re.compile(rb'"tags":\{[^}]*":null')


@dataclass(kw_only=True)
class ArrowTrace:
    """The trace: intervals, the files to judge, and what every retained version names."""

    root: str
    first: int
    latest: int
    segments: list[tuple[int, int]]  # (base version, last version) of each replay
    problems: dict[int, list[HealthProblem]]  # a version's own (commit, snapshot, replay)
    unreadable: set[int]  # the versions no replay reaches
    intervals: Intervals
    plain: pa.Table  # (path, size, stats): data files with plain paths, the first add's
    refs: dict[str, Ref] = field(default_factory=dict)  # DV files and odd paths' data files
    special_paths: dict[FileKey, tuple[str, ...]] = field(default_factory=dict)
    notes: Notes  # what the reading noted besides file actions


@dataclass(kw_only=True)
class Notes:
    """What the reading notes besides file actions, version by version; ``bases`` (each
    replay's base snapshot) and ``stated`` (each replayed commit's metadata, protocol, txn
    and domainMetadata actions) are what a version checksum records besides files."""

    damage: dict[int, HealthProblem] = field(default_factory=dict)  # commits missing, damaged
    cdc: set[str] = field(default_factory=set)  # change-data files' paths as the log has them
    bases: dict[int, Snapshot] = field(default_factory=dict)
    stated: dict[int, list[Action]] = field(default_factory=dict)

    @property
    def partition_columns(self) -> tuple[str, ...]:
        """The newest metaData's (of a replay's base or a readable commit)."""
        found = {v: base.metadata for v, base in self.bases.items()}
        found |= {v: a for v, done in self.stated.items() for a in done if isinstance(a, Metadata)}
        return found[max(found)].partition_columns if found else ()

    def commit(self, version: int, others: Sequence[Action], problem: HealthProblem | None) -> None:
        if problem is not None:
            self.damage[version] = problem
        for action in others:
            if isinstance(action, AddCDCFile):
                self.cdc.add(action.path)
            elif problem is None and isinstance(action, _STATE):
                self.stated.setdefault(version, []).append(action)


def trace(log: DeltaLog, *, deep: bool) -> ArrowTrace:
    """The trace of every retained version, damaged or not (``deep``: keep the adds' stats,
    for the footer check's row counts)."""
    root, first, latest = log.table_root, log.earliest_version, log.latest_version
    rows, notes = ActionRows(deep=deep), Notes()
    opening = log.read_commits([first])
    if own := commit_problem(opening[0] if opening else None):
        notes.damage[first] = own
    base = _base(log, first, rows, notes)
    later = range(first + 1, latest + 1)
    listed = [(v, f) for v in later if (f := log.commit_file(v)) is not None]
    for version, others, problem in _read(log, listed, rows):
        notes.commit(version, others, problem)
    for version in set(later).difference(v for v, _ in listed):
        notes.damage[version] = COMMIT_MISSING
    segments, problems = _replay(log, first, latest, base, rows, notes)
    unreadable = set(range(first, latest + 1)).difference(*(range(s, e + 1) for s, e in segments))
    starts = np.array([s for s, _ in segments], dtype=np.int64)
    ends = np.array([e for _, e in segments], dtype=np.int64)
    table, refs, special = _kept(rows, starts, ends, root, whole=segments == [(first, latest)])
    at = arrays.to_numpy(whole_array(table.column("version")))
    segment = np.searchsorted(starts, at, "right") - 1
    return ArrowTrace(
        root=root,
        first=first,
        latest=latest,
        segments=segments,
        problems=_broken(unreadable, problems),
        unreadable=unreadable,
        intervals=intervals(table, segment, ends),
        plain=plain_files(table),
        refs=refs,
        special_paths=special,
        notes=notes,
    )


def _base(log: DeltaLog, version: int, rows: ActionRows, notes: Notes) -> HealthProblem | None:
    """Put a version's snapshot into ``rows`` as a replay's base; its problem when it
    cannot be read."""
    try:
        snap = log.snapshot(version)  # cached: the checkpoint comparison starts from it
    except InspectorError as exc:
        return HealthProblem(kind=ProblemKind.SNAPSHOT_UNREADABLE, message=exc.message)
    files = snap.files_table
    lines = arrays.from_numpy(np.arange(files.num_rows, dtype=np.int64))
    rows.add_table(version, files, lines, add=True, base=True)
    notes.bases[version] = snap
    return None


def _replay(
    log: DeltaLog,
    first: int,
    latest: int,
    base: HealthProblem | None,
    rows: ActionRows,
    notes: Notes,
) -> tuple[list[tuple[int, int]], dict[int, list[HealthProblem]]]:
    """The segments a replay reaches, and each version's own problems: a damaged version
    starts over from its checkpoint when it has one, else it and the versions after it
    are unreadable until one does."""
    checkpoints = {cp.version for cp in log.listing.usable_checkpoints()}
    segments: list[tuple[int, int]] = []
    problems: dict[int, list[HealthProblem]] = {}
    start: int | None = None
    damage = notes.damage
    for version in sorted({first, *damage, *(c for c in checkpoints if c > first)}):
        if version > latest:
            break
        own = damage.get(version)
        if start is not None and own is None:
            continue  # a checkpoint while the replay runs: nothing starts over
        if start is not None:
            segments.append((start, version - 1))
            start = None
        if version == first or version in checkpoints:
            unread = base if version == first else _base(log, version, rows, notes)
            if unread is None:
                start = version
                problems[version] = [own] if own else []
                continue
            own = own or unread
        assert own is not None  # else neither damaged nor a checkpoint: not visited
        problems[version] = [own]
    if start is not None:
        segments.append((start, latest))
    return segments, problems


def _broken(
    unreadable: set[int], problems: dict[int, list[HealthProblem]]
) -> dict[int, list[HealthProblem]]:
    """Each version no replay reaches and nothing of its own explains: the replay is
    broken since the first unreadable version of its run."""
    broken_at = 0
    for version in sorted(unreadable):
        if version - 1 not in unreadable:
            broken_at = version
        if version not in problems:
            message = (
                f"The log cannot be replayed to this version: version {broken_at} is "
                "unreadable and no checkpoint after it bridges the gap."
            )
            problems[version] = [HealthProblem(kind=ProblemKind.REPLAY_BROKEN, message=message)]
    return problems


def _kept(
    rows: ActionRows, starts: np.ndarray, ends: np.ndarray, root: str, *, whole: bool
) -> tuple[pa.Table, dict[str, Ref], dict[FileKey, tuple[str, ...]]]:
    """The rows the replays use (each segment's base and the commits after it), in replay
    order; and the special rows registered, in that order, by the shared rule. ``whole``:
    one replay from the earliest version to the latest uses every row, in the order read."""
    table, specials = rows.table(), rows.specials
    refs: dict[str, Ref] = {}
    special: dict[FileKey, tuple[str, ...]] = {}
    if not whole:
        version = arrays.to_numpy(whole_array(table.column("version")))
        based = arrays.to_numpy(whole_array(table.column("base")).cast(pa.int64())) == 1
        keep = _reached(version, based, starts, ends)
        table = table.filter(arrays.mask(keep)).sort_by(
            [("version", "ascending"), ("base", "descending"), ("line", "ascending")]
        )
        found = _reached(
            np.array([v for v, _, _ in specials], dtype=np.int64),
            np.array([b for _, b, _ in specials], dtype=bool),
            starts,
            ends,
        )
        specials = [s for s, k in zip(specials, found.tolist(), strict=True) if k]
        specials.sort(key=lambda s: (s[0], not s[1]))
    for _, _, add in specials:
        if add.key not in special:
            special[add.key] = register_add(refs, root, add)
    return table, refs, special


def _reached(
    version: np.ndarray, based: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray:
    """Which rows a replay uses: a base at its segment's start, a commit after it."""
    if not len(starts):
        return np.zeros(len(version), dtype=bool)
    at = np.searchsorted(starts, version, "right") - 1
    inside = (at >= 0) & (version <= ends[np.maximum(at, 0)])
    return inside & (based | (version > starts[np.maximum(at, 0)]))


def _read(
    log: DeltaLog, listed: list[tuple[int, LogFile]], rows: ActionRows
) -> Iterator[tuple[int, Sequence[Action], HealthProblem | None]]:
    """Put the listed commits' (``(version, file)``, ascending) readable file actions into
    ``rows``, a slice at a time; yields each one's other actions and its problem (damaged).

    A slice read from storage has its add and remove lines read together by Arrow's JSON
    reader (as the history's bulk read does); a slice with anything unusual goes through the
    one commit parser, commit by commit (from the bytes read). Commits held parsed already
    (a snapshot's) are taken as they are, in slices of their own.
    """
    held = {v: c for v, _ in listed if (c := log.cached_commit(v)) and c.counted is None}
    runs = [list(run) for _, run in itertools.groupby(listed, key=lambda vf: vf[0] in held)]
    for part in (run[i : i + SLICE] for run in runs for i in range(0, len(run), SLICE)):
        if part[0][0] in held:
            commits = [held[v] for v, _ in part]
        else:
            contents = log.read_commit_files([f for _, f in part])
            bulk = _bulk(part, contents, rows)
            if bulk is not None:
                yield from ((v, typed, None) for (v, _), typed in zip(part, bulk, strict=True))
                continue
            commits = [parse_commit(v, f, d) for (v, f), d in zip(part, contents, strict=True)]
        for commit in commits:
            problem = commit_problem(commit)
            if problem is None:
                rows.add_commit(commit)
            yield commit.version, commit.parsed, problem  # other actions (and file actions)


def _bulk(
    part: list[tuple[int, LogFile]], contents: list[bytes | OSError], rows: ActionRows
) -> list[Sequence[Action]] | None:
    """A slice's file actions read together into ``rows`` (the history's bulk read); each
    commit's other actions. None when a commit is not fit for it (nothing is put into
    ``rows`` then).

    A tag with a null value is refused by the one commit parser and let through by Arrow's
    reader (read together, rows' tags have every key any row has): such a slice is left
    to the parser, which names the commit damaged.
    """
    splits = split_slice(part, contents)
    if len(splits) < len(part):
        return None
    owners = [v for v, _ in part for _ in splits[v].file_lines]
    if owners:
        body = b"\n".join(line for v, _ in part for line in splits[v].file_lines)
        files = read_file_lines(body) if _NULL_TAG.search(body) is None else None
        if files is None:
            return None
        version = np.asarray(owners, dtype=np.int64)
        for kind, table, lines in files.by_kind():
            at = arrays.to_numpy(lines.cast(pa.int64()))
            rows.add_table(version[at], table, lines, add=kind == "add", base=False)
    return [splits[v].parsed for v, _ in part]
