"""The whole history kept in the log index, so that a table read before costs its listing.

A whole history (:class:`~inspector.table.history.HistoryPager`, read to its oldest
version) is kept as one result of the table's log index
(:mod:`inspector.log.index.results`): its finished entries, and the identity of every log
file up to its newest version (:func:`~inspector.log.index.identity.files_identity`: each
commit's, checksum's and checkpoint file's size, modification time and ETag; on a local disk
inode and modification time in ns). A later
history uses it only when the listing just made says those files are unchanged:

* all of them, and no newer version: the kept entries are the history;
* all of them, and newer versions after them: only those are computed (from the kept
  entries' end: the file-time chain, the metadata and protocol in force), and only when
  the gaps and checkpoint problems of the kept versions are still what they were.

Anything else (a rewritten or removed commit, a late or rewritten checkpoint, a log cleaned
up or recreated, other settings, another format) computes the history afresh and keeps
that. A catalog-managed table's staged commits are never part of it.

The kept body is a header (the setting, the files' identity, the gaps and checkpoint
problems: one JSON line, checked first) and the entries (decoded only when asked for:
:class:`KeptEntries`). The newest entries are kept apart too (:meth:`HistoryStore.keep_newest`),
under the digest of the whole listing's record they were computed from, for the app's first
screen on a later open: that digest is had from the listing without going through its files. Beside it the CLI may keep the entries' ``--json`` text
(:meth:`HistoryStore.rendered`): the output of its one renderer, written by that renderer
when it printed this very history, kept under the digest of the body it was printed from, so
that a later print of the unchanged history is that text (byte for byte what the renderer
writes for these entries) and needs no work per entry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar, overload

import orjson

import inspector
from inspector.log.commit import FileSummary
from inspector.log.deltalog import DeltaLog
from inspector.log.index.identity import files_identity
from inspector.log.index.results import drop_result, has_result, load_result, save_result
from inspector.log.index.tables import TableIndex
from inspector.log.listing import LogListing
from inspector.settings import Settings
from inspector.table.history_entry import Change, HistoryEntry
from inspector.table.history_time import TimestampSource, VersionTimestamps
from inspector.table.rowrule import RowChange, RowSource

_KIND = "history"
_RENDERED = "historyjson"  # the CLI's --json text of the kept entries
_RENDERED_TEXT = "historytext"  # the CLI's text of the kept entries
_JOINS = {_RENDERED: b",\n  ", _RENDERED_TEXT: b"\n"}  # how the renderer joins elements
_NEWEST = "historynewest"  # the newest entries apart, for the app's first screen
#: Bumped whenever what is kept, a rule the entries follow, or their JSON record changes.
_FORMAT = 5
_SOURCES = {s.value: s for s in TimestampSource}
_ROWS = {s.value: s for s in RowSource}
_CHANGES = {c.value: c for c in Change}
Problems = Mapping[int, Sequence[str]]
_R = TypeVar("_R")


@dataclass(frozen=True, kw_only=True)
class StoredHistory:
    """A kept whole history whose files the listing says are unchanged."""

    top: int  # the newest version it covers
    entries: KeptEntries
    gaps: dict[int, list[str]]  # what the kept versions' gaps and checkpoints were
    checkpoint_problems: dict[int, list[str]]

    def agrees(self, gaps: Problems, checkpoint_problems: Problems) -> bool:
        """Whether the whole log's gaps and checkpoint problems, up to :attr:`top`, are those
        the kept entries were computed with (so that newer versions may be added to them)."""
        return _upto(gaps, self.top) == self.gaps and (
            _upto(checkpoint_problems, self.top) == self.checkpoint_problems
        )


class HistoryStore:
    """One table's kept whole history, for one setting of what the entries depend on.

    Args:
        index: The table's part of the log index.
        tolerance: ``timestamp_tolerance_seconds``.
    """

    def __init__(self, index: TableIndex, *, tolerance: int) -> None:
        self.index = index
        self._setting = [_FORMAT, inspector.__version__, tolerance]
        self.key: bytes | None = None  # the digest of the body last loaded or saved
        self.record: str | None = None  # that body's whole listing's record digest

    @classmethod
    def of(cls, log: DeltaLog, settings: Settings) -> HistoryStore | None:
        """The store of a log's whole history, or None when the index is off (a whole history
        is kept for a table on a local disk too: it is one file, read without pyarrow)."""
        index = log.index
        if index is None:
            return None
        return cls(index, tolerance=settings.timestamp_tolerance_seconds)

    def kept(self) -> bool:
        """Whether a history is kept (looked at before listing the whole log)."""
        return has_result(self.index, _KIND)

    def load(self, listing: LogListing) -> StoredHistory | None:
        """The kept history when its files are all in ``listing``, unchanged (else None;
        a damaged one is removed)."""
        found = load_result(self.index, _KIND, parts=2)
        if found is None:
            return None
        try:
            head, encoded = found.parts
            kept = orjson.loads(head)
            if kept["setting"] != self._setting:
                return None
            top = kept["top"]
            if kept["files"] != files_identity(listing, upto=top):
                return None
            stored = StoredHistory(
                top=top,
                entries=KeptEntries(encoded, on_damage=lambda: drop_result(self.index, _KIND)),
                gaps={int(v): p for v, p in kept["gaps"]},
                checkpoint_problems={int(v): p for v, p in kept["checkpoints"]},
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            drop_result(self.index, _KIND)  # not what this code writes: computed afresh
            return None
        self.key, self.record = found.key, listing.record
        return stored

    def save(
        self,
        listing: LogListing,
        entries: Sequence[HistoryEntry],
        gaps: Problems,
        checkpoint_problems: Problems,
    ) -> HistoryStore | None:
        """Keep a whole history computed from ``listing`` (not a staged commit's).

        Returns:
            This store when the history is kept (then :meth:`keep_rendered` keeps its JSON).
        """
        if not entries:
            return None
        top = entries[-1].version
        files = files_identity(listing, upto=top)
        if files is None:  # a staged commit is not immutable: never kept
            return None
        head = {
            "setting": self._setting,
            "top": top,
            "files": files,
            "gaps": sorted(_upto(gaps, top).items()),
            "checkpoints": sorted(_upto(checkpoint_problems, top).items()),
        }
        try:
            encoded = orjson.dumps([_encode(e) for e in entries], default=dict)
        except TypeError:  # a value JSON cannot hold (an integer past 64 bits): not kept
            return None
        self.key = save_result(self.index, _KIND, orjson.dumps(head), encoded)
        self.record = listing.record
        return self

    def rendered(self, *, text: bool = False) -> memoryview | None:
        """The CLI's ``--json`` text (UTF-8) of the kept entries, or its plain ``text``
        (:meth:`keep_rendered`), when it was written for the body last loaded or saved (else
        None)."""
        if self.key is None:
            return None
        found = load_result(self.index, _RENDERED_TEXT if text else _RENDERED, parts=2)
        if found is None:
            return None
        key, rendered = found.parts
        if key.tobytes() != self.key:
            return None  # printed from another history (one since recomputed)
        return rendered  # UTF-8, whole: its digest matched

    def keep_rendered(self, elements: Sequence[bytes], *, text: bool = False) -> None:
        """Keep the ``--json`` text (or the plain ``text``) the CLI's renderer wrote for the
        kept entries (those of the body last loaded or saved), its ``elements`` (the array's
        or the lines, UTF-8): a copy of that one renderer's output, not a second one."""
        kind = _RENDERED_TEXT if text else _RENDERED
        if self.key is not None and elements:
            chunks = [_JOINS[kind]] * (2 * len(elements) - 1)
            chunks[::2] = elements  # written as they are, not joined (tens of MB)
            save_result(self.index, kind, self.key, chunks)

    def keep_newest(self, entries: Sequence[HistoryEntry]) -> None:
        """Keep the newest ``entries`` of the history last loaded or saved apart, under the
        record of the whole listing it was computed from (:attr:`record`): a later first
        screen decodes these alone once that listing is the log's still (:meth:`newest`)."""
        if self.record is None or not entries:
            return
        head = [self._setting, self.record, entries[-1].version]
        try:
            encoded = orjson.dumps([_encode(e) for e in entries], default=dict)
        except TypeError:  # as :meth:`save`
            return
        save_result(self.index, _NEWEST, orjson.dumps(head), encoded)

    def newest(self, record: str, top: int) -> tuple[HistoryEntry, ...] | None:
        """The newest entries kept apart (:meth:`keep_newest`), oldest first, when they are
        those of the whole history of the listing whose record is ``record`` (its
        :attr:`~inspector.log.listing.LogListing.record`) up to ``top`` (else None)."""
        found = load_result(self.index, _NEWEST, parts=2)
        if found is None:
            return None
        try:
            head, encoded = found.parts
            if orjson.loads(head) != [self._setting, record, top]:
                return None
            return tuple(_decode(e) for e in orjson.loads(encoded))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            drop_result(self.index, _NEWEST)  # not what this code writes
            return None


class KeptEntries(Sequence[HistoryEntry]):
    """A kept history's entries, decoded when first asked for: a print of the kept ``--json``
    text (:meth:`HistoryStore.rendered`) never needs them.

    Args:
        encoded: The entries as :func:`_encode` kept them (a JSON array).
        on_damage: Called when they cannot be decoded (the kept file is then dropped).
    """

    def __init__(self, encoded: bytes | memoryview, *, on_damage: Any) -> None:
        self._encoded, self._on_damage = encoded, on_damage
        self._entries: tuple[HistoryEntry, ...] | None = None

    def decoded(self) -> tuple[HistoryEntry, ...]:
        """The entries, oldest first (decoded once).

        Raises:
            ValueError: The kept entries are not what this code writes (the file is dropped:
                the digest matched, so only a writer of another format could have made it).
        """
        if self._entries is None:
            try:
                self._entries = tuple(_decode(e) for e in orjson.loads(self._encoded))
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
                self._on_damage()
                raise ValueError("the kept history cannot be decoded") from exc
        return self._entries

    @overload
    def __getitem__(self, i: int) -> HistoryEntry: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[HistoryEntry]: ...
    def __getitem__(self, i: int | slice) -> HistoryEntry | Sequence[HistoryEntry]:
        return self.decoded()[i]

    def __len__(self) -> int:
        return len(self.decoded())

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self.decoded())


