"""Which rows differ between two versions, reading only the files that changed.

Rows in files present in both versions are the same rows, so only the file diff's files
are read (:func:`inspector.rows.delta_engine.read_files`), and their multiset difference
is the row diff: rows rewritten unchanged (copy-on-write DELETE, UPDATE, MERGE, OPTIMIZE)
cancel, and a file whose deletion vector changed is read with each side's vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspector.delta.errors import InvalidInput
from inspector.diff.filediff import FileDiff, diff_files
from inspector.diff.metadiff import ValueChange
from inspector.diff.rowkeys import ChangedRow, RowDiff, RowSamples
from inspector.log.deltalog import DeltaLog
from inspector.rows.netrows import (
    ADDED,
    COUNT,
    REMOVED,
    SIDE,
    STATUS,
    col,
    collect_pages,
    expand,
    net_rows,
    shown_row,
    shown_value,
)
from inspector.rows.session import get_spark
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from inspector.log.snapshot import Snapshot

# Prefixes of the two sides' columns in the key join (numbered, so any column name is safe).
_BEFORE = "__delta_inspector_before_"
_AFTER = "__delta_inspector_after_"
_DIFFERS = "__delta_inspector_differs_"
_CHANGED, _DUPLICATED = "__delta_inspector_changed", "__delta_inspector_duplicated"


def diff_rows(
    log: DeltaLog,
    from_version: int,
    to_version: int,
    *,
    key: Sequence[str] = (),
    offset: int = 0,
    limit: int | None = None,
    file_diff: FileDiff | None = None,
    settings: Settings,
    spark: SparkSession | None = None,
) -> RowDiff:
    """Diff the rows of two versions on Spark (exact counts, one page of samples).

    Args:
        key: Columns identifying a row; with them, keys are reported added, removed or changed.
        offset: The first sample row to return (paging).
        limit: Sample rows per list (default: the ``sample_rows`` setting).
        file_diff: The file diff of these versions, when already computed.

    Raises:
        InvalidInput: If a key column does not exist, or the key is not unique among changed rows.
        VersionNotFound, CorruptLog: If a version cannot be reconstructed.
        SparkUnavailable: If Spark cannot start.
    """
    limit = settings.sample_rows if limit is None else limit
    if offset < 0 or limit < 0:
        raise InvalidInput(
            "The sample offset and size must not be negative.", "Give an offset of 0 or more."
        )
    diff = file_diff or diff_files(log, from_version, to_version)
    sides = log.snapshot(diff.from_version), log.snapshot(diff.to_version)
    columns = _columns(diff)
    key = _check_key(key, columns)
    files = diff.only_in_from + diff.only_in_to
    found: dict[str, int] = {ADDED: 0, REMOVED: 0, _CHANGED: 0}
    samples = RowSamples(offset=offset, limit=limit)
    if files:  # else no file changed, so no row did: no need to start Spark
        net, maps = _net_rows(sides, diff, spark or get_spark(settings), settings.check_workers)
        columns = tuple(c for c in net.columns if c != COUNT)
        totals, frames = _keyed(net, key, columns) if key else _unkeyed(net)
        found, pages = collect_pages(totals, frames, key, offset, limit)
        if found.get(_DUPLICATED):  # the pages of a join on a duplicated key are meaningless
            _refuse_duplicate_keys(net, key, diff)
        samples = RowSamples(
            offset=offset,
            limit=limit,
            added=tuple(shown_row(r, maps) for r in pages["added"]),
            removed=tuple(shown_row(r, maps) for r in pages["removed"]),
            changed=_changed_rows(pages.get("changed", ()), key, columns, maps),
        )
    return RowDiff(
        from_version=diff.from_version,
        to_version=diff.to_version,
        columns=columns,
        key=key,
        added=found[ADDED],
        removed=found[REMOVED],
        changed=found[_CHANGED] if key else None,
        files_read=len(files),
        bytes_read=sum(f.size for f in files),
        samples=samples,
    )


def _net_rows(
    sides: tuple[Snapshot, Snapshot], diff: FileDiff, spark: SparkSession, workers: int
) -> tuple[DataFrame, set[str]]:
    """The changed files' rows with their net multiplicity, and the names of map columns."""
    from inspector.rows.delta_engine import read_files

    before = read_files(sides[0], diff.only_in_from, spark=spark, check_workers=workers)
    after = read_files(sides[1], diff.only_in_to, spark=spark, check_workers=workers)
    before = before.toDF(*[_renames(diff).get(c, c) for c in before.columns])
    return net_rows(before, after)


def _columns(diff: FileDiff) -> tuple[str, ...]:
    """Top-level columns of ``to``, then those only ``from`` has (a renamed column counts once)."""
    renames = _renames(diff)
    from_names = [renames.get(c, c) for c in diff.from_side.metadata.schema.field_names()]
    return tuple(dict.fromkeys(diff.to_side.metadata.schema.field_names() + from_names))


def _renames(diff: FileDiff) -> dict[str, str]:
    """Top-level columns renamed between the sides (matched by column-mapping id): from-name -> to-name."""
    return {
        c.before.name: c.after.name
        for c in diff.metadata.columns_changed
        if len(c.before.path) == 1 and c.before.path != c.after.path
    }


def _check_key(key: Sequence[str], columns: tuple[str, ...]) -> tuple[str, ...]:
    key = tuple(k.strip() for k in key if k and k.strip())
    unknown = [k for k in key if k not in columns]
    if unknown:
        raise InvalidInput(
            f"Key column(s) {', '.join(unknown)} do not exist in either version.",
            f"Pick key columns among: {', '.join(columns)}.",
        )
    if len(set(key)) != len(key):
        raise InvalidInput("A key column is named twice.", "Name each key column once.")
    return key


