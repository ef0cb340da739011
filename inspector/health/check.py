"""The health check's entry point: which versions are complete, and the newest consistent one."""

from __future__ import annotations

from inspector.health.allversions import check_all_versions
from inspector.health.examine import Progress
from inspector.health.latest import check_latest
from inspector.health.problems import table_level_problems
from inspector.health.records import HealthReport, OrphanScope
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings


def check_table(
    log: DeltaLog,
    *,
    all_versions: bool = False,
    deep: bool = False,
    settings: Settings,
    progress: Progress | None = None,
) -> HealthReport:
    """Check which versions of a table a reader can fully read; nothing is written.

    The latest version is examined from its snapshot alone (:mod:`.latest`); every retained
    version (``all_versions``, or when the latest is not complete or its snapshot cannot be
    read, to find the last consistent one) from one trace of the whole log
    (:mod:`.allversions`). ``deep``: also read each data file's Parquet footer;
    ``settings``: for ``check_workers`` and ``max_listed_files``; ``progress``: called as
    ``progress(done, total)`` while files are examined.
    """
    cap, workers = settings.max_listed_files, max(1, settings.check_workers)
    found = None
    if not all_versions:
        found = check_latest(log, deep=deep, cap=cap, workers=workers, progress=progress)
    whole = found is None or not found.versions[-1].is_complete
    if found is None or whole:
        # only what was asked is verified: every checkpoint and .crc, else the newest ones
        found = check_all_versions(
            log, verify_all=all_versions, deep=deep, cap=cap, workers=workers, progress=progress
        )
    versions, orphans = found.versions, found.orphans
    return HealthReport(
        table_root=log.table_root,
        latest_version=versions[-1].version,
        last_consistent_version=max((v.version for v in versions if v.is_complete), default=None),
        versions=versions,
        orphan_files=len(orphans),
        orphan_bytes=sum(s for _, s in orphans),
        files_examined=found.files_examined,
        # the whole log was listed and read, or only from the newest checkpoint on
        problems=tuple(table_level_problems(log, whole=whole)),
        all_versions=whole,
        deep=deep,
        orphan_paths=tuple(sorted(p for p, _ in orphans)[:cap]),
        orphan_scope=OrphanScope.RETAINED_VERSIONS if whole else OrphanScope.LATEST_SNAPSHOT,
    )
