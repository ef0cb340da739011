"""The table handle: where a table is, how to reach its store, and its opened log.

:func:`open_table` is the one way a front end (the CLI, the app) turns what a user typed
into a :class:`Table`: a catalog name (``uc://``, ``glue://``) is resolved, with
credentials asked for the operation (``READ``, or ``READ_WRITE`` for a commit), and the
log is opened. The handle is handed down; nothing below the front ends opens a table by
path. A second table (a replica) gets its own handle. :func:`for_commit` is the handle a
restore commits through: a table opened by name is resolved again, for writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.catalog import resolve_table
from inspector.connection import StorageOptions
from inspector.delta.errors import NotADeltaTable
from inspector.log.deltalog import DeltaLog
from inspector.log.index import open_index
from inspector.settings import Settings
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
    text: str, settings: Settings, *, write: bool = False, role: str | None = None
) -> Table:
    """Open a table as a user gave it: the one place a front end makes a handle.

    A catalog name is looked up, and the catalog's storage options (vended credentials)
    are merged over the settings' (they win: the catalog granted them for this table).

    Args:
        text: A local path, ``file://`` URI, object store URI, ``uc://CATALOG.SCHEMA.TABLE``
            or ``glue://DATABASE.TABLE``, as typed.
        settings: The storage options (credentials, endpoint; parsed at the edge) and the
            catalogs' settings.
        write: Ask a catalog for credentials that may write (``READ_WRITE``): only for a
            commit (:func:`for_commit`); every read asks for ``READ``.
        role: Which of several tables this is (``replica``), for the error when it is
            not a table.

    Raises:
        NotADeltaTable: If the location holds no readable Delta log.
        StorageUnavailable: If the store cannot be reached or refuses access.
        InvalidInput: If a storage option is unknown or malformed, or a catalog name is.
        TableNotInCatalog: If a catalog has no table of that name.
        CatalogUnavailable: If a catalog cannot be reached or is not configured.
        CatalogAccessDenied: If a catalog refuses the token or credentials.
    """
    resolved = resolve_table(text, settings, write=write)
    options = settings.storage_options.merged(resolved.storage_options)
    try:
        log = DeltaLog.open(resolved.location, storage_options=options, index=open_index(settings))
    except NotADeltaTable as exc:
        if role is None:
            raise
        raise NotADeltaTable(f"The {role} is not a Delta table: {exc.message}", exc.hint) from None
    location = parse_location(resolved.location)
    return Table(location=location, storage_options=options, log=log, name=resolved.name)


def for_commit(table: Table, settings: Settings) -> Table:
    """The handle a commit writes through, asked for at commit time.

    A table opened by name is resolved again with ``write``: its catalog vends credentials
    for ``READ_WRITE`` now, so credentials that expired since the plan, or were vended for
    ``READ``, are never the ones a commit uses. A table given by location is its own.

    Args:
        table: The handle the plan was made on.
        settings: The settings it was opened with (the catalog's and the store's).

    Raises:
        As :func:`open_table`.
    """
    if table.name is None:
        return table
    return open_table(table.name, settings, write=True)
