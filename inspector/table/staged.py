"""A catalog-managed table's staged commits, shown in its history: one question, here.

The staged commits newer than the published log (:mod:`inspector.log.staged`), with what
the catalog says of them for a table opened by a ``uc://`` name
(:func:`inspector.table.handle.catalog_commits`), become history entries marked with
their status.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from inspector.delta.errors import InspectorError
from inspector.delta.protocol import catalog_features
from inspector.log.commit import Commit, parse_commit
from inspector.log.staged import STAGED_DIR, StagedCommit, newer_staged, pending_commits
from inspector.settings import Settings
from inspector.table.handle import Table, catalog_commits
from inspector.table.history_entry import HistoryEntry, history_entries
from inspector.table.rowcounts import rows_along
from inspector.table.rowrule import UNKNOWN, RowChange


def staged_commits(table: Table, settings: Settings) -> list[StagedCommit]:
    """The staged commits newer than the published log, when the table is catalog-managed
    (its protocol is read, and its catalog asked, only when such staged files exist)."""
    log = table.log
    files = newer_staged(log.storage, log.staged_files, log.latest_version)
    if not files:
        return []
    try:
        if not catalog_features(log.snapshot().protocol):
            return []
    except InspectorError:  # the latest version is unreadable: the check says so
        return []
    return pending_commits(files, catalog_commits(table, settings))


def staged_entries(
    table: Table, staged: list[StagedCommit], settings: Settings
) -> list[HistoryEntry]:
    """History entries for staged commits (oldest first), each marked with its status."""
    log = table.log
    contents = log.storage.read_many([f"{STAGED_DIR}/{s.file.name}" for s in staged])
    commits = [
        parse_commit(s.version, s.file, data, columnar=False)
        for s, data in zip(staged, contents, strict=True)
    ]
    versions = [s.version for s in staged]
    rows = _with_rows(table, commits)  # after the published log, whose properties are in force
    entries, _ = history_entries(log, versions, rows, log.latest_version + 1, {}, {}, settings)
    return [replace(e, staged=str(s.status)) for e, s in zip(entries, staged, strict=True)]


def _with_rows(table: Table, commits: list[Commit]) -> Iterator[tuple[Commit, RowChange]]:
    """Each staged commit with its row figures, each read on the published log (a staged
    commit after another has no published state before it: its figures may be unknown)."""
    for commit in commits:
        try:
            yield next(rows_along(table.log, iter([commit])))
        except InspectorError:
            yield commit, UNKNOWN
