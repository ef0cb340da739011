"""Pass 1 of the health check: trace the log once, forward, from the earliest snapshot.

Records each version's effective file changes (or a fresh base after a checkpoint)
and every distinct physical file (data file or deletion-vector file) any retained
version references, with the size it must have.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.actions import AddFile, RemoveFile, canonical_path
from inspector.delta.errors import InspectorError
from inspector.delta.paths import data_file_path
from inspector.files.filecheck import FileRole
from inspector.health.records import HealthProblem, ProblemKind
from inspector.log import columnar
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog, table_problems
from inspector.log.snapshot import FileKey


@dataclass(kw_only=True)
class Ref:
    """One physical file referenced by the log: what size it must have."""

    display: str
    role: FileRole
    size: int
    add: AddFile | None = None  # a data file's add action, for its stats (deep check only)


@dataclass(kw_only=True)
class Step:
    """One version as the trace saw it: a fresh base, or effective changes."""

    version: int
    base: list[FileKey] | None = None
    added: list[FileKey] = field(default_factory=list)
    removed: list[FileKey] = field(default_factory=list)
    problems: list[HealthProblem] = field(default_factory=list)
    readable: bool = True


@dataclass(kw_only=True)
class Trace:
    """Pass 1's result: the steps and every distinct referenced file."""

    root: str
    steps: list[Step] = field(default_factory=list)
    refs: dict[str, Ref] = field(default_factory=dict)
    key_paths: dict[FileKey, tuple[str, ...]] = field(default_factory=dict)
    other_paths: set[str] = field(default_factory=set)
    latest_keys: list[FileKey] | None = None


class Tracer:
    """Replays the retained log forward once, recording effective changes per version."""

    def __init__(self, log: DeltaLog, *, all_checkpoints: bool, deep: bool = False) -> None:
        self.log, self.deep = log, deep
        self.trace = Trace(root=log.table_root)
        self.commits = {c.version: c for c in log.commits}
        self.checkpoints = {cp.version for cp in log.listing.usable_checkpoints()}
        self.all_checkpoints = all_checkpoints
        self.live: set[FileKey] | None = None
        self.broken_at: int | None = None  # the version whose damage broke the chain

    def run(self) -> Trace:
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
        for version, problems in log_problems(self.log, self.all_checkpoints).items():
            if version in by_version:
                step = by_version[version]
                step.problems += [p for p in problems if p not in step.problems]
        self.trace.latest_keys = sorted(self.live, key=str) if self.live is not None else None
        return self.trace

    def _apply(self, commit: Commit) -> Step:
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
        return Step(version=commit.version, added=added, removed=removed)

    def _rebase(self, version: int, commit: Commit | None, first: int) -> Step:
        """Start over from a snapshot (the first version, or a checkpoint after a break)."""
        own = commit_problem(commit)
        if version == first or version in self.checkpoints:
            try:
                snap = self.log.snapshot(version)
            except InspectorError as exc:
                own = own or HealthProblem(
                    kind=ProblemKind.SNAPSHOT_UNREADABLE, message=exc.message
                )
            else:
                self.live, self.broken_at = set(snap.files), None
                if self.deep:  # the footer check compares each file's stats: needs the records
                    for key, add in snap.files.items():
                        self._register(add, key)
                else:
                    self._register_table(snap.files_table)
                return Step(
                    version=version, base=sorted(self.live, key=str), problems=[own] if own else []
                )
        problem = own or HealthProblem(kind=ProblemKind.REPLAY_BROKEN, message=self._broken_chain())
        if self.broken_at is None:
            self.broken_at = version
        self.live = None
        return Step(version=version, readable=False, problems=[problem])

    def _broken_chain(self) -> str:
        return (
            f"The log cannot be replayed to this version: version {self.broken_at} is unreadable "
            "and no checkpoint after it bridges the gap."
        )

    def _register(self, add: AddFile, key: FileKey) -> None:
        """Note the physical files behind a file key, and the size each must have."""
        if key not in self.trace.key_paths:
            self.trace.key_paths[key] = register_add(self.trace.refs, self.trace.root, add)

    def _register_table(self, files: pa.Table) -> None:
        """:meth:`_register` for a snapshot's live files, from its columns (no records)."""
        if files.column("deletionVector").null_count < files.num_rows:
            for add in columnar.records("add", files):
                assert isinstance(add, AddFile)
                self._register(add, add.key)
            return
        refs, key_paths = self.trace.refs, self.trace.key_paths
        for key, data, size in zip(
            columnar.keys(files),
            _local_paths(self.trace.root, files.column("key_path")),
            files.column("size").to_pylist(),
            strict=True,
        ):
            if key not in key_paths:
                refs.setdefault(data, Ref(display=key[0], role=FileRole.DATA_FILE, size=size))
                key_paths[key] = (data,)

    def _record_cdc(self, commit: Commit | None) -> None:
        """Change-data files are referenced too (only for CDF reads): never orphans."""
        if commit is not None:
            self.trace.other_paths.update(
                ref_path(self.trace.root, c.path) for c in commit.cdc_files
            )


