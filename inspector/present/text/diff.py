"""A diff's JSON record (``present.report.diff_record``) as the text ``diff`` prints.

Values go through :mod:`inspector.present.values`, so the text says what the JSON
says: ``2024-03-04T04:35:00Z``, ``(not set)``, ``order_id=373`` — never a Python repr.
"""

from __future__ import annotations

from typing import Any

from inspector.delta.text import counted, partition_label
from inspector.present.values import row_text, setting_text, text_value
from inspector.table.rowcounts import RowsBetween


def diff_lines(record: dict[str, Any], log_rows: RowsBetween | None = None) -> list[str]:
    """The lines of ``diff`` without ``--json``: summary, commits, schema, files, rows."""
    files, sides = record["files"], record["sides"]
    lines = [
        f"version {record['from']} -> {record['to']}: {counted(files['filesAdded'], 'file')} "
        f"added ({counted(files['bytesAdded'], 'byte')}), {files['filesRemoved']:,} removed "
        f"({counted(files['bytesRemoved'], 'byte')}); {sides['from']['numFiles']:,} -> "
        f"{counted(sides['to']['numFiles'], 'file')}"
    ]
    if log_rows is not None:
        lines.append(f"rows added / removed: {log_rows.total.label()} ({log_rows.total.note})")
    by_version = dict(log_rows.by_commit) if log_rows is not None else {}
    for c in record["commits"]:
        rows = by_version.get(c["version"])
        lines.append(
            f"  commit {c['version']:>6} {c['operation'][:22]:<22} +{c['filesAdded']} "
            f"-{c['filesRemoved']} files" + (f", {rows.label()} rows" if rows else "")
        )
    lines += _schema_lines(record)
    for p in record["partitions"]:
        lines.append(
            f"  partition {partition_label(p['partitionValues'])}: +{p['filesAdded']} "
            f"-{p['filesRemoved']} "
            f"files, +{text_value(p['recordsAdded'])} -{text_value(p['recordsRemoved'])} records"
        )
    for sign, paths in (("+", files["added"]), ("-", files["removed"])):
        lines += [f"{sign} {path}" for path in paths]
    rows = record.get("rows")
    if rows is not None:
        lines += _row_lines(rows)
    return lines


def _schema_lines(record: dict[str, Any]) -> list[str]:
    schema = record["schema"]
    lines = [f"+ column {name}" for name in schema["added"]]
    lines += [f"- column {name}" for name in schema["removed"]]
    lines += [f"~ column {c['name']}: {'; '.join(c['changes'])}" for c in schema["changed"]]
    for kind in ("properties", "protocol", "tableFields"):
        lines += [
            f"~ {kind} {v['key']}: {setting_text(v['before'])} -> {setting_text(v['after'])}"
            for v in record[kind]
        ]
    return lines


def _row_lines(rows: dict[str, Any]) -> list[str]:
    changed = f", {rows['changed']:,} changed" if "changed" in rows else ""
    lines = [
        f"rows: {rows['added']:,} added, {rows['removed']:,} removed{changed} "
        f"(read {counted(rows['filesRead'], 'changed file')})"
    ]
    suggestion = rows.get("keySuggestion")
    if suggestion is not None:
        lines.append(
            f"rows matched on the suggested key {', '.join(suggestion['columns'])} (as the app "
            f"does; {suggestion['reason'].rstrip('.')}): --key picks another, --no-key "
            "compares whole rows"
        )
    columns = rows.get("columns") or None
    for sign, sample in (("+", rows["samples"]["added"]), ("-", rows["samples"]["removed"])):
        lines += [f"{sign} {row_text(row, columns)}" for row in sample]
    for c in rows["samples"]["changed"]:
        changes = "; ".join(
            f"{column}: {text_value(v['before'])} -> {text_value(v['after'])}"
            for column, v in c["changes"].items()
        )
        lines.append(f"~ {row_text(c['key'])}: {changes}")
    return lines