def _upto(problems: Problems, top: int) -> dict[int, list[str]]:
    return {v: list(p) for v, p in problems.items() if v <= top and p}


def _encode(e: HistoryEntry) -> list[Any]:
    t, f, r = e.timestamps, e.files, e.rows
    return [
        e.version,
        [t.commit_info, t.in_commit, t.file_modification, t.history, t.source.value],
        e.operation,
        e.operation_parameters,
        e.operation_metrics,
        [e.user, e.engine_info, e.read_version, e.isolation_level, e.is_blind_append],
        e.user_metadata,
        [
            f.add_actions,
            f.remove_actions,
            f.deletion_vector_updates,
            f.num_added_files,
            f.num_removed_files,
            f.added_bytes,
            f.removed_bytes,
            f.added_records,
            f.removed_records,
        ],
        [r.added, r.removed, r.updated, r.net, r.source.value, r.exact, r.note, r.commits],
        [e.changes_metadata, e.changes_protocol],
        e.problems,
        [c.value for c in e.changes],
        e.staged,
    ]


def _decode(k: list[Any]) -> HistoryEntry:
    """An entry kept by :func:`_encode`. Built as :func:`dataclasses.replace` builds a copy
    minus the checks of ``__init__`` (none of these records has a ``__post_init__``): the
    values are those an entry held, and this is half of a warm history's time."""
    version, t, op, params, metrics, who, user_metadata, f, r, own, problems, changes, staged = k
    t[4], r[4] = _SOURCES[t[4]], _ROWS[r[4]]
    return _record(
        HistoryEntry,
        _ENTRY,
        (
            version,
            _record(VersionTimestamps, _TIMES, t),
            op,
            params,
            metrics,
            *who,
            user_metadata,
            _record(FileSummary, _FILES, f),
            _record(RowChange, _ROW_FIELDS, r),
            *own,
            tuple(problems),
            tuple(_CHANGES[c] for c in changes),
            staged,
        ),
    )


def _record(cls: type[_R], names: tuple[str, ...], values: Sequence[Any]) -> _R:
    made = object.__new__(cls)
    made.__dict__.update(zip(names, values, strict=True))
    return made


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


_ENTRY, _TIMES = _names(HistoryEntry), _names(VersionTimestamps)
_FILES, _ROW_FIELDS = _names(FileSummary), _names(RowChange)
