"""What the commands that read rows print without ``--json``: ``show``, ``changes``,
``explain`` and ``blame``."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.delta.text import counted, format_moment
from inspector.present.values import row_text, text_value
from inspector.rows.blame_records import Blame, Method, RowWrite, WriteKind
from inspector.rows.changefeed import ChangeFeed
from inspector.rows.explain import Explanation
from inspector.rows.preview import Preview
from inspector.table.timetravel import ResolvedVersion


def show_lines(preview: Preview, chosen: ResolvedVersion) -> Iterator[str]:
    """``show``: how the version was chosen, what was read, then the rows (tab-separated)."""
    if chosen.timestamp is not None:
        yield f"{format_moment(chosen.timestamp)} -> version {preview.version}"
    names = [c.name for c in preview.columns]
    where = f" matching {preview.where}" if preview.where else ""
    yield (
        f"version {preview.version}: {counted(preview.num_rows, 'row')}{where}; read "
        f"{counted(preview.files_read, 'file')} ({counted(preview.bytes_read, 'byte')}); "
        f"showing {len(preview.rows):,}"
    )
    yield "\t".join(f"{c.name} ({c.type})" for c in preview.columns)
    for row in preview.rows:
        yield "\t".join(text_value(row[n]) for n in names)


def changes_lines(feed: ChangeFeed) -> Iterator[str]:
    """``changes``: counts per change type, then one page of change rows (tab-separated)."""
    counts = ", ".join(f"{k} {n:,}" for k, n in feed.counts.items())
    where = f" matching {feed.where}" if feed.where else ""
    yield (
        f"versions {feed.from_version} to {feed.to_version}: {counted(feed.num_rows, 'change')}"
        f"{where} ({counts}); showing {len(feed.rows):,} from row {feed.offset + 1:,}"
    )
    yield "\t".join(feed.columns)
    for row in feed.rows:
        yield "\t".join(text_value(row.get(c)) for c in feed.columns)


def explain_lines(e: Explanation, *, offset: int, limit: int) -> Iterator[str]:
    """``explain``: the files at each phase, what skips nothing, then a page of files read."""
    yield f"version {e.version}, WHERE {e.where}"
    for label, tally in (
        ("in the version", e.total),
        ("after partition pruning", e.after_partitions),
        ("after statistics", e.after_stats),
        ("read by Delta's planner", e.read),
    ):
        yield f"  {label:<26}{tally.files:>10,} files {tally.bytes:>16,} bytes"
    for name, parts in (("partition", e.partition_filters), ("data", e.data_filters)):
        if parts:
            yield f"{name} filters: " + "; ".join(parts)
    for u in e.unjudged:
        yield f"cannot skip files: {u.sql} ({u.reason})"
    for c in e.columns_without_stats:
        yield f"no statistics for {c.column} in {counted(c.files_without, 'file')}"
    if e.with_deletion_vectors:
        yield f"{e.with_deletion_vectors:,} of the files read have deletion vectors"
    if not e.skipping_enabled:
        yield "Delta's data skipping is off in this Spark session"
    for path in e.log_keeps_fewer:
        yield f"! the log would skip {path}, which Delta reads (please report)"
    page = e.page(offset, limit)
    if not page:
        yield f"no files listed ({e.files.num_rows:,} read; --offset {offset})"
        return
    yield f"files read {offset + 1}-{offset + len(page)} of {e.files.num_rows:,}:"
    for f in page:
        dv = f", {f.deleted_rows:,} rows deleted" if f.deleted_rows else ""
        yield f"  {f.path}\t{f.size:,} bytes{dv}"


def blame_lines(blame: Blame) -> Iterator[str]:
    """``blame``: each row, then each version that wrote it with what changed."""
    how = (
        "linked by row id (row tracking)"
        if blame.method is Method.ROW_TRACKING
        else "matched by the filter alone (no row tracking)"
    )
    yield (
        f"version {blame.version}, WHERE {blame.where}: {counted(len(blame.rows), 'row')}, {how}; "
        f"read {len(blame.versions_read)} of {blame.versions_considered} versions "
        "(statistics pruned the rest)"
    )
    for cut in blame.cuts:
        yield f"! history cut at version {cut.version}: {cut.reason}"
    for note in blame.notes:
        yield f"note: {note}"
    for row in blame.rows:
        label = f"row id {row.row_id}" if row.row_id is not None else "row"
        shown = row.current if row.current is not None else row.writes[-1].before
        state = "" if row.current is not None else " (deleted)"
        yield f"{label}{state}: {row_text(shown or {})}"
        for w in row.writes:
            who = w.user_name or w.engine_info or "unknown writer"
            yield f"  v{w.version} {w.timestamp or '?'} {w.operation} by {who}: {w.change}"
            for name, value in _changes(w):
                yield f"      {name}: {value}"


def _changes(write: RowWrite) -> Iterator[tuple[str, str]]:
    before, after = write.before or {}, write.after or {}
    for name in dict.fromkeys([*before, *after]):
        old, new = before.get(name), after.get(name)
        if write.change is WriteKind.UPDATED and old == new:
            continue
        if write.change is WriteKind.UPDATED:
            yield name, f"{text_value(old)} -> {text_value(new)}"
        elif write.change is WriteKind.DELETED:
            yield name, f"{text_value(old)} (deleted)"
