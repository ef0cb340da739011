"""A diff as data (the JSON contract of ``diff --json`` and the app's export) and as a postmortem.

"added" always means "only in the ``to`` version" and "removed" "only in the
``from`` version", whichever of the two is newer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from inspector.delta.actions import DeletionVector
from inspector.delta.jsonvalue import camel_json, json_value
from inspector.delta.schema import logical_names
from inspector.delta.text import counted, format_time
from inspector.diff.filediff import CommitChange, FileDiff, PartitionChange
from inspector.diff.metadiff import RowKind, metadata_rows
from inspector.diff.rowkeys import RowDiff
from inspector.present.values import EMPTY, json_text, row_text, setting_text, text_value
from inspector.table.history_time import iso
from inspector.table.rowcounts import RowsBetween
from inspector.table.versions import file_action_record

_T = TypeVar("_T")


def diff_record(
    diff: FileDiff,
    rows: RowDiff | None = None,
    *,
    table: str | None = None,
    log_rows: RowsBetween | None = None,
) -> dict[str, Any]:
    """The whole diff as JSON-ready data; ``rows`` (the row diff) and ``log_rows`` (rows
    added and removed as the log tells) when computed."""
    meta = diff.metadata.to_json()
    from_names = logical_names(diff.from_side.metadata.schema)
    to_names = logical_names(diff.to_side.metadata.schema)
    record = {
        "table": table,
        "from": diff.from_version,
        "to": diff.to_version,
        "schema": meta["schema"],
        "files": {
            "added": [f.path for f in diff.only_in_to],
            "removed": [f.path for f in diff.only_in_from],
            **camel_json(diff.totals),
            "addedFiles": [file_action_record(f, to_names) for f in diff.only_in_to],
            "removedFiles": [file_action_record(f, from_names) for f in diff.only_in_from],
        },
        "partitions": [
            {"partitionValues": dict(p.partition_values), **camel_json(p.totals)}
            for p in diff.by_partition
        ],
        "commits": [_commit(c) for c in diff.by_commit],
        **{key: meta[key] for key in ("properties", "protocol", "tableFields")},
        "sides": {
            name: camel_json(side, "version", "num_files", "size_in_bytes", "num_records")
            for name, side in (("from", diff.from_side), ("to", diff.to_side))
        },
    }
    if rows is not None:
        samples = rows.samples
        counts = ("added", "removed", *(("changed",) if rows.key else ()))
        record["rows"] = {
            **camel_json(rows, *counts, "key", "columns", "files_read", "bytes_read"),
            "samples": {
                **camel_json(samples, "offset", "limit", "added", "removed"),
                "changed": [
                    {
                        "key": c.key,
                        "changes": {v.key: camel_json(v, "before", "after") for v in c.changes},
                    }
                    for c in samples.changed
                ],
            },
        }
    if log_rows is not None:
        record["rowsFromLog"] = {
            **log_rows.total.to_json(),
            "byCommit": [{"version": v, **c.to_json()} for v, c in log_rows.by_commit],
        }
    return dict(json_value(record))


def to_json(
    diff: FileDiff,
    rows: RowDiff | None = None,
    *,
    table: str | None = None,
    log_rows: RowsBetween | None = None,
) -> str:
    """:func:`diff_record` as the JSON text ``diff --json`` prints (the app's JSON export)."""
    return json_text(diff_record(diff, rows, table=table, log_rows=log_rows))


def _commit(c: CommitChange) -> dict[str, Any]:
    return {
        **camel_json(c, "version", "operation"),
        "timestamp": iso(c.timestamp),
        "commitInfoTimestamp": iso(c.commit_info_timestamp),
        **camel_json(c, "changes_metadata", "changes_protocol"),
        **camel_json(c.totals),
    }


# ----- Markdown postmortem ---------------------------------------------------------------------


def markdown_report(
    diff: FileDiff,
    rows: RowDiff | None = None,
    *,
    table: str,
    max_files: int = 100,
    log_rows: RowsBetween | None = None,
) -> str:
    """A postmortem of what changed between two versions, as Markdown (``max_files`` per
    side listed; the JSON export lists all)."""
    sections = [
        _md_summary(diff, table, log_rows),
        _md_commits(diff, log_rows),
        _md_metadata(diff),
        _md_partitions(diff),
        _md_files(diff, max_files),
        _md_rows(rows),
    ]
    return "\n\n".join(s for s in sections if s) + "\n"


def _cell(value: Any) -> str:
    text = EMPTY if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: Iterable[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _table_of(columns: Mapping[str, Callable[[_T], Any]], items: Iterable[_T]) -> str:
    """A table with a row per item: each column's header, and its value of the item."""
    return _table(list(columns), [[value(item) for value in columns.values()] for item in items])


def _md_summary(diff: FileDiff, table: str, log_rows: RowsBetween | None) -> str:
    t, a, b = diff.totals, diff.from_side, diff.to_side
    direction = (
        "" if a.version <= b.version else " (backwards: from the newer to the older version)"
    )
    lines = [
        f"# Postmortem: version {a.version} → version {b.version}",
        "",
        f"Table: `{table}`{direction}",
        "",
        _table(
            ["", f"version {a.version} (from)", f"version {b.version} (to)"],
            [
                ["files", a.num_files, b.num_files],
                ["bytes", a.size_in_bytes, b.size_in_bytes],
                ["records (from stats)", a.num_records, b.num_records],
            ],
        ),
        "",
        f"Files added: **{t.files_added}** ({_bytes_records(t.bytes_added, t.records_added)}); "
        f"files removed: **{t.files_removed}** "
        f"({_bytes_records(t.bytes_removed, t.records_removed)}); "
        f"files given a new deletion vector: **{t.deletion_vector_updates}**. "
        f"Commits in between: {len(diff.by_commit)}.",
    ]
    if log_rows is not None:
        total = log_rows.total
        lines += ["", f"Rows +inserted / −deleted / updated: **{total.label()}** ({total.note})."]
    return "\n".join(lines)


def _bytes_records(size: int, records: int | None) -> str:
    return f"{counted(size, 'byte')}, {counted(records, 'record')}"


def _md_commits(diff: FileDiff, log_rows: RowsBetween | None) -> str:
    if not diff.by_commit:
        return ""
    by_version = dict(log_rows.by_commit) if log_rows is not None else {}

    def changes(c: CommitChange) -> str:
        flags = (("metadata", c.changes_metadata), ("protocol", c.changes_protocol))
        return ", ".join(name for name, on in flags if on)

    columns: dict[str, Callable[[CommitChange], Any]] = {
        "version": lambda c: c.version,
        "timestamp": lambda c: format_time(c.timestamp),
        "writer's commitInfo time": lambda c: format_time(c.commit_info_timestamp),
        "operation": lambda c: c.operation,
        "+files": lambda c: c.totals.files_added,
        "-files": lambda c: c.totals.files_removed,
        "files given a deletion vector": lambda c: c.totals.deletion_vector_updates,
        "+bytes": lambda c: c.totals.bytes_added,
        "-bytes": lambda c: c.totals.bytes_removed,
        "rows +inserted / −deleted / updated": lambda c: (
            by_version[c.version].label() if c.version in by_version else None
        ),
        "changes": changes,
    }
    return "## Commits in between\n\n" + _table_of(columns, diff.by_commit)


def metadata_sections(diff: FileDiff) -> Iterator[tuple[str, list[str], list[list[Any]]]]:
    """A metadata diff as the tables the postmortem and the Diff page show: each one's
    title, header and rows (columns, then properties, protocol and table settings)."""
    rows = metadata_rows(diff.metadata)
    columns = [
        [r.kind.removeprefix("column "), r.name, "; ".join(r.changes) or r.after or r.before]
        for r in rows
        if r.kind.is_column
    ]
    if columns:
        yield "Columns", ["change", "column", "type / what changed"], columns
    for title, kind in (
        ("Properties", RowKind.PROPERTY),
        ("Protocol", RowKind.PROTOCOL),
        ("Table", RowKind.TABLE),
    ):
        values = [
            [r.name, setting_text(r.before), setting_text(r.after)] for r in rows if r.kind is kind
        ]
        if values:
            yield title, ["key", "before", "after"], values


def _md_metadata(diff: FileDiff) -> str:
    parts = ["## Schema, properties and protocol"]
    if diff.metadata.is_empty:
        parts.append("No change.")
    for title, header, rows in metadata_sections(diff):
        parts.append(f"### {title}\n\n" + _table(header, rows))
    return "\n\n".join(parts)


def _md_partitions(diff: FileDiff) -> str:
    if not diff.by_partition:
        return ""
    columns: dict[str, Callable[[PartitionChange], Any]] = {
        "partition": lambda p: p.label,
        "+files": lambda p: p.totals.files_added,
        "-files": lambda p: p.totals.files_removed,
        "+bytes": lambda p: p.totals.bytes_added,
        "-bytes": lambda p: p.totals.bytes_removed,
        "+records": lambda p: p.totals.records_added,
        "-records": lambda p: p.totals.records_removed,
    }
    return "## Partitions\n\n" + _table_of(columns, diff.by_partition)


def _md_files(diff: FileDiff, max_files: int) -> str:
    parts = ["## Files"]
    for title, files in (
        ("Added (only in the to version)", diff.only_in_to),
        ("Removed (only in the from version)", diff.only_in_from),
    ):
        rows = [
            [f"`{f.path}`", f.size, f.num_live_records, _deleted_rows(f.deletion_vector)]
            for f in files[:max_files]
        ]
        body = _table(["path", "bytes", "records", "deletion vector"], rows) if files else "None."
        if len(files) > max_files:
            body += f"\n\n… and {len(files) - max_files} more (see the JSON export)."
        parts.append(f"### {title}: {len(files)}\n\n{body}")
    return "\n\n".join(parts)


def _deleted_rows(dv: DeletionVector | None) -> str:
    return f"{dv.cardinality} rows deleted" if dv else ""


def _md_rows(rows: RowDiff | None) -> str:
    if rows is None:
        return "## Rows\n\nRows were not compared (the file diff above needs no data read)."
    counts = f"Rows added: **{rows.added}**, removed: **{rows.removed}**"
    if rows.key:
        counts = (
            f"By key ({', '.join(rows.key)}): keys added **{rows.added}**, removed "
            f"**{rows.removed}**, changed **{rows.changed}**"
        )
    parts = [
        "## Rows",
        f"{counts}. Read {counted(rows.files_read, 'changed file')} "
        f"({counted(rows.bytes_read, 'byte')}).",
    ]
    for title, sample in (("Added", rows.samples.added), ("Removed", rows.samples.removed)):
        if sample:
            parts.append(
                f"### {title} (first {len(sample)})\n\n"
                + _table(
                    list(rows.columns),
                    [[text_value(r.get(c)) for c in rows.columns] for r in sample],
                )
            )
    if rows.samples.changed:
        changed = [
            [row_text(c.key), v.key, text_value(v.before), text_value(v.after)]
            for c in rows.samples.changed
            for v in c.changes
        ]
        parts.append(
            f"### Changed (first {len(rows.samples.changed)})\n\n"
            + _table(["key", "column", "before", "after"], changed)
        )
    return "\n\n".join(parts)
