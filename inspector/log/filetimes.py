"""The commit files' modification times: the log's whole listing's, or a local folder's stats.

The file-time history rule chains every commit's file time from version 0 on
(:func:`inspector.table.history_time.file_time_before`), so a page of history read alone
needs the times of every commit before it.
"""

from __future__ import annotations

import os
from stat import S_ISREG

from inspector.delta.paths import LOG_DIR
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import COMMIT_FILE


def commit_times(log: DeltaLog, below: int) -> dict[int, int]:
    """The modification time (ms) of every commit file below version ``below``, by version:
    from the log's whole listing, the log index's listing record, or (a local folder read
    without the index and without a whole listing, which builds a record per file) one
    ``stat`` per commit file."""
    whole = log.whole_listing
    folder = log.storage.local_path(LOG_DIR)
    if whole is None and log.lister.indexed:
        return log.lister.commit_times(below)
    if whole is None and folder is None:
        whole = log.listing
    if whole is not None:
        return {v: f.modification_time for v, f in whole.commits.items() if v < below}
    return _listed(folder or "", below)


def _listed(folder: str, below: int) -> dict[int, int]:
    try:
        names = os.listdir(folder)
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return {}
    times: dict[int, int] = {}
    match, stat = COMMIT_FILE.match, os.stat  # a loop of one stat per commit: kept tight
    try:
        for name in names:
            if (m := match(name)) and (version := int(m[1])) < below:
                try:
                    st = stat(name, dir_fd=fd)
                except OSError:
                    continue
                if S_ISREG(st.st_mode):
                    times[version] = int(st.st_mtime * 1000)
    finally:
        os.close(fd)
    return times
