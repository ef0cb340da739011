"""The table handle: where a table is, how to reach its store, and its opened log.

A front end (the CLI, the app) makes one :class:`Table` per table it was given, with
:func:`open_table`, and hands it down; nothing below the front ends opens a table by
path. A second table (a replica) gets its own handle from the front end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from inspector.connection import StorageOptions
from inspector.delta.errors import NotADeltaTable
from inspector.log.deltalog import DeltaLog
from inspector.storage.location import Location, parse_location


@dataclass(frozen=True, kw_only=True)
class Table:
    """One opened table.

    Attributes:
        location: Where it is (local folder or object store URI).
        storage_options: How to reach its store (credentials, endpoint); never shown.
        log: Its transaction log, opened (shared and refreshed by whoever holds it).
        name: The catalog name it was resolved from (``uc://...``, ``glue://...``), or
            None for a table given by location.
    """

    location: Location
    storage_options: StorageOptions = field(default=StorageOptions(), repr=False)
    log: DeltaLog = field(compare=False)
    name: str | None = None

    @property
    def root(self) -> str:
        """The table root: an absolute local path or a URI."""
        return self.log.table_root

    def latest_log(self) -> DeltaLog:
        """The log, refreshed: for a question that must see commits made since it opened."""
        self.log.refresh()
        return self.log


def open_table(
    location: str,
    *,
    storage_options: Mapping[str, str] | None = None,
    name: str | None = None,
    described_as: str | None = None,
) -> Table:
    """Open a table by location: the one place a front end turns a location into a handle.

    Args:
        location: A local path, ``file://`` URI or object store URI.
        storage_options: Credentials, endpoint, ... (delta-rs names), parsed at the edge.
        name: The catalog name the location was resolved from, if any.
        described_as: Which of several tables this is (``replica``), for the error when
            it is not a table.

    Raises:
        NotADeltaTable: If the location holds no readable Delta log.
        StorageUnavailable: If the store cannot be reached or refuses access.
        InvalidInput: If a storage option is unknown or malformed.
    """
    options = StorageOptions(storage_options or {})
    parsed = parse_location(location)
    try:
        log = DeltaLog.open(location, storage_options=options)
    except NotADeltaTable as exc:
        if described_as is None:
            raise
        message = f"The {described_as} is not a Delta table: {exc.message}"
        raise NotADeltaTable(message, exc.hint) from None
    return Table(location=parsed, storage_options=options, log=log, name=name)
