"""The table handle: where a table is, how to reach its store, and its opened log.

:func:`open_table` is the one way a front end turns what a user typed into a
:class:`Table`; nothing below the front ends opens a table by path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.catalog import CatalogKind, parse_catalog_name, resolve_table
from inspector.connection import StorageOptions
from inspector.delta.errors import InspectorError, NotADeltaTable
from inspector.log.deltalog import DeltaLog
from inspector.log.index import open_index
from inspector.log.staged import CatalogCommits
from inspector.settings import Settings
from inspector.storage.location import Location, parse_location


@dataclass(frozen=True, kw_only=True)
class Table:
    """One opened table: its location, how to reach its store (never shown), its log
    (shared and refreshed by whoever holds it) and the catalog name it was resolved from
    (None for a table given by location)."""

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
    """Open a table as a user gave it (a path, a URI, ``uc://`` or ``glue://`` name).

    A catalog's storage options (vended credentials) are merged over the settings' (they
    win: the catalog granted them for this table).

    Args:
        text: What the user typed.
        settings: The storage options and the catalogs' settings.
        write: Ask a catalog for ``READ_WRITE`` credentials: only for a commit
            (:func:`for_commit`); every read asks for ``READ``.
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

    A table opened by name is resolved again with ``write``, so credentials that expired
    since the plan, or were vended for ``READ``, are never the ones a commit uses. A table
    given by location is its own. Raises as :func:`open_table`.
    """
    if table.name is None:
        return table
    return open_table(table.name, settings, write=True)


def catalog_commits(table: Table, settings: Settings) -> CatalogCommits | None:
    """What the table's catalog says of its commits (Unity Catalog's ``loadTable``); None
    for a table opened by path, a catalog that cannot say (Glue, a server without the Delta
    API)."""
    parsed = parse_catalog_name(table.name or "")
    if parsed is None or parsed.kind is not CatalogKind.UNITY:
        return None
    from inspector.catalog.unity import UnityCatalog

    try:
        server = UnityCatalog(settings)
        answer = server.ratified_commits(parsed)
    except InspectorError:
        return None
    if answer is None:
        return None
    ratified, latest = answer
    return CatalogCommits(
        source=f"Unity Catalog at {server.url}", ratified=ratified, latest_version=latest
    )
