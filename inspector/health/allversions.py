"""Every retained version's verdict, in Arrow, on any log (damaged or not, deep or not).

Each distinct file of the trace (:mod:`.trace`) is judged once (:func:`~.examine.judge_files`);
only the keys of the bad files are then replayed, version by version, through the
reference-counted :class:`~.examine.Tally`: a version where no bad file's key changes
repeats the previous verdict, and with no bad file no key is replayed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.files.filecheck import FileIssue
from inspector.health.checksum import TableState, check_checksum, read_checksums, with_checksum
from inspector.health.examine import (
    Checked,
    Judged,
    Judging,
    Tally,
    judge_files,
    ref_path,
    root_base,
    sized_paths,
    stored_files,
    unclaimed,
)
from inspector.health.intervals import key_of, text_of
from inspector.health.problems import log_problems
from inspector.health.records import ChecksumCheck, HealthProblem, VersionHealth, VersionStatus
from inspector.health.trace import ArrowTrace, trace
from inspector.log import arrays
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey

_UNREADABLE = VersionStatus.UNREADABLE


def check_all_versions(log: DeltaLog, how: Judging, *, verify_all: bool) -> Checked:
    """Every retained version's verdict (``verify_all``: compare every checkpoint with its
    commits and every ``.crc`` with its replay, else only the newest)."""
    traced, walked, judged = judged_trace(log, how)
    problems = _problems(log, traced, verify_all)
    versions = _versions(traced, judged.issues, problems, how.cap)
    crcs = _checksums(log, traced, verify_all)
    # orphans: the walked files no add of a retained version and no change-data file names
    named = [*judged.rest, *(ref_path(traced.root, path) for path in traced.notes.cdc)]
    return Checked(
        versions=tuple(with_checksum(v, crcs.get(v.version)) for v in versions),
        files_examined=judged.examined,
        orphans=sized_paths(unclaimed(walked, judged.found, named, traced.root)),
    )


def judged_trace(
    log: DeltaLog, how: Judging, walk: tuple[list[str], list[int]] | None = None
) -> tuple[ArrowTrace, pa.Table, Judged]:
    """The trace of every retained version, one walk of the table folder (``walk``: its
    paths and sizes, when listed already) and each distinct file judged once against it."""
    traced = trace(log, deep=how.deep)
    walked = stored_files(*(walk or log.storage.walk_sizes()), traced.notes.partition_columns)
    return traced, walked, judge_files(log, traced.plain, traced.refs, walked, how)


def _problems(
    log: DeltaLog, traced: ArrowTrace, all_checkpoints: bool
) -> dict[int, list[HealthProblem]]:
    """Each version's problems: its own (commit, snapshot, replay), then its checkpoints'."""
    found = {version: list(problems) for version, problems in traced.problems.items()}
    for version, problems in log_problems(log, all_checkpoints).items():
        if traced.first <= version <= traced.latest:
            known = found.get(version, [])
            found[version] = known + [p for p in problems if p not in known]
    return found


def _bad_keys(traced: ArrowTrace, issues: Collection[str]) -> dict[FileKey, tuple[str, ...]]:
    """The keys that reference a bad file (by location), with the files each references."""
    prefix = root_base(traced.root) + "/"
    out: dict[FileKey, tuple[str, ...]] = {}
    bad_plain = [where[len(prefix) :] for where in issues if where.startswith(prefix)]
    if bad_plain:
        texts = traced.intervals.keys
        paths = pc.replace_substring_regex(texts, "\x00[^\x00]*$", "")
        hit = pc.is_in(paths, value_set=arrays.texts(bad_plain))
        for text in texts.filter(hit).to_pylist():
            key = key_of(text)
            out[key] = traced.special_paths.get(key, (prefix + key[0],))
    for key, located in traced.special_paths.items():
        if any(where in issues for where in located):
            out[key] = located
    return out


def _rows_of(traced: ArrowTrace, keys: Iterable[FileKey]) -> np.ndarray:
    found = traced.intervals
    ids = pc.index_in(arrays.texts([text_of(k) for k in keys]), value_set=found.keys)
    ids = arrays.to_numpy(ids.fill_null(-1))
    return np.flatnonzero(np.isin(found.key, ids[ids >= 0]))


def versions_naming(traced: ArrowTrace, locations: Collection[str]) -> set[int]:
    """The versions a replay reaches whose live files name any of ``locations`` (data or
    deletion-vector files, as :func:`~.examine.ref_path` spells them)."""
    bad = _bad_keys(traced, locations) if locations else {}
    found, rows = traced.intervals, _rows_of(traced, bad)
    marks = np.zeros(traced.latest - traced.first + 2, dtype=np.int64)
    np.add.at(marks, found.start[rows] - traced.first, 1)
    np.add.at(marks, found.end[rows] - traced.first, -1)
    return set((np.flatnonzero(np.cumsum(marks)[:-1]) + traced.first).tolist())


def first_references(traced: ArrowTrace) -> dict[str, int]:
    """Every file a retained version names (data and deletion-vector files, relative to the
    root; none outside it), with the first version that names it."""
    found, never = traced.intervals, np.iinfo(np.int64).max
    first = np.full(len(found.keys), never, dtype=np.int64)
    np.minimum.at(first, found.key, found.start)
    prefix, out = root_base(traced.root) + "/", dict[str, int]()
    for text, version in zip(found.keys.to_pylist(), first.tolist(), strict=True):
        key = key_of(text)
        for where in traced.special_paths.get(key, (prefix + key[0],)):
            if version != never and where.startswith(prefix):
                path = where[len(prefix) :]
                out[path] = min(out.get(path, version), version)
    return out


def _changes(
    traced: ArrowTrace, bad: dict[FileKey, tuple[str, ...]]
) -> dict[int, tuple[list[FileKey], list[FileKey]]]:
    """Per version, the bad keys removed and added, in the order a replay applies them (a
    base sorted by key; a commit's adds by the line of each key's first action)."""
    found, rows = traced.intervals, _rows_of(traced, bad)
    texts = found.keys.take(arrays.from_numpy(found.key[rows])).to_pylist()
    added: dict[int, list[tuple[int, FileKey]]] = {}
    removed: dict[int, list[FileKey]] = {}
    for text, row in zip(texts, rows.tolist(), strict=True):
        key = key_of(text)
        start, end = int(found.start[row]), int(found.end[row])
        added.setdefault(start, []).append((int(found.line[row]), key))
        if found.closed[row]:
            removed.setdefault(end, []).append(key)
    bases = {start for start, _ in traced.segments}
    out: dict[int, tuple[list[FileKey], list[FileKey]]] = {}
    for version in sorted({*added, *removed}):
        adds = added.get(version, [])
        order = sorted(adds, key=lambda a: str(a[1]) if version in bases else a[0])
        out[version] = (removed.get(version, []), [key for _, key in order])
    return out


def _versions(
    traced: ArrowTrace,
    issues: dict[str, FileIssue],
    problems: dict[int, list[HealthProblem]],
    cap: int,
) -> list[VersionHealth]:
    """Each version's verdict: the bad keys replayed through the tally (starting over at
    each replay's base); a version no replay reaches is unreadable."""
    bad = _bad_keys(traced, issues) if issues else {}
    changes = _changes(traced, bad) if bad else {}
    tally = Tally(bad, dict(issues))
    bases, unreadable = {start for start, _ in traced.segments}, traced.unreadable
    out: list[VersionHealth] = []
    health: VersionHealth | None = None  # the previous version's, while a replay runs
    for version in range(traced.first, traced.latest + 1):
        found, change = tuple(problems.get(version, [])), changes.get(version)
        if version in unreadable:
            health = None
            out.append(VersionHealth(version=version, status=_UNREADABLE, problems=found))
            continue
        if version in bases:
            tally.reset()
        if change is not None:
            tally.change(change[0], -1)
            tally.change(change[1], +1)
        if health is None or change is not None or version in bases:
            health = tally.health(version, found, cap)
        else:  # no bad file's key changes: the previous verdict stands
            health = replace(health, version=version, problems=found)
        out.append(health)
    return out


