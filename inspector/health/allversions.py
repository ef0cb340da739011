"""The full check (every retained version) in Arrow, for the plain case.

The plain case: every commit after the earliest version is present and readable and the
earliest snapshot can be read; a checkpoint may or may not exist. :mod:`.trace_arrow`
gives each file key's live intervals. Each distinct file is judged once against one walk
of the table folder (a hash look-up of the plain data files' paths; deletion-vector files
and odd paths one by one by the shared rule of :class:`~.evaluate.Examiner`). Only the
keys of the bad files are then replayed, version by version, through the same
reference-counted :class:`~.evaluate.Tally` the traced check uses, so that counts and
capped lists are those of the traced check; a version where no bad file's key changes
repeats the previous verdict. With no bad file, no key is replayed at all.

Anything else (a commit missing or damaged in the retained range, so that versions must
be rebased at checkpoints; the ``deep`` footer check) is left to the traced check of
:mod:`.trace` and :mod:`.evaluate`, which names each version's damage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.errors import InspectorError
from inspector.files.filecheck import FileIssue, FileRole
from inspector.health.evaluate import Examiner, Progress, Tally
from inspector.health.latest import look_up, root_base, stored_files, unclaimed, whole_array
from inspector.health.records import HealthProblem, VersionHealth
from inspector.health.trace import Ref, Step, Trace, commit_problem, log_problems, ref_path
from inspector.health.trace_arrow import ArrowTrace, key_of, text_of, trace_plain
from inspector.log import arrays
from inspector.log.deltalog import DeltaLog
from inspector.log.snapshot import FileKey


@dataclass(frozen=True, kw_only=True)
class FullCheck:
    """Every retained version's verdict, the files examined and the orphans."""

    versions: tuple[VersionHealth, ...]
    files_examined: int
    orphans: tuple[tuple[str, int], ...]  # (path relative to the root, bytes)


@dataclass(kw_only=True)
class _Judged:
    """The bad files by location, and how many distinct files were judged."""

    issues: dict[str, FileIssue]
    examined: int
    rest: dict[str, Ref]  # the files judged one by one (DV files, odd paths)
    found: pa.Array  # each plain data file's row in the walk (null when not there)


def check_all_versions(
    log: DeltaLog,
    *,
    all_checkpoints: bool,
    cap: int,
    workers: int,
    progress: Progress | None = None,
) -> FullCheck | None:
    """Every retained version's verdict, or None when the log is not the plain case.

    Args:
        log: The opened log.
        all_checkpoints: Compare every checkpoint with its commits (not only the newest).
        cap: ``max_listed_files``: the lists of bad files are capped, the counts exact.
        workers: Parallel stat calls for the files judged one by one.
        progress: Called as ``progress(done, total)``.
    """
    first, latest = log.earliest_version, log.latest_version
    later = list(range(first + 1, latest + 1))
    if any(log.commit_file(v) is None for v in later):
        return None
    try:
        base = log.snapshot(first)
    except InspectorError:
        return None
    trace = trace_plain(log, base, first, latest)
    if trace is None:
        return None
    walked = stored_files(*log.storage.walk_sizes(), trace.partition_columns)
    judged = _judge(trace, walked, log, workers, progress)
    if judged is None:
        return None
    opening = log.read_commits([first])
    own = commit_problem(opening[0] if opening else None)
    trace.cdc.update(c.path for commit in opening for c in commit.cdc_files)
    problems = _problems(log, first, latest, own, all_checkpoints)
    versions = _versions(trace, judged.issues, problems, first, latest, cap)
    return FullCheck(
        versions=tuple(versions),
        files_examined=judged.examined,
        orphans=_orphans(trace, walked, judged),
    )


def _judge(
    trace: ArrowTrace, walked: pa.Table, log: DeltaLog, workers: int, progress: Progress | None
) -> _Judged | None:
    """Judge each distinct file once; None when an odd path names a plain one's file."""
    prefix = root_base(trace.root) + "/"
    rest = {
        where: ref
        for where, ref in trace.refs.items()
        if not (ref.role is FileRole.DATA_FILE and where == prefix + ref.display)
    }
    inside = arrays.texts([where[len(prefix) :] for where in rest if where.startswith(prefix)])
    plain = trace.plain
    if (
        len(inside)
        and pc.any(pc.is_in(inside, value_set=whole_array(plain.column("path")))).as_py()
    ):
        return None  # one file under two spellings: the traced check counts it once
    total = plain.num_rows + len(rest)
    if progress is not None:
        progress(0, total)
    found, todo, sizes = _bad_plain(plain, walked, prefix)
    todo |= rest
    listed = walked.filter(pc.is_in(walked.column("path"), value_set=inside))
    for path, size in zip(
        listed.column("path").to_pylist(), listed.column("size").to_pylist(), strict=True
    ):
        sizes[prefix + path] = size
    examiner = Examiner(todo, False, workers, None, sizes, log.storage)
    examiner.run(todo)
    if progress is not None:
        progress(total, total)
    issues = {where: issue for where, issue in examiner.issues.items() if issue is not None}
    return _Judged(issues=issues, examined=total, rest=rest, found=found)


