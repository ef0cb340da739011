"""The log index's folder and one table's part of it: look commits up, fill, compact, evict.

:class:`LogIndex` is the whole cache folder (its size limit, what it holds, clearing it);
:class:`TableIndex` one table location's subfolder, through which
:class:`~inspector.log.deltalog.DeltaLog` reads its commit files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

from inspector.log import text
from inspector.log.bigcommit import COLUMNAR_FROM, other_actions
from inspector.log.index import segments as seg
from inspector.log.index.usage import MANIFEST as _MANIFEST
from inspector.log.index.usage import folder_size, last_used, touch
from inspector.log.listing import COMMIT_FILE, LogFile
from inspector.log.staged import STAGED_DIR
from inspector.settings import Settings
from inspector.storage import Storage

if TYPE_CHECKING:  # the parser is imported where a commit is parsed (a kept answer: none)
    from inspector.log.commit import Commit
_HELD = 2  # segments a table keeps read in memory (a history reads one slice at a time)
#: A read from a local disk of fewer commit files than LOCAL_FROM and fewer bytes than
#: LOCAL_BYTES skips the index. Small commits are not worth keeping there: reading 20,000
#: of them from segments cost what reading the files does (1.7-1.8x deltalake's warm full
#: history, docs/log-index.md) and filling 4-13%; a big commit is (a 122 MB commit held
#: parsed is not parsed again). A whole history is kept whole for every table
#: (inspector.table.history_store): a second one costs its listing. Tests lower it to 1.
LOCAL_FROM = sys.maxsize
LOCAL_BYTES = 16 << 20
#: A commit file as the index gives it: its bytes (or the error reading them), or, for a
#: big commit, parsed (:meth:`TableIndex.fetch`).
Fetched: TypeAlias = "bytes | OSError | Commit"
_SMALL = 256  # segments with fewer commits than this are merged once there are _MERGE_AT
_MERGE_AT = 8
_SMALL_BYTES = 1 << 20  # a segment this big (a big commit held parsed) stays on its own
_TABLE_FOLDER = re.compile(r"[0-9a-f]{32}")  # a table's subfolder: its location's digest


@dataclass(frozen=True, kw_only=True)
class CachedTable:
    """What the index holds of one table location (for the app's and an operator's view)."""

    location: str
    table_id: str | None
    commits: int
    size: int
    last_used: float


def open_index(settings: Settings) -> LogIndex | None:
    """The log index the settings ask for, or None when it is switched off."""
    if not settings.log_index:
        return None
    return LogIndex(settings.log_index_folder, max_bytes=settings.log_index_max_mb * 1024 * 1024)


class LogIndex:
    """The cache folder: one subfolder per table location, bounded by ``max_bytes``.

    Args:
        folder: The cache folder; created owner-only (``0700``) on the first write.
        max_bytes: When the folder grows past this, the least recently used tables go.
    """

    def __init__(self, folder: str, *, max_bytes: int) -> None:
        self.folder = os.path.abspath(os.path.expanduser(folder))
        self.max_bytes = max_bytes

    def for_table(self, root: str) -> TableIndex:
        """The part of the index that holds the table at ``root`` (a path or a URI)."""
        name = blake2b(root.encode(), digest_size=16).hexdigest()
        return TableIndex(self, os.path.join(self.folder, name), root)

    def usable(self) -> bool:
        """Make the folder (``0700``) when missing; False when it is not this user's alone
        and cannot be made so (then nothing is written or read)."""
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            info = os.stat(self.folder)
            if info.st_uid != os.getuid():
                return False
            if info.st_mode & 0o077:
                os.chmod(self.folder, 0o700)
            return True
        except OSError:
            return False

    def tables(self) -> list[CachedTable]:
        """What the index holds, most recently used first."""
        found = [t for name in self._table_folders() if (t := self._describe(name)) is not None]
        return sorted(found, key=lambda t: -t.last_used)

    def size(self) -> int:
        """Bytes the index takes on disk."""
        return sum(folder_size(os.path.join(self.folder, n)) for n in self._table_folders())

    def clear(self) -> None:
        """Remove everything the index holds (the folder itself stays)."""
        for name in self._table_folders():
            shutil.rmtree(os.path.join(self.folder, name), ignore_errors=True)

    def evict(self, keep: str) -> None:
        """Remove least recently used tables until the index fits ``max_bytes`` (``keep``,
        the table just filled, goes last)."""
        folders = [os.path.join(self.folder, n) for n in self._table_folders()]
        sizes = {f: folder_size(f) for f in folders}
        total = sum(sizes.values())
        for folder in sorted(folders, key=lambda f: (f == keep, last_used(f))):
            if total <= self.max_bytes:
                return
            shutil.rmtree(folder, ignore_errors=True)
            total -= sizes[folder]

    def _table_folders(self) -> list[str]:
        return seg.names_in(self.folder, _TABLE_FOLDER)

    def _describe(self, name: str) -> CachedTable | None:
        folder = os.path.join(self.folder, name)
        manifest = _read_manifest(folder)
        if manifest is None:
            return None
        found = seg.segments(folder)
        return CachedTable(
            location=str(manifest.get("location", "?")),
            table_id=manifest.get("tableId"),
            commits=sum(s.count for s in found),
            size=folder_size(folder),
            last_used=last_used(folder),
        )


class TableIndex:
    """One table location's commit files in the index. Thread-safe.

    A commit is served only when the listing's size, modification time and ETag of its file
    equal the cached ones; anything else is read from the store and added.
    """

    def __init__(self, index: LogIndex, folder: str, root: str) -> None:
        self.index = index
        self.folder = folder
        self.root = root
        self._held: OrderedDict[str, dict[int, list[seg.Entry]]] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, storage: Storage, files: Sequence[LogFile]) -> list[bytes | OSError]:
        """The contents of listed commit files, in order: cached ones from the index, the
        rest read together from ``storage`` and added to the index (a big commit's bytes
        are not kept: the index holds it parsed, :meth:`fetch`)."""
        found = self.fetch(storage, files, parsed=False)
        return [f for f in found if isinstance(f, bytes | OSError)]  # a Commit only if parsed

    def fetch(
        self, storage: Storage, files: Sequence[LogFile], *, parsed: bool = True
    ) -> list[Fetched]:
        """Listed commit files, in order: a big commit the index holds parsed (or that was
        just read and parsed) as its :class:`~inspector.log.commit.Commit`, the others as
        their contents (or the error reading them), read from ``storage`` unless cached.

        Args:
            storage: The table's storage.
            files: Listed commit files.
            parsed: Give commits held parsed as Commits; False reads their bytes again.
        """
        if not serves(storage, len(files), sum(f.size for f in files)):
            return list(storage.read_many([f.path for f in files]))
        with self._lock:
            found = self._lookup(files, parsed=parsed)
        todo = [f for f in files if f.name not in found]
        raw = storage.read_many([f.path for f in todo]) if todo else []
        fresh: list[Fetched] = list(raw)
        if parsed:
            fresh = [_parse_big(f, d) for f, d in zip(todo, raw, strict=True)]
        with self._lock:
            self._fill(
                [_entry(f, p, r, parsed=parsed) for f, p, r in zip(todo, fresh, raw, strict=False)]
            )
        found.update((f.name, d) for f, d in zip(todo, fresh, strict=True))
        return [found[f.name] for f in files]

    def note_location(self) -> None:
        """Record the table's location in its subfolder when not yet recorded (the folder made)."""
        if _read_manifest(self.folder) is None:
            body = {"location": _shown_location(self.root), "tableId": None}
            seg.write_atomically(os.path.join(self.folder, _MANIFEST), json.dumps(body).encode())

    def _lookup(self, files: Sequence[LogFile], *, parsed: bool) -> dict[str, Fetched]:
        wanted = [(int(f.name[:20]), f) for f in files if COMMIT_FILE.match(f.name)]
        # Another user's folder is never read: they could have planted what it serves.
        if not wanted or not os.path.isdir(self.folder) or not self.index.usable():
            return {}
        found: dict[str, Fetched] = {}
        every = seg.segments(self.folder)
        for version, file in wanted:
            for segment in (s for s in every if s.first <= version <= s.last):
                hit = self._hit(segment, version, file, parsed=parsed)
                if hit is not None:
                    found[file.name] = hit
                    break
        if found:
            touch(self.folder)
        return found

    def _hit(
        self, segment: seg.Segment, version: int, file: LogFile, *, parsed: bool
    ) -> Fetched | None:
        """What a segment holds of this very file (None: nothing, or parsed when bytes are
        asked for)."""
        for entry in self._entries(segment).get(version, ()):
            if not entry.fits(file):
                continue
            if entry.data is not None:
                return entry.data
            if entry.files is not None and parsed:  # a big commit: the parser is imported
                from inspector.log.commit import Commit

                return Commit(
                    version=version,
                    file=file,
                    parsed=other_actions(entry.files.other_text),
                    columns=entry.files,
                )
        return None

    def _entries(self, segment: seg.Segment) -> dict[int, list[seg.Entry]]:
        held = self._held.get(segment.name)
        if held is None:
            held = seg.read_segment(self.folder, segment) or {}
            self._held[segment.name] = held
            while len(self._held) > _HELD:
                self._held.popitem(last=False)
        self._held.move_to_end(segment.name)
        return held

    def _fill(self, found: list[seg.Entry | None]) -> None:
        entries = [e for e in found if e is not None]
        if not entries or not self.index.usable():
            return
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            self._note_table_id(entries)
            # A big commit gets a segment of its own: a question about the commits beside
            # it never reads it (memory follows the question, not the size of the cache).
            for part in [[e for e in entries if not _big(e)]] + [[e] for e in entries if _big(e)]:
                seg.write_segment(self.folder, part)
            self._compact()
        except OSError:
            return  # a full disk or a folder removed meanwhile: the answer is unaffected
        self.index.evict(keep=self.folder)

    def _note_table_id(self, entries: list[seg.Entry]) -> None:
        """Record the table's id (metaData.id); a different id than the one recorded means
        another table now lives at this location: everything held of the old one goes."""
        manifest = _read_manifest(self.folder) or {}
        known = manifest.get("tableId")
        seen = next((i for e in reversed(entries) if (i := _entry_table_id(e))), None)
        if seen is not None and known is not None and seen != known:
            for segment in seg.segments(self.folder):
                seg.remove_segment(self.folder, segment)
            self._held.clear()
        if manifest.get("location") is None or (seen is not None and seen != known):
            body = {"location": _shown_location(self.root), "tableId": seen or known}
            seg.write_atomically(os.path.join(self.folder, _MANIFEST), json.dumps(body).encode())

    def _compact(self) -> None:
        """Merge small segments (a few new commits each) once there are many of them."""
        small = [
            s
            for s in seg.segments(self.folder)
            if s.last - s.first < _SMALL and seg.size(self.folder, s) < _SMALL_BYTES
        ]
        if len(small) < _MERGE_AT:
            return
        merged: dict[tuple[int, int, int, str | None], seg.Entry] = {}
        for segment in small:
            for entries in (seg.read_segment(self.folder, segment) or {}).values():
                for e in entries:
                    merged[(e.version, e.size, e.modification_time, e.etag)] = e
        seg.write_segment(self.folder, list(merged.values()))
        for segment in small:
            seg.remove_segment(self.folder, segment)
            self._held.pop(segment.name, None)


