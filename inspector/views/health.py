"""Health check: which versions of a table are complete, and the newest consistent one.

After a region failover, a replicated table's log can reference data files that
have not arrived (replication copies files in no guaranteed order, large files
last). The check answers, per retained version, "can a reader get every row?":

1. Trace (log only): replay the commits forward once from the earliest snapshot,
   recording each version's effective file changes and every distinct file
   (data file or deletion-vector file) any retained version references.
2. Examine: stat each distinct file exactly once, in parallel; a deep check also
   reads Parquet footers.
3. Evaluate: walk the versions again keeping only a count of bad files in the
   live set, so a full check costs O(changes + distinct files), not
   O(versions x files) as checking each snapshot separately would.
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import pyarrow.parquet as pq

from inspector.delta.actions import AddFile, RemoveFile, canonical_path
from inspector.delta.errors import InspectorError
from inspector.delta.paths import data_file_path
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.log.snapshot import FileKey
from inspector.settings import Settings

COMPLETE, INCOMPLETE, UNREADABLE = "complete", "incomplete", "unreadable"
DATA_FILE, DELETION_VECTOR = "data file", "deletion vector"
MISSING, SIZE_MISMATCH, UNREADABLE_FILE = "missing", "size mismatch", "unreadable"
_CHUNK = 256  # files per worker task: few enough futures, smooth enough progress

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class FileIssue:
    """A file the log references that a reader could not use.

    ``path`` is as the log names it (decoded, relative to the table root unless
    absolute); ``problem`` is ``missing``, ``size mismatch`` or ``unreadable``.
    """

    path: str
    kind: str
    problem: str
    expected_size: int | None
    actual_size: int | None
    detail: str = ""


@dataclass(frozen=True)
class VersionHealth:
    """The verdict for one version.

    ``status`` is ``complete`` (every referenced file is present with its
    recorded size), ``incomplete`` (files missing or damaged; the lists are
    capped at ``max_listed_files``, the counts are exact) or ``unreadable`` (the
    log cannot be replayed to this version).
    """

    version: int
    status: str
    missing_files: tuple[str, ...] = ()
    size_mismatches: tuple[FileIssue, ...] = ()
    problems: tuple[str, ...] = ()
    missing_count: int = 0
    size_mismatch_count: int = 0
    unreadable_files: tuple[FileIssue, ...] = ()
    unreadable_count: int = 0

    @property
    def is_complete(self) -> bool:
        """True when a reader gets every row of this version."""
        return self.status == COMPLETE


@dataclass(frozen=True)
class HealthReport:
    """The result of :func:`check_table`.

    ``versions`` is oldest first; it holds only the latest version when the fast
    check found it complete. ``orphan_files``/``orphan_bytes`` count files under
    the table root that no retained version references (VACUUM candidates, or
    files of commits that never arrived).
    """

    table_root: str
    latest_version: int
    last_consistent_version: int | None
    versions: tuple[VersionHealth, ...]
    orphan_files: int
    orphan_bytes: int
    files_examined: int
    problems: tuple[str, ...]
    all_versions: bool = False
    deep: bool = False
    orphan_paths: tuple[str, ...] = ()

    @property
    def latest(self) -> VersionHealth:
        """The verdict for the latest version."""
        return self.versions[-1]

    @property
    def is_consistent(self) -> bool:
        """True when the latest version is complete."""
        return self.latest.is_complete

    @property
    def damaged_versions(self) -> list[VersionHealth]:
        """Versions that are incomplete or unreadable, oldest first."""
        return [v for v in self.versions if not v.is_complete]


@dataclass
class _Ref:
    """One physical file referenced by the log: what size it must have."""

    display: str
    kind: str
    size: int
    add: AddFile | None = None  # a data file's add action, for its stats (deep check only)


@dataclass
class _Step:
    """One version as the trace saw it: a fresh base, or effective changes."""

    version: int
    base: list[FileKey] | None = None
    added: list[FileKey] = field(default_factory=list)
    removed: list[FileKey] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    readable: bool = True


@dataclass
class _Trace:
    """Pass 1's result: the steps and every distinct referenced file."""

    root: str
    steps: list[_Step] = field(default_factory=list)
    refs: dict[str, _Ref] = field(default_factory=dict)
    key_paths: dict[FileKey, tuple[str, ...]] = field(default_factory=dict)
    other_paths: set[str] = field(default_factory=set)
    latest_keys: list[FileKey] | None = None


