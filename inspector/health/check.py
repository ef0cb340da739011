"""The health check's entry point: which versions are complete, and the newest consistent one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from inspector.health.allversions import check_all_versions
from inspector.health.examine import Progress
from inspector.health.latest import check_latest
from inspector.health.problems import table_level_problems
from inspector.health.records import HealthReport, OrphanScope, VersionHealth
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
    """Check which versions of a table a reader can fully read.

    Two questions, one way each. The latest version (default) is examined from its
    snapshot alone (the newest checkpoint and the commits after it; orphans as VACUUM
    sees them, :mod:`.latest`). Every retained version (``all_versions``, or when the
    latest is not complete or its snapshot cannot be read, to find the last consistent
    one) is examined from one trace of the whole log, damaged or not (:mod:`.allversions`).
    Nothing is written and Spark is never started.

    Args:
        log: An opened (and, for fresh results, refreshed) log.
        all_versions: Check every retained version, not only the latest.
        deep: Also read each data file's Parquet footer and compare its row
            count with the log's stats.
        settings: For ``check_workers`` and ``max_listed_files``.
        progress: Called as ``progress(done, total)`` while files are examined.

    Returns:
        The report.
    """
    workers, cap = max(1, settings.check_workers), settings.max_listed_files
    if not all_versions:
        fast = check_latest(log, deep=deep, cap=cap, workers=workers, progress=progress)
        if fast is not None and fast.health.is_complete:
            report = _report(
                log, (fast.health,), fast.files_examined, fast.orphans, cap, whole=False
            )
            return replace(report, orphan_scope=OrphanScope.LATEST_SNAPSHOT, deep=deep)
    full = check_all_versions(
        log,
        all_checkpoints=all_versions,  # else only the newest checkpoint is compared
        all_checksums=all_versions,  # else only the latest version's .crc
        deep=deep,
        cap=cap,
        workers=workers,
        progress=progress,
    )
    report = _report(log, full.versions, full.files_examined, full.orphans, cap, whole=True)
    return replace(report, all_versions=True, deep=deep)


def _report(
    log: DeltaLog,
    versions: tuple[VersionHealth, ...],
    files_examined: int,
    orphans: Sequence[tuple[str, int]],
    cap: int,
    *,
    whole: bool,
) -> HealthReport:
    """The report; ``whole``: the whole log was listed and read, so its table-level
    problems are given for all of it (else from the newest checkpoint on)."""
    return HealthReport(
        table_root=log.table_root,
        latest_version=versions[-1].version,
        last_consistent_version=max((v.version for v in versions if v.is_complete), default=None),
        versions=versions,
        orphan_files=len(orphans),
        orphan_bytes=sum(s for _, s in orphans),
        files_examined=files_examined,
        problems=tuple(table_level_problems(log, whole=whole)),
        orphan_paths=tuple(sorted(p for p, _ in orphans)[:cap]),
    )
