"""The text form of ``diff`` (the JSON form is :func:`inspector.present.report.diff_record`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.delta.text import partition_label


def diff_lines(record: dict[str, Any]) -> Iterator[str]:
    """The lines ``diff`` prints without ``--json``, from its JSON record."""
    files, sides = record["files"], record["sides"]
    yield (
        f"version {record['from']} -> {record['to']}: {files['filesAdded']} files added "
        f"({files['bytesAdded']} bytes), {files['filesRemoved']} removed "
        f"({files['bytesRemoved']} bytes); "
        f"{sides['from']['numFiles']} -> {sides['to']['numFiles']} files"
    )
    for c in record["commits"]:
        yield (
            f"  commit {c['version']:>6} {c['operation'][:22]:<22} "
            f"+{c['filesAdded']} -{c['filesRemoved']} files"
        )
    yield from _schema_lines(record)
    for p in record["partitions"]:
        label = partition_label(p["partitionValues"])
        yield (
            f"  partition {label}: +{p['filesAdded']} -{p['filesRemoved']} files, "
            f"+{p['recordsAdded']} -{p['recordsRemoved']} records"
        )
    for sign, paths in (("+", files["added"]), ("-", files["removed"])):
        for path in paths:
            yield f"{sign} {path}"
    if record.get("rows") is not None:
        yield from _row_lines(record["rows"])


def _schema_lines(record: dict[str, Any]) -> Iterator[str]:
    schema = record["schema"]
    for name in schema["added"]:
        yield f"+ column {name}"
    for name in schema["removed"]:
        yield f"- column {name}"
    for change in schema["changed"]:
        yield f"~ column {change['name']}: {'; '.join(change['changes'])}"
    for kind in ("properties", "protocol", "tableFields"):
        for v in record[kind]:
            yield f"~ {kind} {v['key']}: {v['before']} -> {v['after']}"


def _row_lines(rows: dict[str, Any]) -> Iterator[str]:
    changed = f", {rows['changed']} changed" if "changed" in rows else ""
    yield (
        f"rows: {rows['added']} added, {rows['removed']} removed{changed} "
        f"(read {rows['filesRead']} changed files)"
    )
    for sign, sample in (("+", rows["samples"]["added"]), ("-", rows["samples"]["removed"])):
        for row in sample:
            yield f"{sign} {row}"
    for c in rows["samples"]["changed"]:
        yield f"~ {c['key']}: {c['changes']}"
