"""The health check's entry point: which versions are complete, and the newest consistent one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from inspector.delta.errors import InspectorError
from inspector.health.allversions import check_all_versions
from inspector.health.evaluate import (
    Examiner,
    Progress,
    evaluate,
    find_orphans,
    walk_sizes,
)
from inspector.health.latest import check_latest
from inspector.health.records import HealthReport, OrphanScope, VersionHealth
from inspector.health.trace import Step, Tracer, paths_of, table_level_problems
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

    The fast check (default) examines the latest version from its snapshot alone (the
    newest checkpoint and the commits after it; orphans as VACUUM sees them); when that
    is not complete, it goes on to every retained version to find the last consistent
    one. Every version of a plain log (each commit after the earliest version present
    and readable) is checked in Arrow (:mod:`.allversions`); any other log, and a deep
    check, by the traced replay (:func:`check_traced`), which gives the same report.
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
    verify_all = all_versions  # the fast check compares only the newest checkpoint
    if not all_versions and not deep:
        fast = check_latest(log, cap=cap, workers=workers, progress=progress)
        if fast is not None and fast.health.is_complete:
            report = _report(
                log, (fast.health,), fast.files_examined, fast.orphans, cap, whole=False
            )
            return replace(report, orphan_scope=OrphanScope.LATEST_SNAPSHOT)
        all_versions = fast is not None  # known incomplete: on to every version at once
    if all_versions and not deep:
        full = check_all_versions(
            log,
            all_checkpoints=verify_all,
            cap=cap,
            workers=workers,
            progress=progress,
        )
        if full is not None:
            report = _report(log, full.versions, full.files_examined, full.orphans, cap, whole=True)
            return replace(report, all_versions=True)
    return check_traced(
        log,
        all_versions=all_versions,
        deep=deep,
        verify_all=verify_all,
        settings=settings,
        progress=progress,
    )


def check_traced(
    log: DeltaLog,
    *,
    all_versions: bool,
    deep: bool,
    verify_all: bool,
    settings: Settings,
    progress: Progress | None = None,
) -> HealthReport:
    """The check by the traced replay (:mod:`.trace`): any log, damaged or not, and ``deep``.

    :func:`check_table` takes this path when the log is not the plain case
    (:func:`~inspector.health.allversions.check_all_versions`), and for a deep check.

    Args:
        log: The opened log.
        all_versions: Every retained version (else the latest, then every version when
            the latest is not complete).
        deep: Also read each data file's Parquet footer.
        verify_all: Compare every checkpoint with its commits (not only the newest).
        settings: For ``check_workers`` and ``max_listed_files``.
        progress: Called as ``progress(done, total)`` while files are examined.
    """
    workers, cap = max(1, settings.check_workers), settings.max_listed_files
    trace = Tracer(log, all_checkpoints=verify_all, deep=deep).run()
    walked = walk_sizes(log.storage, trace.root, _partition_columns(log))
    examiner = Examiner(trace.refs, deep, workers, progress, walked, log.storage)
    versions: list[VersionHealth] = []
    if not all_versions:
        latest = Step(
            version=trace.steps[-1].version,
            base=trace.latest_keys or [],
            problems=trace.steps[-1].problems,
            readable=trace.latest_keys is not None,
        )
        examiner.run(paths_of(trace, latest.base or []))
        versions = evaluate(trace, [latest], examiner.issues, cap)
    if all_versions or not versions[-1].is_complete:
        all_versions = True
        examiner.run(trace.refs)
        versions = evaluate(trace, trace.steps, examiner.issues, cap)
    orphans = find_orphans(trace, walked)
    report = _report(log, tuple(versions), len(examiner.issues), orphans, cap, whole=True)
    return replace(report, all_versions=all_versions, deep=deep)


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


def _partition_columns(log: DeltaLog) -> tuple[str, ...]:
    """The latest partition columns (none when the latest version cannot be read)."""
    try:
        return log.snapshot().metadata.partition_columns
    except InspectorError:
        return ()
