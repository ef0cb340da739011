"""The health check: which versions are complete, and the newest consistent one.

The latest version costs what its snapshot costs, however long the log; its orphans are
judged as Delta's VACUUM judges them (:attr:`OrphanScope.LATEST_SNAPSHOT`). Every retained
version, and damage before the newest checkpoint, is :mod:`.allversions`'.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.errors import InspectorError
from inspector.health.allversions import check_all_versions
from inspector.health.checksum import TableState, check_checksum, read_checksums, with_checksum
from inspector.health.examine import (
    Checked,
    Judging,
    Progress,
    Ref,
    judge_files,
    physical_paths,
    register_add,
    sized_paths,
    stored_files,
    unclaimed,
    version_health,
)
from inspector.health.intervals import ODD_PATTERN, snapshot_files, whole_array
from inspector.health.problems import log_problems_at, table_level_problems
from inspector.health.records import HealthReport, OrphanScope
from inspector.log import arrays, columnar
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
    """Which versions of a table a reader can fully read: the latest from its snapshot
    alone; every retained version (``all_versions``, or when the latest is not complete or
    cannot be read, to find the last consistent one) from one trace of the whole log.
    ``deep``: also read each data file's Parquet footer; ``progress(done, total)``: called
    while files are examined."""
    cap, workers = settings.max_listed_files, max(1, settings.check_workers)
    how = Judging(deep=deep, workers=workers, cap=cap, progress=progress)
    found = None if all_versions else check_latest(log, how)
    whole = found is None or not found.versions[-1].is_complete
    if found is None or whole:
        # only what was asked is verified: every checkpoint and .crc, else the newest ones
        found = check_all_versions(log, how, verify_all=all_versions)
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


def check_latest(log: DeltaLog, how: Judging) -> Checked | None:
    """The latest version's verdict from its snapshot and one walk, or None when its
    snapshot cannot be read."""
    latest, root = log.latest_version, log.table_root
    # The walk waits on the file system, the snapshot mostly in Arrow: both release the GIL.
    with ThreadPoolExecutor(max_workers=1) as pool:
        walk = pool.submit(log.storage.walk_sizes)
        try:
            snap = log.snapshot(latest, statistics=how.deep)  # else only paths and sizes are judged
        except InspectorError:
            return None
        walked = stored_files(*walk.result(), snap.metadata.partition_columns)
    plain, specials = snapshot_files(latest, snap.files_table, deep=how.deep)
    refs: dict[str, Ref] = {}
    for add in specials:
        register_add(refs, root, add)
    judged = judge_files(log, plain, refs, walked, how)
    health = version_health(latest, judged.issues, log_problems_at(log, latest), how.cap)
    crc = read_checksums(log, [latest])  # the latest version's .crc, when it has one
    if latest in crc:
        health = with_checksum(health, check_checksum(latest, crc[latest], TableState.of(snap)))
    candidates = unclaimed(walked, judged.found, judged.rest, root)
    return Checked(
        versions=(health,),
        files_examined=judged.examined,
        orphans=_orphans(log, candidates, snap.tombstones_table),
    )


def _orphans(log: DeltaLog, walked: pa.Table, tombstones: pa.Table) -> tuple[tuple[str, int], ...]:
    """Of the walked files the live files do not name, those the snapshot's tombstones and
    the change-data files of the commits it read do not name either: (relative path, bytes)
    (the tombstones are looked up among these few candidates, not the reverse; change-data
    files are kept for CDF reads)."""
    if not walked.num_rows:
        return ()
    root, paths = log.table_root, whole_array(walked.column("path"))
    column = whole_array(tombstones.column("key_path"))
    known = column.filter(pc.is_in(column, value_set=paths))
    special = pc.or_(
        pc.match_substring_regex(column, ODD_PATTERN),
        tombstones.column("deletionVector").is_valid(),
    )
    latest = log.latest_version
    base = log.tail.newest_checkpoint(latest)
    commits = log.read_commits(list(range(base.version + 1 if base else 0, latest + 1)))  # cached
    found = [p for c in commits for f in c.cdc_files for p in physical_paths(root, f.path, None)]
    if pc.any(special).as_py():
        for action in columnar.records("remove", tombstones.filter(special)):
            found += physical_paths(root, action.path, action.deletion_vector)
    value_set = pa.concat_arrays([known, arrays.texts(found)])
    return sized_paths(walked.filter(pc.invert(pc.is_in(paths, value_set=value_set))))
