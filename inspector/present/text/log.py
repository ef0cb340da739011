"""What the log commands print without ``--json``: ``history``, ``files``, ``detail``,
``demo`` and ``insights``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from inspector.delta.engines import Support
from inspector.delta.text import counted, format_moment, format_time, partition_label
from inspector.table.compatibility import Verdict
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_time import is_copy_problem


def history_lines(entries: Iterable[HistoryEntry]) -> Iterator[str]:
    """``history``: one line per version, newest first as given, its problems beneath it;
    a copied table's time mismatch is said once, not once per version."""
    yield (
        f"{'version':>8}  {'timestamp':<27}  {'operation':<22} {'+files':>7} "
        f"{'-files':>7} {'dv upd':>7} {'+bytes':>12} {'-bytes':>12}  rows +ins / −del / upd"
    )
    copies = 0
    for e in entries:
        f = e.files
        yield (
            f"{e.version:>8}  {format_time(e.timestamps.history) or '':<27}  "
            f"{e.operation[:22]:<22} {f.num_added_files:>7,} {f.num_removed_files:>7,} "
            f"{f.deletion_vector_updates:>7,} {f.added_bytes:>12,} {f.removed_bytes:>12,}  "
            f"{e.rows.label()}"
        )
        if e.staged:
            yield f"{'':>10}~ staged commit: {e.staged}"
        for problem in e.problems:
            copies += is_copy_problem(problem)
            if copies <= 1 or not is_copy_problem(problem):
                yield f"{'':>10}! {problem}"
    if copies > 1:
        more = counted(copies - 1, "more version", "more versions")
        verb = "has" if copies == 2 else "have"
        yield f"! {more} {verb} the same mismatch of commit time and file time (--json lists each)."


def files_lines(record: dict[str, Any], *, operation: str) -> Iterator[str]:
    """``files``: the commit's operation, then each added (``+``) and removed (``-``) file
    of its JSON record."""
    yield (
        f"version {record['version']}: {operation}, "
        f"{len(record['added'])} added, {len(record['removed'])} removed"
    )
    for sign, items in (("+", record["added"]), ("-", record["removed"])):
        for item in items:
            parts = partition_label(item["partitionValues"] or {}, unpartitioned="")
            yield f"{sign} {item['path']}  {counted(item['size'], 'byte')}  {parts}"


def detail_lines(record: Mapping[str, Any]) -> Iterator[str]:
    """``detail``: the overview's fields, properties, columns and engine compatibility, from
    its JSON record (``detail --json``, kept or computed)."""
    fields = {key: value for key, value in record.items() if key != "compatibility"}
    for key in ("createdAt", "lastModified"):  # ISO 8601 in JSON, the one text form here
        fields[key] = fields[key] and format_moment(datetime.fromisoformat(fields[key]))
    width = max(len(k) for k in fields)
    for key, value in fields.items():
        if key in _WHOLE_LOG and value is None:
            yield f"{key:<{width}}  - (read with --whole-log)"
        elif key not in ("columns", "properties"):
            yield f"{key:<{width}}  {_text_value(value)}"
    yield f"properties:{'' if fields['properties'] else ' -'}"
    for key, value in sorted(fields["properties"].items()):
        yield f"  {key} = {value}"
    yield "columns:"
    for c in fields["columns"]:
        null = "" if c["nullable"] else " NOT NULL"
        yield f"  {c['name']} {c['type']}{null}"
    yield "compatibility:"
    for e in record["compatibility"]["engines"]:
        read, write = (verdict_text(Verdict.from_json(e[access])) for access in ("read", "write"))
        yield f"  {e['label']}: read {read}; write {write}"
    for c in record["compatibility"]["changes"]:
        yield f"  {c['text']}"


_WHOLE_LOG = ("earliestVersion", "numCommits", "checkpointVersions")  # only with --whole-log


def verdict_text(v: Verdict, *, caveats_below: bool = False) -> str:
    """An engine's verdict in words, wherever it is shown: ``yes (since 3.0)``, ``no
    [deletionVectors]``, its caveats inline or, where they are listed apart, pointed to."""
    since = f" (since {v.since})" if v.since and v.support is Support.YES else ""
    blocking = f" [{', '.join(v.blocking)}]" if v.blocking else ""
    caveats = f" (with caveats: {'; '.join(v.caveats)})" if v.caveats else ""
    if caveats and caveats_below:
        caveats = " (with caveats, below)"
    return f"{v.support}{since}{blocking}{caveats}"


def _text_value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    return str(value)


def demo_lines(path: str) -> Iterator[str]:
    """``demo``: where the demo table was written."""
    yield f"Demo table written to {path}"


def insights_lines(r: dict[str, Any], *, max_listed: int) -> Iterator[str]:
    """``insights``: the layout record of one version (``insights --json``), partitions capped."""
    yield f"Layout of {r['table']} at version {r['version']}"
    yield f"files {r['files']:,}  bytes {r['bytes']:,}  rows {_n(r['rows'])}"
    yield (
        f"small files (< {r['targetFileSize']:,} bytes): {r['smallFiles']:,} "
        f"({r['smallBytes']:,} bytes)"
    )
    opt = r["optimize"]
    yield (
        f"OPTIMIZE would compact {counted(opt['compactFiles'], 'file')} "
        f"({counted(opt['compactBytes'], 'byte')}) "
        f"into ≈{opt['filesAfter']:,}"
    )
    yield f"rows deleted by deletion vectors: {r['dvDeletedRows']:,}  records in files {_n(r['records'])}"
    stats = r["stats"]
    yield (
        f"files with stats: {stats['filesWithStats']:,}/{stats['files']:,}  "
        f"({stats['policy']}; observed: {', '.join(stats['observedColumns']) or '-'})"
    )
    yield f"partitions {r['partitionCount']:,}  skew (largest/median bytes) {_n(r['skew'])}"
    yield "size histogram:"
    for b in r["sizeHistogram"]:
        yield f"  {b['label']:>12}  {b['files']:>8,} files  {b['bytes']:>16,} bytes"
    yield f"{'partition':<40} {'files':>7} {'bytes':>14} {'rows':>12} {'small':>6} {'dv rows':>9}"
    for p in r["partitions"][:max_listed]:
        yield (
            f"{p['partition'][:40]:<40} {p['files']:>7,} {p['bytes']:>14,} {_n(p['rows']):>12} "
            f"{p['smallFiles']:>6,} {p['dvDeletedRows']:>9,}"
        )
    if len(r["partitions"]) > max_listed:
        yield f"… and {len(r['partitions']) - max_listed:,} more (use --json)"


def _n(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"