def _bad_plain(
    plain: pa.Table, walked: pa.Table, prefix: str
) -> tuple[pa.Array, dict[str, Ref], dict[str, int]]:
    """Each plain data file's row in the walk (one hash look-up); those not there or of
    another size as refs for the shared rule, with the sizes the walk found."""
    found, actual, bad = look_up(plain, walked)
    refs: dict[str, Ref] = {}
    sizes: dict[str, int] = {}
    if not pc.any(bad).as_py():
        return found, refs, sizes
    for row in plain.append_column("actual", actual).filter(bad).to_pylist():
        where = prefix + row["path"]
        refs[where] = Ref(display=row["path"], role=FileRole.DATA_FILE, size=row["size"])
        if row["actual"] is not None:
            sizes[where] = row["actual"]
    return found, refs, sizes


def _problems(
    log: DeltaLog, first: int, latest: int, own: HealthProblem | None, all_checkpoints: bool
) -> dict[int, list[HealthProblem]]:
    """Each version's problems, as the traced check merges them."""
    found: dict[int, list[HealthProblem]] = {first: [own]} if own else {}
    for version, problems in log_problems(log, all_checkpoints).items():
        if first <= version <= latest:
            known = found.get(version, [])
            found[version] = known + [p for p in problems if p not in known]
    return found


def _bad_keys(trace: ArrowTrace, issues: dict[str, FileIssue]) -> dict[FileKey, tuple[str, ...]]:
    """The keys that reference a bad file, with the files each references."""
    prefix = root_base(trace.root) + "/"
    out: dict[FileKey, tuple[str, ...]] = {}
    bad_plain = [where[len(prefix) :] for where in issues if where.startswith(prefix)]
    if bad_plain:
        texts = trace.intervals.keys
        paths = pc.replace_substring_regex(texts, "\x00[^\x00]*$", "")
        hit = pc.is_in(paths, value_set=arrays.texts(bad_plain))
        for text in texts.filter(hit).to_pylist():
            key = key_of(text)
            out[key] = trace.special_paths.get(key, (prefix + key[0],))
    for key, located in trace.special_paths.items():
        if any(where in issues for where in located):
            out[key] = located
    return out


def _changes(
    trace: ArrowTrace, bad: dict[FileKey, tuple[str, ...]], first: int, latest: int
) -> dict[int, tuple[list[FileKey], list[FileKey]]]:
    """Per version, the bad keys removed and added, in the order the traced check applies
    them (the base sorted by key; a commit's adds by the line of each key's first action)."""
    found = trace.intervals
    ids = pc.index_in(arrays.texts([text_of(k) for k in bad]), value_set=found.keys)
    ids = arrays.to_numpy(ids.fill_null(-1))
    rows = np.flatnonzero(np.isin(found.key, ids[ids >= 0]))
    texts = found.keys.take(arrays.from_numpy(found.key[rows])).to_pylist()
    added: dict[int, list[tuple[int, FileKey]]] = {}
    removed: dict[int, list[FileKey]] = {}
    for text, row in zip(texts, rows.tolist(), strict=True):
        key = key_of(text)
        start, end = int(found.start[row]), int(found.end[row])
        added.setdefault(start, []).append((int(found.line[row]), key))
        if end <= latest:
            removed.setdefault(end, []).append(key)
    out: dict[int, tuple[list[FileKey], list[FileKey]]] = {}
    for version in sorted({*added, *removed}):
        adds = added.get(version, [])
        order = sorted(adds, key=lambda a: str(a[1]) if version == first else a[0])
        out[version] = (removed.get(version, []), [key for _, key in order])
    return out


def _versions(
    trace: ArrowTrace,
    issues: dict[str, FileIssue],
    problems: dict[int, list[HealthProblem]],
    first: int,
    latest: int,
    cap: int,
) -> list[VersionHealth]:
    """Each version's verdict: the bad keys replayed through the traced check's tally."""
    bad = _bad_keys(trace, issues) if issues else {}
    changes = _changes(trace, bad, first, latest) if bad else {}
    tally = Tally(Trace(root=trace.root, key_paths=bad), dict(issues))
    out: list[VersionHealth] = []
    health: VersionHealth | None = None
    for version in range(first, latest + 1):
        found = problems.get(version, [])
        change = changes.get(version)
        if health is None or change is not None:
            if change is not None:
                tally.change(change[0], -1)
                tally.change(change[1], +1)
            health = tally.health(Step(version=version, problems=found), cap)
        else:
            health = replace(health, version=version, problems=tuple(found))
        out.append(health)
    return out


def _orphans(trace: ArrowTrace, walked: pa.Table, judged: _Judged) -> tuple[tuple[str, int], ...]:
    """Walked files that no add of a retained version and no change-data file names: those
    the plain data files did not find, less the few other files named."""
    named = [*judged.rest, *(ref_path(trace.root, path) for path in trace.cdc)]
    stray = unclaimed(walked, judged.found, named, trace.root)
    return tuple(
        zip(stray.column("path").to_pylist(), stray.column("size").to_pylist(), strict=True)
    )
