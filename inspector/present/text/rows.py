"""What the row commands print without ``--json``: ``show`` and ``changes``."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.delta.text import counted, format_moment
from inspector.present.values import text_value
from inspector.rows.changefeed import ChangeFeed
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