def read_files(
    index: TableIndex | None, storage: Storage, files: Sequence[LogFile]
) -> list[bytes | OSError]:
    """Listed commit files' contents in order (or errors), through the index if any."""
    if index is None:
        return storage.read_many([f.path for f in files])
    return index.read(storage, files)


def fetch_files(
    index: TableIndex | None, storage: Storage, files: Sequence[LogFile]
) -> list[Fetched]:
    """As :func:`read_files`, a big commit the index holds parsed given as its Commit."""
    if index is None:
        return list(storage.read_many([f.path for f in files]))
    return index.fetch(storage, files)


def _parse_big(file: LogFile, data: Fetched) -> Fetched:
    """A big commit parsed (the index keeps it parsed); the others as they were read."""
    if isinstance(data, bytes) and len(data) >= COLUMNAR_FROM and COMMIT_FILE.match(file.name):
        from inspector.log.commit import parse_commit

        return parse_commit(int(file.name[:20]), file, data)
    return data


def _entry(
    file: LogFile, found: Fetched, raw: bytes | OSError, *, parsed: bool
) -> seg.Entry | None:
    """The entry a commit file just read becomes: a big commit parsed whole into the
    columnar form is held so; else its bytes when read whole (a big one only when it was
    parsed, so that a read of bytes alone never keeps a big commit from being held parsed).
    A staged commit (``_delta_log/_staged_commits``) is not immutable and is never held."""
    if not COMMIT_FILE.match(file.name) or f"/{STAGED_DIR}/" in file.path:
        return None
    data, files = None, None
    if not isinstance(found, bytes | OSError) and found.columns is not None and not found.problems:
        files = found.columns
    elif isinstance(raw, bytes) and len(raw) == file.size and (parsed or len(raw) < COLUMNAR_FROM):
        data = raw  # the size checked: a file that changed since it was listed is not kept
    else:
        return None
    return seg.Entry(
        version=int(file.name[:20]),
        size=file.size,
        modification_time=file.modification_time,
        etag=file.etag,
        data=data,
        files=files,
    )