def register_add(refs: dict[str, Ref], root: str, add: AddFile) -> tuple[str, ...]:
    """Note in ``refs`` the physical files behind an add (its data file, its deletion-vector
    file) and the size each must have; returns their locations."""
    data = ref_path(root, add.path)
    refs.setdefault(data, Ref(display=add.key[0], role=FileRole.DATA_FILE, size=add.size, add=add))
    paths = [data]
    dv = add.deletion_vector
    where = dv.relative_or_absolute_path() if dv is not None else None
    if dv is not None and where is not None:
        path = ref_path(root, where)
        needed = dv.required_file_size
        ref = refs.setdefault(
            path, Ref(display=canonical_path(where), role=FileRole.DELETION_VECTOR, size=needed)
        )
        ref.size = max(ref.size, needed)
        paths.append(path)
    return tuple(paths)


def ref_path(root: str, log_path: str) -> str:
    """The one spelling of a referenced file's location (the key of :attr:`Trace.refs`).

    A local path is ``normpath``-ed; a URI keeps its ``scheme://`` and normalises the rest.
    """
    located = data_file_path(root, log_path)
    if "://" not in located:
        return os.path.normpath(located)
    scheme, rest = located.split("://", 1)
    return f"{scheme}://{posixpath.normpath(rest)}"


def _local_paths(root: str, canonical: pa.ChunkedArray) -> list[str]:
    """Normalised local paths of canonical log paths (``data_file_path`` + ``normpath``):
    joined as strings; only paths that ``normpath`` would change go through it."""
    paths = canonical.to_pylist()
    odd = pc.match_substring_regex(canonical, r"(^|/)\.\.?(/|$)|//|/$|^/")
    fix = set(pc.indices_nonzero(odd).to_pylist()) if pc.any(odd).as_py() else set()
    prefix = root.rstrip("/") + "/" if "://" in root else root.rstrip(os.sep) + os.sep
    return [ref_path(root, p) if i in fix else prefix + p for i, p in enumerate(paths)]


def commit_problem(commit: Commit | None) -> HealthProblem | None:
    """What is wrong with a version's commit file (missing, damaged), or None."""
    if commit is None:
        return HealthProblem(
            kind=ProblemKind.COMMIT_MISSING, message="Its commit file is missing from _delta_log."
        )
    if not commit.is_complete:
        message = "Its commit file is damaged: " + " ".join(commit.problems)
        return HealthProblem(kind=ProblemKind.COMMIT_DAMAGED, message=message)
    return None


def log_problems_at(log: DeltaLog, version: int) -> list[HealthProblem]:
    """The checkpoint problems of one version, as the fast check reports them: the newest
    checkpoint is compared with its commits only when it is this version's."""
    listing = log.tail if version >= log.tail.from_version else log.listing
    last = listing.last_checkpoint
    if version not in listing.checkpoints and (last is None or last.version != version):
        return []  # nothing of the log belongs to this version: no checkpoint is read
    return log_problems(log, False).get(version, [])


def log_problems(log: DeltaLog, all_checkpoints: bool) -> dict[int, list[HealthProblem]]:
    """Checkpoint problems that belong to one version (dangling hint, parts missing, unreadable)."""
    listing = log.listing
    found: dict[int, list[HealthProblem]] = {}
    last = listing.last_checkpoint
    if last is not None and last.version is not None and last.version not in listing.checkpoints:
        found.setdefault(last.version, []).append(
            _checkpoint_problem(
                "_last_checkpoint names this version's checkpoint, but the checkpoint file is missing "
                "(not replicated yet, or deleted); readers that trust the hint fail or fall back to listing."
            )
        )
    # Parts missing, unreadable, or disagreeing with the commits (a full check verifies every
    # checkpoint against its commits; the fast one only the newest, the one readers start from).
    for version, problems in log.checkpoint_problems(verify_all=all_checkpoints).items():
        found.setdefault(version, []).extend(map(_checkpoint_problem, problems))
    return found


def _checkpoint_problem(message: str) -> HealthProblem:
    return HealthProblem(kind=ProblemKind.CHECKPOINT, message=message)


def table_level_problems(log: DeltaLog, *, whole: bool = True) -> list[str]:
    """Problems of the table rather than of a version; ``whole``: of the whole log folder,
    else only of the listing from the newest checkpoint on (what the fast check read)."""
    listing = log.listing if whole else log.tail
    problems = table_problems(log, whole=whole)
    last, usable = listing.last_checkpoint, listing.usable_checkpoints()
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


def paths_of(trace: Trace, keys: Iterable[FileKey]) -> set[str]:
    return {path for key in keys for path in trace.key_paths[key]}
