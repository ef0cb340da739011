"""The commit files' modification times, listed without a record per file.

The file-time history rule chains every commit's file time from version 0 on
(:func:`inspector.table.history_time.file_time_before`), so a page of history read alone
needs the times of every commit before it. A full listing (:func:`inspector.log.listing.list_log`)
builds a :class:`~inspector.log.listing.LogFile` per file, which costs as much again as the
listing: here a local folder gives its names and one ``stat`` per commit file, and an object
store its listing's times.
"""

from __future__ import annotations

import os
from stat import S_ISREG

from inspector.delta.paths import LOG_DIR
from inspector.log.deltalog import DeltaLog
from inspector.log.listing import COMMIT_FILE
from inspector.storage import Storage


def commit_times(log: DeltaLog, below: int) -> dict[int, int]:
    """The modification time (ms) of every commit file below version ``below``, by version.

    From the log's whole listing when it has one, else listed here: the same files and times
    (regular files named as commits; a file removed meanwhile is left out, as the listing
    leaves it out).
    """
    whole = log.whole_listing
    if whole is not None:
        return {v: f.modification_time for v, f in whole.commits.items() if v < below}
    return _listed(log.storage, below)


def _listed(storage: Storage, below: int) -> dict[int, int]:
    folder = storage.local_path(LOG_DIR)
    if folder is None:
        return {
            int(m.group(1)): meta.last_modified
            for meta in storage.list(LOG_DIR)
            if (m := COMMIT_FILE.match(meta.name)) and int(m.group(1)) < below
        }
    try:
        names = os.listdir(folder)
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return {}
    times: dict[int, int] = {}
    try:
        for name in names:
            if (m := COMMIT_FILE.match(name)) and (version := int(m.group(1))) < below:
                try:
                    st = os.stat(name, dir_fd=fd)
                except OSError:
                    continue
                if S_ISREG(st.st_mode):
                    times[version] = int(st.st_mtime * 1000)
    finally:
        os.close(fd)
    return times
