"""The local log index: commits kept on disk, so that a table read before costs only its
listing and the commits that are new.

Owns the cache folder (the ``log_index_folder`` setting, owner-only ``0700``). Each table
location has a subfolder, named by a digest of the location, holding Arrow IPC *segments*
(:mod:`~inspector.log.index.segments`): per commit its version, listed size, modification
time and ETag, and its bytes (a small commit) or its parsed form (a big commit: the log
core's columnar tables of its file actions, :class:`~inspector.log.bigcommit.CommitFiles`).
A commit is served from a segment only when all four equal what the listing just said
(:mod:`~inspector.log.index.tables`), so a rewritten log, a table recreated at the same
path or a cleaned-up log never gets a stale answer. Commit files are read through
:meth:`~inspector.log.deltalog.DeltaLog.fetch_commits` (a big commit comes parsed) or
:meth:`~inspector.log.deltalog.DeltaLog.read_commit_files` (bytes only). Beside them a
table's subfolder keeps finished *results* of questions above the log core, each checked
against the listing by the question that kept it (:mod:`~inspector.log.index.results`: the
whole history, :mod:`inspector.table.history_store`), under the identity of the listing's
files (:mod:`~inspector.log.index.identity`).

May import what :mod:`inspector.log` may (``storage``, ``settings``, ``delta``) and the
log core's parsing (:mod:`inspector.log.commit`, ``bigcommit``, ``columnar``) and
:mod:`inspector.log.listing` and ``columnlisting``; nothing above the log core.
"""

from inspector.log.index.tables import (
    CachedTable,
    Fetched,
    LogIndex,
    TableIndex,
    fetch_files,
    open_index,
    read_files,
)

__all__ = [
    "CachedTable",
    "Fetched",
    "LogIndex",
    "TableIndex",
    "fetch_files",
    "open_index",
    "read_files",
]