def _unkeyed(net: DataFrame) -> tuple[DataFrame, dict[str, DataFrame]]:
    """The rows added and removed (one row per occurrence), and their counts."""
    from pyspark.sql import functions as F

    count = F.col(COUNT)
    totals = net.agg(*_side_sums())
    return totals, {"added": expand(net.where(count > 0)), "removed": expand(net.where(count < 0))}


def _side_sums() -> list[Column]:
    """Rows added (``ADDED``) and removed (``REMOVED``): the positive and negative net counts."""
    from pyspark.sql import functions as F

    count = F.col(COUNT)
    return [
        F.sum(F.when(count > 0, count).otherwise(0)).alias(ADDED),
        F.sum(F.when(count < 0, -count).otherwise(0)).alias(REMOVED),
    ]


def _key_totals(net: DataFrame, key: tuple[str, ...]) -> DataFrame:
    """One row: keys duplicated on a side, and keys added, removed and changed."""
    from pyspark.sql import functions as F

    per_key = net.groupBy(*[col(k) for k in key]).agg(*_side_sums())
    added, removed = F.col(ADDED), F.col(REMOVED)
    return per_key.agg(
        *[
            F.sum(condition.cast("int")).alias(name)
            for name, condition in (
                (_DUPLICATED, (added > 1) | (removed > 1)),
                (ADDED, (added > 0) & (removed == 0)),
                (REMOVED, (removed > 0) & (added == 0)),
                (_CHANGED, (added > 0) & (removed > 0)),
            )
        ]
    )


def _refuse_duplicate_keys(net: DataFrame, key: tuple[str, ...], diff: FileDiff) -> None:
    """A key must pick one row per side, else "changed" has no meaning."""
    from pyspark.sql import functions as F

    dups = (
        net.groupBy(F.signum(COUNT).alias(SIDE), *[col(k) for k in key])
        .agg(F.sum(F.abs(COUNT)).alias(COUNT))
        .where(F.col(COUNT) > 1)
        .limit(3)
        .collect()
    )
    examples = "; ".join(
        ", ".join(f"{k}={d[k]!r}" for k in key)
        + f" ({d[COUNT]} rows in version {diff.to_version if d[SIDE] > 0 else diff.from_version})"
        for d in dups
    )
    raise InvalidInput(
        f"The key ({', '.join(key)}) does not identify one row: {examples}.",
        "Pick key columns that are unique in both versions, or diff without a key.",
    )


def _keyed(
    net: DataFrame, key: tuple[str, ...], columns: tuple[str, ...]
) -> tuple[DataFrame, dict[str, DataFrame]]:
    """Keys added, removed and changed: a full outer join of the removed and added rows on
    the key; and their counts."""
    from pyspark.sql import functions as F

    joined = _join_on_key(net, columns, key)
    others = [i for i, c in enumerate(columns) if c not in key]

    def where(status: str) -> DataFrame:
        return joined.where(F.col(STATUS) == status)

    frames = {
        side: where(side).select(*[F.col(f"{prefix}{i}").alias(c) for i, c in enumerate(columns)])
        for side, prefix in (("added", _AFTER), ("removed", _BEFORE))
    }
    frames["changed"] = where("changed").select(
        *[F.col(f"{_AFTER}{columns.index(k)}").alias(k) for k in key],
        *[F.col(f"{p}{i}") for p in (_BEFORE, _AFTER) for i in others],
        *[
            (~F.col(f"{_BEFORE}{i}").eqNullSafe(F.col(f"{_AFTER}{i}"))).alias(f"{_DIFFERS}{i}")
            for i in others
        ],
    )
    return _key_totals(net, key), frames


def _changed_rows(
    page: Sequence[dict[str, Any]], key: tuple[str, ...], columns: tuple[str, ...], maps: set[str]
) -> tuple[ChangedRow, ...]:
    """A page of the ``changed`` frame of :func:`_keyed` as records, for people."""
    others = [(i, c) for i, c in enumerate(columns) if c not in key]
    return tuple(
        ChangedRow(
            key={k: shown_value(r[k], k in maps) for k in key},
            changes=tuple(
                ValueChange(
                    key=c,
                    before=shown_value(r[f"{_BEFORE}{i}"], c in maps),
                    after=shown_value(r[f"{_AFTER}{i}"], c in maps),
                )
                for i, c in others
                if r[f"{_DIFFERS}{i}"]
            ),
        )
        for r in page
    )


def _join_on_key(net: DataFrame, columns: Sequence[str], key: tuple[str, ...]) -> DataFrame:
    """Removed rows as ``before0..n``, added rows as ``after0..n``, joined null-safely on the key."""
    from functools import reduce

    from pyspark.sql import functions as F

    def side(sign: int, prefix: str) -> DataFrame:
        rows = net.where(F.signum(COUNT) == sign)
        return rows.select(
            *[col(c).alias(f"{prefix}{i}") for i, c in enumerate(columns)],
            F.lit(True).alias(f"{prefix}present"),
        )

    index = {c: i for i, c in enumerate(columns)}
    on = reduce(
        lambda x, y: x & y,
        [F.col(f"{_BEFORE}{index[k]}").eqNullSafe(F.col(f"{_AFTER}{index[k]}")) for k in key],
    )
    joined = side(-1, _BEFORE).join(side(1, _AFTER), on, "full_outer")
    return joined.withColumn(
        STATUS,
        F.when(F.col(f"{_BEFORE}present").isNull(), "added")
        .when(F.col(f"{_AFTER}present").isNull(), "removed")
        .otherwise("changed"),
    )
