"""The local log index: commit files kept on disk, so that a table read before costs only
its listing and the commits that are new.

Owns the cache folder (the ``log_index_folder`` setting, owner-only ``0700``). Each table
location has a subfolder, named by a digest of the location, holding Arrow IPC *segments*
(:mod:`~inspector.log.index.segments`): rows of a commit's version, its listed size,
modification time and ETag, and its bytes. A commit is served from a segment only when all
four equal what the listing just said (:mod:`~inspector.log.index.tables`), so a rewritten
log, a table recreated at the same path or a cleaned-up log never gets a stale answer.
The index sits below parsing: :meth:`~inspector.log.deltalog.DeltaLog.read_commit_files`
is the one way commit files are read, and every log question parses what it returns.

May import what :mod:`inspector.log` may (``storage``, ``settings``, ``delta``) and
:mod:`inspector.log.listing`; nothing above the log core.
"""

from inspector.log.index.tables import CachedTable, LogIndex, TableIndex, open_index

__all__ = ["CachedTable", "LogIndex", "TableIndex", "open_index"]
