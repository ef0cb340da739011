"""What a read of a snapshot refuses before Spark starts, and the caveats shown beside rows.

A data or deletion-vector file that is missing or damaged is one clear error naming it,
raised before the (slow) Spark session is paid for and before Delta's stack trace would
say it less clearly. :mod:`inspector.rows.delta_engine` and the preview call it.
"""

from __future__ import annotations

from collections.abc import Iterable

from inspector.delta.actions import AddFile
from inspector.delta.errors import MissingDataFile
from inspector.delta.protocol import MANAGED_FEATURES, reader_features
from inspector.files.filecheck import FileState, check_files
from inspector.log.deletion_vectors import dv_file_path
from inspector.log.snapshot import Snapshot

_STAT_WORKERS = 8  # parallel local stat calls before Spark starts


def read_warnings(snapshot: Snapshot) -> list[str]:
    """Caveats about rows read from this snapshot (shown beside a preview)."""
    if reader_features(snapshot.protocol) & MANAGED_FEATURES:
        return [
            "This table is managed by a catalog: the rows shown are those of the commits in "
            "_delta_log; commits the catalog has ratified but not yet published are not included."
        ]
    return []


def check_files_exist(snapshot: Snapshot, adds: Iterable[AddFile]) -> None:
    """Check every data and deletion-vector file before Spark starts, for a clean message.

    The rule is the health check's and the restore guard's
    (:func:`inspector.files.filecheck.check_files`): present, with the size the log records.
    On an object store one listing answers (no stat per file): present is all it checks.

    Raises:
        MissingDataFile: Naming the first missing or damaged file and how many there are.
    """
    adds = list(adds)
    found: list[tuple[str, str | None]]  # (path, what is wrong with a damaged file)
    if snapshot.store.local_path() is None:
        found = [(p, None) for p in _missing_files(snapshot, _stored_paths(snapshot, adds))]
    else:
        issues = check_files(snapshot.table_root, adds, workers=_STAT_WORKERS)
        found = [(i.local_path, None if i.state is FileState.MISSING else i.detail) for i in issues]
    if not found:
        return
    path, damage = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    what = (
        f"missing{more}: the version's data was vacuumed or not copied with the table"
        if damage is None
        else f"damaged ({damage}){more}: it was cut short or overwritten"
    )
    raise MissingDataFile(
        f"Version {snapshot.version} needs {path}, which is {what}.",
        "Pick a later version whose files exist (VACUUM keeps the files of recent "
        "versions), or restore the missing files from a backup.",
    )


def _stored_paths(snapshot: Snapshot, adds: list[AddFile]) -> list[str]:
    """The data files' and the deletion-vector files' full paths."""
    return [snapshot.data_path(a) for a in adds] + [
        dv_file_path(a.deletion_vector, snapshot.table_root)
        for a in adds
        if a.deletion_vector and a.deletion_vector.storage_type != "i"
    ]


def _missing_files(snapshot: Snapshot, paths: list[str]) -> list[str]:
    """Which of ``paths`` (data or DV files) are not in the table's object store.

    The table's prefix is listed once (not a HEAD per file); files outside it are asked
    for one by one.
    """
    store = snapshot.store
    root = snapshot.table_root.rstrip("/") + "/"
    inside = [p for p in paths if p.startswith(root)]
    listed = {root + meta.path for meta in store.walk()} if inside else set()
    return [p for p in paths if (p not in listed if p.startswith(root) else store.head(p) is None)]