def check_table(
    log: DeltaLog,
    *,
    all_versions: bool = False,
    deep: bool = False,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> HealthReport:
    """Check which versions of a table a reader can fully read.

    The fast check (default) examines the latest version; when that is not
    complete, it goes on to every retained version to find the last consistent
    one. Nothing is written and Spark is never started.

    Args:
        log: An opened (and, for fresh results, refreshed) log.
        all_versions: Check every retained version, not only the latest.
        deep: Also read each data file's Parquet footer and compare its row
            count with the log's stats.
        settings: For ``check_workers`` and ``max_listed_files``.
        progress: Called as ``progress(done, total)`` while files are examined.

    Returns:
        The report.
    """
    settings = settings or Settings()
    trace = _Tracer(log, all_checkpoints=all_versions).run()
    examiner = _Examiner(trace.refs, deep, max(1, settings.check_workers), progress)
    cap = settings.max_listed_files
    versions: list[VersionHealth] = []
    if not all_versions:
        latest_base = trace.latest_keys or []
        latest = _Step(
            trace.steps[-1].version,
            base=latest_base,
            problems=trace.steps[-1].problems,
            readable=trace.latest_keys is not None,
        )
        examiner.run(_paths_of(trace, latest_base))
        versions = _evaluate(trace, [latest], examiner.issues, cap)
    if all_versions or not versions[-1].is_complete:
        all_versions = True
        examiner.run(trace.refs)
        versions = _evaluate(trace, trace.steps, examiner.issues, cap)
    orphans = _orphans(trace)
    return HealthReport(
        table_root=log.table_root,
        latest_version=trace.steps[-1].version,
        last_consistent_version=max((v.version for v in versions if v.is_complete), default=None),
        versions=tuple(versions),
        orphan_files=len(orphans),
        orphan_bytes=sum(s for _, s in orphans),
        files_examined=len(examiner.issues),
        problems=tuple(_table_level_problems(log)),
        all_versions=all_versions,
        deep=deep,
        orphan_paths=tuple(sorted(p for p, _ in orphans)[:cap]),
    )


# --- pass 1: trace the log ------------------------------------------------------------------


class _Tracer:
    """Replays the retained log forward once, recording effective changes per version."""

    def __init__(self, log: DeltaLog, *, all_checkpoints: bool) -> None:
        self.log = log
        self.trace = _Trace(log.table_root)
        self.commits = {c.version: c for c in log.commits}
        self.checkpoints = {cp.version for cp in log.listing.usable_checkpoints()}
        self.all_checkpoints = all_checkpoints
        self.live: set[FileKey] | None = None
        self.broken_at: int | None = None  # the version whose damage broke the chain

    def run(self) -> _Trace:
        first, last = self.log.earliest_version, self.log.latest_version
        for version in range(first, last + 1):
            commit = self.commits.get(version)
            if self.live is not None and commit is not None and commit.is_complete:
                step = self._apply(commit)
            else:
                step = self._rebase(version, commit, first)
            self._record_cdc(commit)
            self.trace.steps.append(step)
        by_version = {step.version: step for step in self.trace.steps}
        for version, problems in _log_problems_by_version(self.log, self.all_checkpoints).items():
            if version in by_version:
                step = by_version[version]
                step.problems += [p for p in problems if p not in step.problems]
        self.trace.latest_keys = sorted(self.live, key=str) if self.live is not None else None
        return self.trace

    def _apply(self, commit: Commit) -> _Step:
        """Apply a commit to the live set; keep only its net effect (re-adds are no change)."""
        assert self.live is not None
        was_live: dict[FileKey, bool] = {}
        for action in commit.actions:
            if isinstance(action, AddFile):
                key = action.key
                was_live.setdefault(key, key in self.live)
                self.live.add(key)
                self._register(action, key)
            elif isinstance(action, RemoveFile):
                key = action.key
                was_live.setdefault(key, key in self.live)
                self.live.discard(key)
        added = [k for k, was in was_live.items() if not was and k in self.live]
        removed = [k for k, was in was_live.items() if was and k not in self.live]
        return _Step(commit.version, added=added, removed=removed)

    def _rebase(self, version: int, commit: Commit | None, first: int) -> _Step:
        """Start over from a snapshot (the first version, or a checkpoint after a break)."""
        own = _commit_problem(commit)
        if version == first or version in self.checkpoints:
            try:
                snap = self.log.snapshot(version)
            except InspectorError as exc:
                own = own or exc.message
            else:
                self.live, self.broken_at = set(snap.files), None
                for key, add in snap.files.items():
                    self._register(add, key)
                return _Step(
                    version, base=sorted(self.live, key=str), problems=[own] if own else []
                )
        problem = own or self._broken_chain()
        if self.broken_at is None:
            self.broken_at = version
        self.live = None
        return _Step(version, readable=False, problems=[problem])

    def _broken_chain(self) -> str:
        return (
            f"The log cannot be replayed to this version: version {self.broken_at} is unreadable "
            "and no checkpoint after it bridges the gap."
        )

    def _register(self, add: AddFile, key: FileKey) -> None:
        """Note the physical files behind a file key, and the size each must have."""
        if key in self.trace.key_paths:
            return
        refs, root = self.trace.refs, self.trace.root
        data = os.path.normpath(data_file_path(root, add.path))
        refs.setdefault(data, _Ref(key[0], DATA_FILE, add.size, add))
        paths = [data]
        dv = add.deletion_vector
        where = dv.relative_or_absolute_path() if dv is not None else None
        if dv is not None and where is not None:
            path = os.path.normpath(data_file_path(root, where))
            needed = dv.required_file_size
            ref = refs.setdefault(path, _Ref(canonical_path(where), DELETION_VECTOR, needed))
            ref.size = max(ref.size, needed)
            paths.append(path)
        self.trace.key_paths[key] = tuple(paths)

    def _record_cdc(self, commit: Commit | None) -> None:
        """Change-data files are referenced too (only for CDF reads): never orphans."""
        if commit is not None:
            self.trace.other_paths.update(
                os.path.normpath(data_file_path(self.trace.root, c.path)) for c in commit.cdc_files
            )


def _commit_problem(commit: Commit | None) -> str | None:
    if commit is None:
        return "Its commit file is missing from _delta_log."
    if not commit.is_complete:
        return "Its commit file is damaged: " + " ".join(commit.problems)
    return None


def _log_problems_by_version(log: DeltaLog, all_checkpoints: bool) -> dict[int, list[str]]:
    """Checkpoint problems that belong to one version (dangling hint, parts missing, unreadable)."""
    listing = log.listing
    found: dict[int, list[str]] = {}
    last = listing.last_checkpoint
    if last is not None and last.version is not None and last.version not in listing.checkpoints:
        found.setdefault(last.version, []).append(
            "_last_checkpoint names this version's checkpoint, but the checkpoint file is missing "
            "(not replicated yet, or deleted); readers that trust the hint fail or fall back to listing."
        )
    # Parts missing, unreadable, or disagreeing with the commits (a full check verifies every
    # checkpoint against its commits; the fast one only the newest, the one readers start from).
    for version, problems in log.checkpoint_problems(verify_all=all_checkpoints).items():
        found.setdefault(version, []).extend(problems)
    return found


def _table_level_problems(log: DeltaLog) -> list[str]:
    problems = table_problems(log)
    last, usable = log.listing.last_checkpoint, log.listing.usable_checkpoints()
    if (
        last is not None
        and last.version is not None
        and usable
        and usable[0].version > last.version
    ):
        problems.append(
            f"_last_checkpoint names version {last.version}, but a newer checkpoint "
            f"({usable[0].version}) exists; readers find it by listing (harmless, but stale)."
        )
    if last is not None and last.version is not None and last.version > log.latest_version:
        problems.append(
            f"_last_checkpoint names version {last.version}, beyond the newest commit "
            f"({log.latest_version}): commits have not all arrived."
        )
    return problems


def _paths_of(trace: _Trace, keys: Iterable[FileKey]) -> set[str]:
    return {path for key in keys for path in trace.key_paths[key]}


# --- pass 2: examine each distinct file once ------------------------------------------------


class _Examiner:
    """Stats (and in deep mode reads the footer of) each file once, in parallel."""

    def __init__(self, refs: dict[str, _Ref], deep: bool, workers: int, progress: Progress | None):
        self.refs, self.deep, self.workers, self.progress = refs, deep, workers, progress
        self.issues: dict[str, FileIssue | None] = {}

    def run(self, paths: Iterable[str]) -> None:
        todo = sorted(p for p in paths if p not in self.issues)
        chunks = [todo[i : i + _CHUNK] for i in range(0, len(todo), _CHUNK)]
        done = 0
        if self.progress is not None:
            self.progress(0, len(todo))
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for chunk, verdicts in zip(chunks, pool.map(self._examine_chunk, chunks), strict=False):
                self.issues.update(zip(chunk, verdicts, strict=False))
                done += len(chunk)
                if (
                    self.progress is not None
                ):  # called on the caller's thread (Streamlit needs that)
                    self.progress(done, len(todo))

    def _examine_chunk(self, chunk: list[str]) -> list[FileIssue | None]:
        return [_examine(path, self.refs[path], self.deep) for path in chunk]


def _examine(path: str, ref: _Ref, deep: bool) -> FileIssue | None:
    """The verdict for one file, or None when it is usable."""
    try:
        size = os.stat(path).st_size
    except (FileNotFoundError, NotADirectoryError):
        return FileIssue(ref.display, ref.kind, MISSING, ref.size, None)
    except OSError as exc:
        return FileIssue(
            ref.display, ref.kind, UNREADABLE_FILE, ref.size, None, exc.strerror or str(exc)
        )
    if ref.kind == DATA_FILE and size != ref.size:
        return FileIssue(
            ref.display,
            ref.kind,
            SIZE_MISMATCH,
            ref.size,
            size,
            f"{size} bytes on disk, {ref.size} in the log",
        )
    if ref.kind == DELETION_VECTOR and size < ref.size:
        return FileIssue(
            ref.display,
            ref.kind,
            SIZE_MISMATCH,
            ref.size,
            size,
            f"{size} bytes on disk, at least {ref.size} needed",
        )
    if deep and ref.kind == DATA_FILE:
        return _footer_issue(path, ref, size)
    return None


def _footer_issue(path: str, ref: _Ref, size: int) -> FileIssue | None:
    """Deep check: the Parquet footer is readable and its row count matches the stats."""
    try:
        rows = pq.read_metadata(path).num_rows
    except Exception as exc:  # pyarrow raises many types for a damaged file
        return FileIssue(
            ref.display,
            ref.kind,
            UNREADABLE_FILE,
            ref.size,
            size,
            f"Parquet footer unreadable: {exc}",
        )
    expected = ref.add.num_records if ref.add is not None else None
    if expected is not None and rows != expected:
        return FileIssue(
            ref.display,
            ref.kind,
            UNREADABLE_FILE,
            ref.size,
            size,
            f"the footer holds {rows} rows, the log's stats say {expected}",
        )
    return None


# --- pass 3: evaluate every version incrementally -------------------------------------------


class _Tally:
    """Bad files in the live set, by problem, reference-counted (a DV file serves many keys)."""

    def __init__(self, trace: _Trace, issues: dict[str, FileIssue | None]) -> None:
        self.trace, self.issues = trace, issues
        self.reset()

    def reset(self) -> None:
        self.refcount: Counter[str] = Counter()
        # dicts keep insertion order, so a capped list is O(cap) per version
        self.live: dict[str, dict[str, FileIssue]] = {
            MISSING: {},
            SIZE_MISMATCH: {},
            UNREADABLE_FILE: {},
        }

    def change(self, keys: Iterable[FileKey], delta: int) -> None:
        for key in keys:
            for path in self.trace.key_paths[key]:
                issue = self.issues.get(path)
                if issue is None:
                    continue
                self.refcount[path] += delta
                if self.refcount[path] == 0:
                    del self.live[issue.problem][path]
                else:
                    self.live[issue.problem][path] = issue

    def health(self, step: _Step, cap: int) -> VersionHealth:
        missing, sizes, broken = (self.live[p] for p in (MISSING, SIZE_MISMATCH, UNREADABLE_FILE))
        bad = len(missing) + len(sizes) + len(broken)
        return VersionHealth(
            version=step.version,
            status=INCOMPLETE if bad else COMPLETE,
            missing_files=tuple(sorted(i.path for i in islice(missing.values(), cap))),
            size_mismatches=_capped(sizes, cap),
            problems=tuple(step.problems),
            missing_count=len(missing),
            size_mismatch_count=len(sizes),
            unreadable_files=_capped(broken, cap),
            unreadable_count=len(broken),
        )


def _capped(issues: dict[str, FileIssue], cap: int) -> tuple[FileIssue, ...]:
    return tuple(sorted(islice(issues.values(), cap), key=lambda i: i.path))


def _evaluate(
    trace: _Trace, steps: list[_Step], issues: dict[str, FileIssue | None], cap: int
) -> list[VersionHealth]:
    tally, out = _Tally(trace, issues), []
    for step in steps:
        if not step.readable:
            out.append(VersionHealth(step.version, UNREADABLE, problems=tuple(step.problems)))
            continue
        if step.base is not None:
            tally.reset()
            tally.change(step.base, +1)
        tally.change(step.removed, -1)
        tally.change(step.added, +1)
        out.append(tally.health(step, cap))
    return out


# --- orphans --------------------------------------------------------------------------------


def _orphans(trace: _Trace) -> list[tuple[str, int]]:
    """Files under the root that no retained version references: (path relative to root, bytes).

    Hidden and underscore-prefixed names are skipped as VACUUM skips them
    (``_delta_log``, ``_SUCCESS``, ``.crc`` files), except ``_change_data``.
    """
    referenced = set(trace.refs) | trace.other_paths
    found, stack = [], [trace.root]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or (
                entry.name.startswith("_") and entry.name != "_change_data"
            ):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif os.path.normpath(entry.path) not in referenced:
                found.append((os.path.relpath(entry.path, trace.root), _size(entry)))
    return found


def _size(entry: os.DirEntry) -> int:
    try:
        return entry.stat().st_size
    except OSError:  # deleted while we walked
        return 0


# --- presenting -----------------------------------------------------------------------------


def version_ranges(versions: list[int]) -> str:
    """Compact "3..5, 9" from [3, 4, 5, 9]."""
    parts, start = [], None
    for i, v in enumerate(versions):
        start = v if start is None else start
        if i + 1 == len(versions) or versions[i + 1] != v + 1:
            parts.append(str(v) if start == v else f"{start}..{v}")
            start = None
    return ", ".join(parts)


def recovery_reason(report: HealthReport) -> str:
    """The reason recorded with a restore to the last consistent version (audit log, userMetadata)."""
    target, latest = report.last_consistent_version, report.latest
    after = [v.version for v in report.damaged_versions if target is None or v.version > target]
    return (
        f"Recovery to the last consistent version {target}: the health check found version(s) "
        f"{version_ranges(after)} incomplete; the latest version {latest.version} references "
        f"{latest.missing_count} missing and {latest.size_mismatch_count + latest.unreadable_count} "
        f"damaged file(s), which the restore removes from the log."
    )


def restore_command(report: HealthReport) -> str | None:
    """The CLI command that restores to the last consistent version, or None when there is none."""
    target = report.last_consistent_version
    if target is None or report.is_consistent or report.latest.status == UNREADABLE:
        return None
    return (
        f"python -m inspector restore {shlex.quote(report.table_root)} --to-version {target} "
        f"--expect-version {report.latest_version} --reason {shlex.quote(recovery_reason(report))}"
    )


def recovery_advice(report: HealthReport) -> str:
    """What an operator should do next, in one paragraph."""
    target = report.last_consistent_version
    if report.is_consistent:
        return "The latest version is consistent; no recovery is needed."
    if report.latest.status == UNREADABLE:
        return (
            "The log itself is damaged at the latest version, so no restore can be committed on it. "
            "Copy the missing or damaged commit files from the source (or wait for replication "
            "to finish), then run the check again."
        )
    if target is None:
        return (
            "No retained version is complete. Wait for replication to finish or copy the missing "
            "files from the source, then run the check again."
        )
    return (
        f"If replication is still running, wait for it and check again. If the missing files are "
        f"lost, restore to version {target}, the last consistent version: the restore removes the "
        f"missing files from the log and re-adds only files that exist."
    )


def health_record(report: HealthReport) -> dict[str, Any]:
    """The CLI's JSON contract for a report (see docs/json-contracts.md, "check")."""
    return {
        "table": report.table_root,
        "latestVersion": report.latest_version,
        "lastConsistentVersion": report.last_consistent_version,
        "allVersions": report.all_versions,
        "deep": report.deep,
        "versions": [_version_record(v) for v in report.versions],
        "orphanFiles": report.orphan_files,
        "orphanBytes": report.orphan_bytes,
        "filesExamined": report.files_examined,
        "problems": list(report.problems),
    }


def _version_record(v: VersionHealth) -> dict[str, Any]:
    return {
        "version": v.version,
        "status": v.status,
        "missingFiles": list(v.missing_files),
        "missingCount": v.missing_count,
        "sizeMismatches": [_issue_record(i) for i in v.size_mismatches],
        "sizeMismatchCount": v.size_mismatch_count,
        "unreadableFiles": [_issue_record(i) for i in v.unreadable_files],
        "unreadableCount": v.unreadable_count,
        "problems": list(v.problems),
    }


def _issue_record(issue: FileIssue) -> dict[str, Any]:
    return {
        "path": issue.path,
        "kind": issue.kind,
        "expectedSize": issue.expected_size,
        "actualSize": issue.actual_size,
        "detail": issue.detail,
    }
