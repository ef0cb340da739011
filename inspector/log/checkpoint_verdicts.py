"""What a log found about its checkpoints: unusable ones (and why), probed and verified ones.

Verdicts are keyed by :class:`Checkpoint` (its files with size and time): a rewritten
checkpoint is judged again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from inspector.delta.errors import CorruptLog, InspectorError, StorageUnavailable
from inspector.log.index import TableIndex
from inspector.log.listing import Checkpoint, LogListing
from inspector.storage import Storage

if TYPE_CHECKING:  # the replay is imported where it runs: a warm answer replays nothing
    from inspector.log.snapshot import ReplayState

# inspector.log.checkpoint (pyarrow.parquet) is imported where a checkpoint is read: a log
# that reads none (history --limit N of a local table) starts without pyarrow.

#: Replays the commits up to a checkpoint's version from a base below it (None: no base).
Replay: TypeAlias = "Callable[[Checkpoint], tuple[ReplayState, str] | None]"

_CHECKPOINT_HINT = (
    "Delta readers that start from this checkpoint will fail or see a wrong table: "
    "write a new checkpoint with a Delta writer, or restore the file from a backup."
)


class CheckpointVerdicts:
    """The verdicts on one log's checkpoints (not locked: the log calls it under its lock).

    A checkpoint that cannot be read, or lacks its metaData or protocol, is unusable (replay
    starts from an older base); one in a local folder is probed for whole parts; one is
    compared once with what its commits give (``replay``, from an independent base).
    """

    def __init__(self, storage: Storage, replay: Replay, *, index: TableIndex | None) -> None:
        self._storage = storage
        self._index = index  # which keeps the checkpoints read from an object store
        # An object store writes an object whole or not at all: the probe (two reads a
        # checkpoint) is for a local folder's, cut short; a damaged one is found when read.
        self._local = storage.local_path() is not None
        self._replay = replay
        self._bad: dict[Checkpoint, str] = {}  # unusable, with the reason
        self._probed: set[Checkpoint] = set()
        self._verified: dict[Checkpoint, tuple[str, ...]] = {}  # disagreements with commits
        #: While every checkpoint is verified (:meth:`_verify_all`; None otherwise), the last
        #: one read, as read, by what was read (live_only, statistics): the next one's base.
        self._last: dict[tuple[Checkpoint, bool, bool], ReplayState] | None = None

    def is_unusable(self, cp: Checkpoint) -> bool:
        """True when the checkpoint was found unusable (replay skips it); while every
        checkpoint is verified, also when it disagrees with its commits: a newer one is then
        replayed from an older base, so that it is judged by its own commits, not by this one."""
        return cp in self._bad or (self._last is not None and bool(self._verified.get(cp)))

    def unusable(self) -> dict[int, list[str]]:
        """The reasons of the unusable checkpoints found so far, by version."""
        problems: dict[int, list[str]] = {}
        for cp, message in self._bad.items():
            problems.setdefault(cp.version, []).append(message)
        return problems

    def problems(
        self, listing: LogListing, *, verify_all: bool, newest: bool = True
    ) -> dict[int, list[str]]:
        """Every listed checkpoint probed; the newest usable one (or all; none without
        ``newest``) verified; see :meth:`inspector.log.deltalog.DeltaLog.checkpoint_problems`."""
        checkpoints = [cp for cps in listing.checkpoints.values() for cp in cps]
        for cp in checkpoints:
            if cp.complete and cp not in self._probed and cp not in self._bad and self._local:
                self._probe(cp)
        usable = [cp for cp in listing.usable_checkpoints() if cp not in self._bad]
        if verify_all:
            self._verify_all(usable)
        elif newest and usable:
            self._verify(usable[0])
        problems: dict[int, list[str]] = {}
        for cp in sorted(checkpoints, key=lambda cp: cp.complete):  # a version's incomplete first
            if found := self._found(cp):
                problems.setdefault(cp.version, []).extend(found)
        return problems

    def _verify_all(self, usable: list[Checkpoint]) -> None:
        """Verify the ``usable`` checkpoints (newest first) oldest first: each is read once,
        and is the base the next one's commits are replayed from."""
        self._last = {}
        try:
            for cp in reversed(usable):
                self._verify(cp)
        finally:
            self._last = None

    def _found(self, cp: Checkpoint) -> list[str]:
        """A checkpoint's problems found so far: missing parts, unusable, disagreeing."""
        found = [] if cp.complete else [cp.incomplete_reason()]
        found += [self._bad[cp]] if cp in self._bad else []
        return found + list(self._verified.get(cp, ()))

    def load(self, cp: Checkpoint, live_only: bool = False, statistics: bool = True) -> ReplayState:
        """Read a checkpoint (:func:`~inspector.log.checkpoint.read_checkpoint_state`); one that
        is unreadable or lacks metaData/protocol is remembered and a CorruptLog raised."""
        if cp in self._bad:
            raise CorruptLog(self._bad[cp], _CHECKPOINT_HINT)
        if self._last and (kept := self._last.get((cp, live_only, statistics))) is not None:
            return kept.copy()  # as read: the replay that read it changed its own copy
        from inspector.log.checkpoint import read_checkpoint_state

        try:
            state = read_checkpoint_state(
                cp, self._storage, live_only=live_only, statistics=statistics, index=self._index
            )
        except StorageUnavailable:
            raise
        except InspectorError as exc:
            raise self._reject(cp, exc.message) from None
        missing = [
            n for n, v in (("metaData", state.metadata), ("protocol", state.protocol)) if v is None
        ]
        if missing:
            raise self._reject(
                cp, f"it has no {' or '.join(missing)} action, which every checkpoint must carry"
            )
        if self._last is not None:
            self._last = {(cp, live_only, statistics): state}
            return state.copy()
        return state

    def forget_unlisted(self, listing: LogListing) -> None:
        """Drop the verdicts on checkpoints the listing no longer has."""
        listed = {cp for cps in listing.checkpoints.values() for cp in cps}
        for cache in (self._bad, self._verified):
            for cp in [cp for cp in cache if cp not in listed]:
                del cache[cp]
        self._probed &= listed

    def _reject(self, cp: Checkpoint, reason: str) -> CorruptLog:
        message = (
            f"Checkpoint {cp.version} cannot be used: {reason}. Versions from {cp.version} "
            "on are read from an older checkpoint or from the commits instead, where they exist."
        )
        self._bad[cp] = message
        return CorruptLog(message, _CHECKPOINT_HINT)

    def _probe(self, cp: Checkpoint) -> None:
        try:
            from inspector.log.checkpoint import quick_check_checkpoint

            quick_check_checkpoint(cp, self._storage)
        except StorageUnavailable:
            raise
        except InspectorError as exc:
            self._reject(cp, exc.message)
            return
        self._probed.add(cp)

    def _verify(self, cp: Checkpoint) -> None:
        if cp in self._verified or cp in self._bad:
            return
        expected = self._replay(cp)
        try:
            actual = self.load(cp, live_only=True)
        except StorageUnavailable:
            raise
        except InspectorError:
            return
        from inspector.log.checkpoint import checkpoint_disagreements

        found = () if expected is None else checkpoint_disagreements(cp.version, actual, *expected)
        self._verified[cp] = tuple(found)