def _big(entry: seg.Entry) -> bool:
    return entry.files is not None or len(entry.data or b"") >= COLUMNAR_FROM


def _entry_table_id(entry: seg.Entry) -> str | None:
    if entry.data is not None:
        return _table_id(entry.data)
    return _table_id(b"\n".join(entry.files.other_text)) if entry.files is not None else None


def _table_id(data: bytes) -> str | None:
    """The table id of a commit's metaData action, when it has one."""
    if b'"metaData"' not in data:
        return None
    for line in data.splitlines():
        if line.startswith(b'{"metaData"'):
            try:
                found = text.loads(line)["metaData"].get("id")
            except (ValueError, KeyError, TypeError, AttributeError):
                return None
            return found if isinstance(found, str) else None
    return None


def _shown_location(root: str) -> str:
    """The location without anything secret a URI could carry (a password, a query)."""
    parts = urlsplit(root)
    if not parts.scheme or len(parts.scheme) == 1:
        return root
    host = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, f"{user}{host}", parts.path, "", ""))


def _read_manifest(folder: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(folder, _MANIFEST), "rb") as fh:
            found = text.loads(fh.read())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def serves(storage: Storage, count: int, size: int) -> bool:
    """Whether a read of ``count`` commit files of ``size`` bytes goes through the index (a
    local disk's only from :data:`LOCAL_FROM` files or :data:`LOCAL_BYTES` on)."""
    return count >= LOCAL_FROM or size >= LOCAL_BYTES or storage.local_path() is None
