"""Staged commits of a catalog-managed table: the versions its catalog has not published.

A catalog-managed table (``catalogManaged``, or Delta 4.0's ``catalogOwned-preview``)
commits by writing ``_delta_log/_staged_commits/<version>.<uuid>.json`` and asking its
catalog to ratify it; a ratified commit is published later, as ``<version>.json``
(PROTOCOL.md, "Catalog-managed tables"). Until then only the catalog knows which staged
file won a version, so the folder alone proves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from inspector.delta.paths import LOG_DIR
from inspector.log.listing import LogFile, log_file
from inspector.storage import ObjectMeta, Storage

STAGED_DIR = f"{LOG_DIR}/_staged_commits"
_STAGED = re.compile(r"^(\d{20})\.([0-9a-fA-F-]{36})\.json$")


class StagedStatus(StrEnum):
    """What is known of a staged commit newer than the published log."""

    RATIFIED = "ratified, not yet published"
    NOT_RATIFIED = "not ratified"
    UNKNOWN = "staged, status unknown"


@dataclass(frozen=True, kw_only=True)
class CatalogCommits:
    """What the managing catalog (Unity Catalog's ``loadTable``) says about a table's commits.

    Attributes:
        source: Which catalog said it, for people (``Unity Catalog at http://...``).
        ratified: The file names (under ``_staged_commits``) of the ratified commits it
            has not been told are published, by version.
        latest_version: The newest version the catalog ratified.
    """

    source: str
    ratified: dict[int, str]
    latest_version: int | None


@dataclass(frozen=True, kw_only=True)
class StagedCommit:
    """One staged commit file newer than the newest published commit, and its status."""

    version: int
    file: LogFile
    status: StagedStatus

    def to_json(self) -> dict[str, object]:
        """``{"version", "file", "size", "status"}``: the JSON shape wherever it is shown."""
        return {
            "version": self.version,
            "file": f"{STAGED_DIR}/{self.file.name}",
            "size": self.file.size,
            "status": str(self.status),
        }


def newer_staged(storage: Storage, listed: list[ObjectMeta], published: int) -> list[LogFile]:
    """The staged commit files (``<version>.<uuid>.json``) of those ``listed`` in
    ``_staged_commits`` newer than ``published`` (the newest ``<version>.json``), by version
    then name."""
    files = [
        log_file(storage, m)
        for m in listed
        if _STAGED.match(m.name) and staged_version(m.name) > published
    ]
    return sorted(files, key=lambda f: (staged_version(f.name), f.name))


def staged_version(name: str) -> int:
    """The version a staged commit's file name proposes (its 20 digits are authoritative)."""
    return int(name[:20])


def pending_commits(files: list[LogFile], catalog: CatalogCommits | None) -> list[StagedCommit]:
    """The staged commits of ``files`` (from :func:`newer_staged`), each with its status by
    what the catalog says (unknown without it)."""

    def status(version: int, name: str) -> StagedStatus:
        if catalog is None:
            return StagedStatus.UNKNOWN
        ratified = catalog.ratified.get(version) == name
        return StagedStatus.RATIFIED if ratified else StagedStatus.NOT_RATIFIED

    versions = [(staged_version(f.name), f) for f in files]
    return [StagedCommit(version=v, file=f, status=status(v, f.name)) for v, f in versions]
