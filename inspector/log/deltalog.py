"""``DeltaLog``: a table's transaction log, listed, parsed, cached and replayed.

Opening a log lists from the ``_last_checkpoint`` checkpoint on; the whole folder is listed
only for older versions (:attr:`DeltaLog.listing`, :mod:`inspector.log.relist`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from inspector.delta.errors import CorruptLog, InspectorError, StorageUnavailable, VersionNotFound
from inspector.delta.text import version_ranges
from inspector.log.checkpoint_verdicts import CheckpointVerdicts
from inspector.log.index import Fetched, LogIndex, TableIndex, fetch_files, read_files
from inspector.log.listing import LogFile, LogListing
from inspector.log.relist import LogLister
from inspector.storage import LocalStorage, ObjectMeta, Storage, open_storage

if TYPE_CHECKING:  # parsing and replay are imported where they run: a warm answer (detail
    from inspector.log.commit import Commit  # from the log index) does neither
    from inspector.log.snapshot import ReplayState, Snapshot

_SNAPSHOT_CACHE_SIZE = 16
_Base: TypeAlias = "tuple[int, Callable[..., tuple[ReplayState, str]]]"
Index = LogIndex | None


class DeltaLog:
    """The transaction log of one table. Thread-safe; shared by the app's sessions.

    Use :meth:`open` to create one (it raises :class:`~inspector.delta.errors.NotADeltaTable`
    for a folder that is not a table). ``storage`` defaults to a local folder at
    ``table_root``; ``index`` is the log index its commit files are kept in (None: none).
    """

    def __init__(self, table_root: str, storage: Storage | None = None, *, index: Index = None):
        self.table_root = table_root
        self.storage = storage if storage is not None else LocalStorage(table_root)
        self.index: TableIndex | None = None if index is None else index.for_table(table_root)
        self.lister = LogLister(self.storage, self.index)
        self._lock = threading.RLock()
        self._commits: dict[int, Commit] = {}
        self._snapshots: OrderedDict[int, Snapshot] = OrderedDict()
        self._checkpoints = CheckpointVerdicts(
            self.storage,
            lambda cp: self._replay_state(cp.version, before=cp.version - 1, live_only=True),
            index=self.index,
        )
        self._tail: LogListing | None = None  # from the newest checkpoint on (or whole)
        self._listing: LogListing | None = None  # the whole folder, listed when first needed
        self._whole: LogListing | None = None  # the last whole listing made
        self._staged: list[ObjectMeta] | None = None
        self.generation = 0  # bumps whenever refresh finds a change

    @classmethod
    def open(
        cls, location: str, *, storage_options: Mapping[str, str] | None = None, index: Index = None
    ) -> DeltaLog:
        """Open a table by a typed location (:func:`inspector.storage.parse_location`), with
        storage options under delta-rs's names, given explicitly.

        Raises:
            NotADeltaTable, StorageUnavailable: No readable Delta log; the store unreachable.
        """
        storage = open_storage(location, options=storage_options)
        log = cls(storage.root, storage, index=index)
        log.refresh()
        return log

    def refresh(self) -> bool:
        """Re-list the log from its newest checkpoint on; True when anything changed there.
        A parsed commit is kept while its file is unchanged (older ones: unless the log changed)."""
        with self._lock:
            tail = self.lister.tail()
            changed = tail != self._tail
            for v, parsed in list(self._commits.items()):
                if (v >= tail.from_version or changed) and tail.commits.get(v) != parsed.file:
                    del self._commits[v]
            if changed:
                self._snapshots.clear()
                self._checkpoints.forget_unlisted(tail)
                self.generation += 1
            if changed or self.lister.staged is not None:  # an object store's: at each refresh
                self._staged = None
            self._tail, self._listing = tail, (tail if tail.is_whole else None)
            return changed

    @property
    def tail(self) -> LogListing:
        """The listing from the newest checkpoint on (the whole folder when there is no hint)."""
        assert self._tail is not None, "call refresh() first"
        return self._tail

    @property
    def listing(self) -> LogListing:
        """The listing of the whole ``_delta_log`` (listed on first use after a refresh)."""
        with self._lock:
            if self._listing is None:
                listing = self.lister.whole(self.tail.last_checkpoint)
                if self._whole is not None and listing != self._whole:
                    self.generation += 1  # an older file came or went (log cleanup, damage)
                self._listing = self._whole = listing
            return self._listing

    def whole_key(self) -> str | None:
        """:attr:`listing`'s ``record``, without classifying its files (None: no record)."""
        with self._lock:
            return self._listing.record if self._listing is not None else self.lister.whole_key()

    @property
    def whole_listing(self) -> LogListing | None:
        """The whole folder's listing when one was made since the last refresh (else None)."""
        return self._listing

    @property
    def staged_files(self) -> list[ObjectMeta]:
        """Staged commit files: each refresh's on an object store, else listed once per change."""
        with self._lock:
            if self._staged is None:
                self._staged = self.lister.staged_files()
            return self._staged

    def listing_at(self, version: int) -> LogListing:
        """The listing that holds this version: the tail from its first version on, else the whole."""
        tail = self.tail
        return tail if version >= tail.from_version else self.listing

    def commit_file(self, version: int) -> LogFile | None:
        """The listed commit file of a version, from the newest listing that covers it."""
        return self.listing_at(version).commits.get(version)

    @property
    def commits(self) -> list[Commit]:
        """Every parsed commit, ascending by version (reads the whole log)."""
        return self.read_commits(sorted(self.listing.commits))

    def read_commits(self, versions: list[int]) -> list[Commit]:
        """Listed versions' parsed commits (none for one without a commit file), cached."""
        with self._lock:
            listed = [v for v in versions if self.commit_file(v) is not None]
            todo = [v for v in listed if v not in self._commits]
            self._commits.update((c.version, c) for c in self.stream_commits(todo))
            return [self._commits[v] for v in listed]

    def stream_commits(self, versions: list[int], chunk: int = 1024) -> Iterator[Commit]:
        """Listed versions' parsed commits in order, a slice at a time (uncached ones unkept)."""
        from inspector.log.commit import parse_commit

        listed = [(v, f) for v in versions if (f := self.commit_file(v)) is not None]
        for start in range(0, len(listed), chunk):
            part = listed[start : start + chunk]
            todo = [(v, f) for v, f in part if v not in self._commits]
            contents = self.fetch_commits([f for _, f in todo])
            fresh = {v: parse_commit(v, f, d) for (v, f), d in zip(todo, contents, strict=True)}
            for v, _ in part:
                yield self._commits.get(v) or fresh[v]

    def read_commit_files(self, files: Sequence[LogFile]) -> list[bytes | OSError]:
        """Listed commit files' contents (or errors), through the log index if any."""
        return read_files(self.index, self.storage, files)

    def fetch_commits(self, files: Sequence[LogFile]) -> list[Fetched]:
        """As :meth:`read_commit_files`; a big commit the index holds parsed comes parsed."""
        return fetch_files(self.index, self.storage, files)

    def cached_commit(self, version: int) -> Commit | None:
        """The parsed commit of a version when the log holds it already (nothing is read)."""
        return self._commits.get(version)

    @property
    def latest_version(self) -> int:
        """The newest version with a commit file or a complete checkpoint."""
        tail = self.tail
        return max([*tail.commits, *(cp.version for cp in tail.usable_checkpoints())])

    @property
    def earliest_version(self) -> int:
        """The oldest version whose state can be reconstructed (0, or the oldest usable checkpoint)."""
        if 0 in self.listing.commits:
            return 0
        cps = [cp.version for cp in self.listing.usable_checkpoints()]
        return min(cps) if cps else min(self.listing.commits)

    def commit(self, version: int) -> Commit:
        """A version's commit; VersionNotFound without a commit file (expired, never written)."""
        if self.commit_file(version) is None:
            if version in self.listing.checkpoints:
                raise VersionNotFound(
                    f"Version {version} has no commit file: only its checkpoint remains "
                    "(the commit expired by log retention or was not copied), so what that "
                    "commit changed is unknown.",
                    "Its state can still be read (e.g. its files); pick another version "
                    "to see a commit's changes.",
                )
            raise self._version_not_found(version)
        return self.read_commits([version])[0]

    def commit_text(self, version: int, head: int | None = None) -> str:
        """The raw text of a commit file, for display; of one of ``head`` bytes or more, only
        the whole lines in its first ``head`` bytes (CorruptLog: gone since it was listed)."""
        try:
            file = self.commit(version).file
            if head is None or file.size < head:
                return self.storage.read(file.path).decode("utf-8", "replace")
            data = self.storage.read_range(file.path, 0, head)
            return data[: data.rfind(b"\n") + 1].decode("utf-8", "replace")
        except OSError as exc:
            raise CorruptLog(
                f"The commit file of version {version} cannot be read any more ({exc.strerror}).",
                "Someone changed the log since it was opened: refresh the table.",
            ) from None

    def replay_problems(self) -> dict[int, list[str]]:
        """Problems found so far while replaying (unusable checkpoints), by version."""
        with self._lock:
            return self._checkpoints.unusable()

    def checkpoint_problems(
        self, *, verify_all: bool = False, newest: bool = True
    ) -> dict[int, list[str]]:
        """Problems with the table's checkpoints in plain language, by checkpoint version: each
        is probed for whole parts, and the newest usable one (none without ``newest``), or every
        one with ``verify_all``, compared with its commits replayed from an independent base."""
        with self._lock:
            return self._checkpoints.problems(self.listing, verify_all=verify_all, newest=newest)

    def snapshot(self, version: int | None = None, *, statistics: bool = True) -> Snapshot:
        """Reconstruct the table state at ``version`` (default: the latest) from the newest
        usable base at or below it (a cached snapshot, a checkpoint, or the empty table);
        an unreadable checkpoint is recorded and an older base tried. ``statistics=False``
        leaves a checkpoint's adds' statistics unread; such a snapshot is not cached.

        Raises:
            VersionNotFound: If the version is outside the log.
            CorruptLog: If the log cannot be replayed to the version.
        """
        with self._lock:
            version = self.latest_version if version is None else version
            if version in self._snapshots:
                self._snapshots.move_to_end(version)
                return self._snapshots[version]
            if not statistics:
                return self._replay(version, statistics=False)
            snap = self._replay(version)
            self._snapshots[version] = snap
            while len(self._snapshots) > _SNAPSHOT_CACHE_SIZE:
                self._snapshots.popitem(last=False)
            return snap

    def _replay(self, version: int, *, statistics: bool = True) -> Snapshot:
        if version < 0 or version > self.latest_version:
            raise self._version_not_found(version)
        replayed = self._replay_state(version, statistics=statistics)
        if replayed is None:
            raise self._unreachable(version)
        state, origin = replayed
        return state.freeze(self.table_root, version, origin, self.storage)

    def _replay_state(
        self,
        version: int,
        before: int | None = None,
        *,
        live_only: bool = False,
        statistics: bool = True,
    ) -> tuple[ReplayState, str] | None:
        """Replay to ``version`` from the newest usable base at or below ``before`` (default:
        ``version``; below a checkpoint to check it); ``live_only`` as for the checkpoints read."""
        from inspector.log.snapshot import describe_replay

        parts = (live_only, statistics)
        for base_version, load in self._bases(version if before is None else before, parts):
            versions = list(range(base_version + 1, version + 1))  # read together (one fetch)
            if not all(self.commit_file(v) is not None for v in versions):
                continue
            commits = self.read_commits(versions)
            if not all(c.is_complete for c in commits):
                continue
            try:
                state, origin = load()
            except StorageUnavailable:
                raise  # the store, not the checkpoint, is at fault
            except InspectorError:
                continue  # recorded as an unusable checkpoint; try an older base
            for commit in commits:
                commit.apply_to(state)
            return state, describe_replay(origin, base_version, version)
        return None

    def _bases(self, version: int, parts: tuple[bool, bool]) -> Iterator[_Base]:
        """Candidate replay bases at or below ``version``, newest first: (base version, loader).

        Those the listing from the newest checkpoint offers come first; the whole folder is
        listed only when none of them serves (an older version, an unusable checkpoint).
        """
        tail, first = self.tail, self.tail.from_version
        snaps = [(v, s) for v, s in self._snapshots.items() if v <= version]
        # A cached snapshot older than the tail competes with the older checkpoints (offered
        # first, a cached version 0 made every checkpoint's check replay the whole log).
        yield from self._sorted_bases(version, [p for p in snaps if p[0] >= first], tail, parts)
        if not tail.is_whole:
            older = [p for p in snaps if p[0] < first]
            yield from self._sorted_bases(min(version, first - 1), older, self.listing, parts)

    def _sorted_bases(
        self,
        version: int,
        snaps: list[tuple[int, Snapshot]],
        listing: LogListing,
        parts: tuple[bool, bool],  # (live_only, statistics), as the checkpoints are read
    ) -> list[_Base]:
        from inspector.log.snapshot import ReplayState

        candidates: list[tuple[int, int, Callable[..., tuple[ReplayState, str]]]] = []
        for v, snap in snaps:
            candidates.append((v, 0, lambda s=snap: (ReplayState.from_snapshot(s), "snapshot")))
        for cp in listing.usable_checkpoints():
            if cp.version <= version and not self._checkpoints.is_unusable(cp):
                load = lambda c=cp: (self._checkpoints.load(c, *parts), "checkpoint")  # noqa: E731
                candidates.append((cp.version, 1, load))
        if 0 in listing.commits:
            candidates.append((-1, 2, lambda: (ReplayState(), "empty")))
        candidates.sort(key=lambda c: (-c[0], c[1]))
        return [(v, loader) for v, _, loader in candidates]

    def _version_not_found(self, version: int) -> VersionNotFound:
        earliest, latest = self.earliest_version, self.latest_version
        if 0 <= version < earliest:
            return VersionNotFound(
                f"Version {version} has expired from the log (log retention); "
                f"the earliest version that can be read is {earliest}.",
                f"Pick a version between {earliest} and {latest}.",
            )
        return VersionNotFound.not_in_log(version, earliest, latest)

    def _unreachable(self, version: int) -> InspectorError:
        """A version in the log that no base reaches: commit files missing, truncated or
        corrupt, or the checkpoints that could bridge them unusable."""
        if version < self.earliest_version:
            return self._version_not_found(version)
        span, listed = range(self.earliest_version, version + 1), self.listing.commits
        gaps = [v for v in span if v not in listed]
        broken = [c for c in self.read_commits(list(span)) if not c.is_complete]
        reasons = []
        if gaps:
            reasons.append(f"commit files are missing for versions {version_ranges(gaps)}")
        if broken:
            first = broken[0]
            are = "commit {} is" if len(broken) == 1 else "commits {} are"
            reasons.append(
                f"{are.format(version_ranges(c.version for c in broken))} truncated or corrupt "
                f"({first.file.name}: {first.problems[0].rstrip('.')})"
            )
        if self._checkpoints.unusable():
            reasons.append("the checkpoints that could bridge this cannot be used")
        return CorruptLog(
            f"Version {version} cannot be reconstructed: {'; '.join(reasons) or 'no usable base'}.",
            "Pick a version before the damage or after a readable checkpoint, "
            "or run `python -m inspector check` to find the last consistent version.",
        )


def table_problems(log: DeltaLog, *, whole: bool = True) -> list[str]:
    """Problems that belong to the table rather than to one version, in plain language: an
    unreadable or dangling ``_last_checkpoint``, incomplete multi-part checkpoints, staged
    commits only a catalog can ratify; of the whole folder, or (not ``whole``) from the
    newest checkpoint on, what a page of history or a latest snapshot read."""
    listing = log.listing if whole else log.tail
    problems: list[str] = []
    last = listing.last_checkpoint
    if last is not None and last.problem:
        problems.append(last.problem)
    elif last is not None and last.version not in listing.checkpoints:
        problems.append(
            f"_last_checkpoint names version {last.version}, which has no checkpoint "
            "file; the log folder was listed instead."
        )
    for cps in listing.checkpoints.values():
        problems += [
            f"The multi-part checkpoint of version {cp.version} is missing parts; it is ignored."
            for cp in cps
            if not cp.complete
        ]
    if staged_commits := len(log.staged_files):
        problems.append(
            f"{staged_commits} staged commit file(s) in _delta_log/_staged_commits: only "
            "the table's catalog decides which become versions (those newer than the "
            "published log are listed as staged commits)."
        )
    return problems