def _checksums(log: DeltaLog, traced: ArrowTrace, every: bool) -> dict[int, ChecksumCheck]:
    """The ``.crc`` of each version a replay reaches (``every``; else the latest's) against
    its replayed state: files and bytes from the live intervals, the rest replayed from the
    segment's base snapshot through the commits' metadata, protocol, txn and domain actions."""
    reached = [(s, e) for s, e in traced.segments if every or e == traced.latest]
    wanted = [v for s, e in reached for v in range(s, e + 1) if every or v == traced.latest]
    found = read_checksums(log, wanted)
    if not found:
        return {}
    counted = _live_counts(traced, sorted(found))
    out: dict[int, ChecksumCheck] = {}
    for start, end in reached:
        state = TableState.of(traced.notes.bases[start])
        steps = {v for v in [*traced.notes.stated, *found] if start < v <= end}
        for version in [start, *sorted(steps)]:
            if version != start:
                state = state.applied(traced.notes.stated.get(version, ()))
            if version in found:
                num_files, size = counted[version]
                at = replace(state, num_files=num_files, table_size_bytes=size)
                out[version] = check_checksum(version, found[version], at)
    return out


def _live_counts(traced: ArrowTrace, wanted: list[int]) -> dict[int, tuple[int, int]]:
    """The live files' count and bytes at each version (sorted), from the intervals."""
    found, versions = traced.intervals, np.array(wanted, dtype=np.int64)
    by_start, by_end = np.argsort(found.start, kind="stable"), np.argsort(found.end, kind="stable")
    opened = np.searchsorted(found.start[by_start], versions, "right")
    closed = np.searchsorted(found.end[by_end], versions, "right")
    bytes_in = np.r_[0, np.cumsum(found.size[by_start])]
    bytes_out = np.r_[0, np.cumsum(found.size[by_end])]
    files, sizes = (opened - closed).tolist(), (bytes_in[opened] - bytes_out[closed]).tolist()
    return dict(zip(wanted, zip(files, sizes, strict=True), strict=True))
