"""What a read of a snapshot refuses before Spark starts: never wrong rows.

A reader protocol or table feature Delta Inspector's reader cannot honour, a column type
Spark does not know, a type change Spark cannot widen, and a data or deletion-vector
file that is missing or damaged are each one clear error naming what is wrong, raised
before the (slow) Spark session is paid for. :mod:`inspector.rows.reader` and the
preview call them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from inspector.delta.actions import AddFile
from inspector.delta.errors import MissingDataFile, UnsupportedFeature
from inspector.delta.protocol import (
    MANAGED_FEATURES,
    MAX_READER_VERSION,
    READABLE_FEATURES,
    reader_features,
)
from inspector.files.filecheck import FileState, check_files
from inspector.log.deletion_vectors import dv_file_path
from inspector.log.snapshot import Snapshot
from inspector.rows.typewidening import check_type_changes

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

_STAT_WORKERS = 8  # parallel local stat calls before Spark starts


def check_readable(snapshot: Snapshot) -> None:
    """Refuse tables whose rows we cannot return correctly.

    Raises:
        UnsupportedFeature: Naming the reader feature, protocol version or column type.
    """
    proto = snapshot.protocol
    if proto.min_reader_version > MAX_READER_VERSION:
        raise UnsupportedFeature(
            f"Version {snapshot.version} requires Delta reader version {proto.min_reader_version}; "
            f"Delta Inspector reads versions 1 to {MAX_READER_VERSION}.",
            "Read this table with a newer Delta engine, or pick an older version.",
        )
    unknown = sorted(reader_features(proto) - READABLE_FEATURES)
    if unknown:
        raise UnsupportedFeature(
            f"Version {snapshot.version} uses the table feature(s) {', '.join(unknown)}, which "
            "Delta Inspector cannot read correctly, so it shows no rows rather than wrong ones.",
            "Read it with Delta Lake's engine (spark_engine delta, the default, with the jars "
            "./dev.sh fetches), or pick a version without it.",
        )
    spark_schema(snapshot)  # refuses column types Spark does not know
    check_type_changes(snapshot)


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

    Raises:
        MissingDataFile: Naming the first missing or damaged file and how many there are.
    """
    if snapshot.store.local_path() is None:  # an object store: one listing, no stat
        _check_stored_files(snapshot, list(adds))
        return
    issues = check_files(snapshot.table_root, list(adds), workers=_STAT_WORKERS)
    if issues:
        first = issues[0]
        more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
        if first.state is FileState.MISSING:
            what = "missing{more}: the version's data was vacuumed or not copied with the table"
        else:
            what = f"damaged ({first.detail}){more}: it was cut short or overwritten"
        raise MissingDataFile(
            f"Version {snapshot.version} needs {first.local_path}, which is "
            + what.format(more=more)
            + ".",
            "Pick a later version whose files exist (VACUUM keeps the files of recent "
            "versions), or restore the missing files from a backup.",
        )


def _check_stored_files(snapshot: Snapshot, adds: list[AddFile]) -> None:
    from inspector.rows.readpath import missing_files

    missing = missing_files(
        snapshot,
        [snapshot.data_path(a) for a in adds]
        + [
            dv_file_path(a.deletion_vector, snapshot.table_root)
            for a in adds
            if a.deletion_vector and a.deletion_vector.storage_type != "i"
        ],
    )
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise MissingDataFile(
            f"Version {snapshot.version} needs {missing[0]}, which is missing{more}: the "
            "version's data was vacuumed or not copied with the table.",
            "Pick a later version whose files exist (VACUUM keeps the files of recent "
            "versions), or restore the missing files from a backup.",
        )


def spark_schema(snapshot: Snapshot) -> StructType:
    """The snapshot's logical schema as a Spark ``StructType`` (Delta uses Spark's JSON).

    Raises:
        UnsupportedFeature: If a column type is unknown to this Spark version.
    """
    from pyspark.sql.types import StructType

    try:
        return StructType.fromJson(json.loads(snapshot.metadata.schema_string))
    except Exception as exc:
        raise UnsupportedFeature(
            f"Version {snapshot.version}'s schema has a column type Spark {_spark_version()} "
            f"cannot read ({exc}).",
            "Read this table with an engine that supports the type.",
        ) from None


def _spark_version() -> str:
    import pyspark

    return pyspark.__version__
