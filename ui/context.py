"""What every page receives: the open table, the settings and the selected version."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table import Table
from inspector.table.history_entry import HistoryEntry
from ui.history_load import HistoryLoad


@dataclass(frozen=True)
class PageContext:
    """The state a page renders from.

    Attributes:
        table: The table's handle: its log (opened and refreshed), its storage options, and
            its catalog name (``uc://...``) when it was opened by name.
        settings: The settings in force for this run of the app, with the storage options
            typed in the sidebar.
        version: The version selected in the sidebar (always one of ``versions``).
        load: The table's history as read so far, newest first (the Timeline draws the
            newest page at once and asks for older ones; ``history`` waits for all).
    """

    table: Table
    settings: Settings
    version: int
    load: HistoryLoad

    @property
    def history(self) -> tuple[HistoryEntry, ...]:
        """The table's whole history, oldest first (one entry per version: each commit file,
        and each version that only a checkpoint remembers); read on first use."""
        return self.load.whole()

    @property
    def versions(self) -> tuple[int, ...]:
        """Every listed version, ascending: the commit versions plus versions that exist only
        as a checkpoint (the whole log listed on first use)."""
        return self.load.all_versions()

    @property
    def table_name(self) -> str | None:
        """The table's catalog name (``uc://main.sales.orders``), or None for a path."""
        return self.table.name

    @property
    def log(self) -> DeltaLog:
        """The table's transaction log (opened and refreshed)."""
        return self.table.log

    @property
    def cache_key(self) -> tuple[str, int, int]:
        """Identifies this history: pages cache what they derive from it under this key."""
        return (self.log.table_root, self.log.generation, self.settings.timestamp_tolerance_seconds)

    def entry(self, version: int) -> HistoryEntry | None:
        """The history entry of a version, or None when the history does not have it (the
        newest versions' without waiting for the rest)."""
        read = self.load.entries
        history = read if read and read[0].version <= version else self.history
        i = bisect.bisect_left(history, version, key=lambda e: e.version)
        if i < len(history) and history[i].version == version:
            return history[i]
        return None
