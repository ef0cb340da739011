"""``explain`` (which files a filter reads) and ``blame`` (who wrote a row), on Spark.

Both take a SQL filter (``--where``), parsed by Spark SQL, the one grammar; a filter that
does not parse or names a column the version lacks is one line, exit 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import open_table, spark_args, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import InvalidInput
from inspector.present.values import text_value
from inspector.rows.blame_records import Blame, Method, RowWrite, WriteKind
from inspector.rows.explain import Explanation
from inspector.settings import Settings
from inspector.table.versions import parse_version


def _where_version_args(parser: argparse.ArgumentParser, what: str) -> None:
    table_arg(parser)
    parser.add_argument(
        "--where",
        required=True,
        help="A SQL WHERE expression over the version's columns, parsed by Spark SQL, "
        'e.g. "id = 42" or "region = \'eu\' AND amount > 100".',
    )
    parser.add_argument("--version", default=None, help=f"The version {what} (default: latest).")


def _where(args: argparse.Namespace) -> str:
    where = (args.where or "").strip()
    if not where:
        raise InvalidInput("--where is empty.", 'Give a SQL filter, e.g. --where "id = 42".')
    return where


@dataclass(frozen=True, kw_only=True)
class ExplainResult(Result):
    """``explain``: the phases of a filtered read and one page of the files it reads."""

    explanation: Explanation
    offset: int
    limit: int

    def to_json(self) -> dict[str, Any]:
        return self.explanation.to_json()

    def text(self) -> Iterator[str]:
        e = self.explanation
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
            yield f"no statistics for {c.column} in {c.files_without:,} files"
        if e.with_deletion_vectors:
            yield f"{e.with_deletion_vectors:,} of the files read have deletion vectors"
        if not e.skipping_enabled:
            yield "Delta's data skipping is off in this Spark session"
        for path in e.log_keeps_fewer:
            yield f"! the log would skip {path}, which Delta reads (please report)"
        page = e.files[self.offset : self.offset + self.limit]
        if not page:
            yield f"no files listed ({len(e.files):,} read; --offset {self.offset})"
            return
        yield f"files read {self.offset + 1}-{self.offset + len(page)} of {len(e.files):,}:"
        for f in page:
            dv = f", {f.deleted_rows:,} rows deleted" if f.deleted_rows else ""
            yield f"  {f.path}\t{f.size:,} bytes{dv}"


def _explain_args(parser: argparse.ArgumentParser) -> None:
    _where_version_args(parser, "to plan the read of")
    parser.add_argument("--offset", type=int, default=0, help="First file to list (paging).")
    parser.add_argument("--limit", type=int, default=50, help="Files to list (default 50).")
    spark_args(parser)


@command("explain", "Which files a filtered read of a version reads, and what pruned the rest.")
@arguments(_explain_args)
def explain_command(args: argparse.Namespace, settings: Settings) -> ExplainResult:
    from inspector.rows.explain import explain_read

    where = _where(args)
    log = open_table(args, settings).log
    version = log.latest_version if args.version is None else parse_version(args.version, log)
    explanation = explain_read(log, version, where, settings=settings)
    return ExplainResult(
        explanation=explanation, offset=max(args.offset, 0), limit=max(args.limit, 0)
    )


@dataclass(frozen=True, kw_only=True)
class BlameResult(Result):
    """``blame``: every version that wrote each matching row."""

    blame: Blame

    def to_json(self) -> dict[str, Any]:
        return self.blame.to_json()

    def text(self) -> Iterator[str]:
        return _blame_lines(self.blame)


def _blame_args(parser: argparse.ArgumentParser) -> None:
    _where_version_args(parser, "whose rows to trace back")
    parser.add_argument(
        "--max-rows",
        type=int,
        default=100,
        help="Refuse when more rows than this match (default 100): narrow --where.",
    )
    spark_args(parser)


@command("blame", "Every version that wrote the rows a filter matches: when, how, before, after.")
@arguments(_blame_args)
def blame_command(args: argparse.Namespace, settings: Settings) -> BlameResult:
    from inspector.rows.blame import blame_rows

    where = _where(args)
    log = open_table(args, settings).log
    version = log.latest_version if args.version is None else parse_version(args.version, log)
    return BlameResult(
        blame=blame_rows(log, version, where, settings=settings, max_rows=args.max_rows)
    )


def _blame_lines(blame: Blame) -> Iterator[str]:
    """``blame`` as text: each row, then each version that wrote it."""
    how = (
        "linked by row id (row tracking)"
        if blame.method is Method.ROW_TRACKING
        else "matched by the filter alone (no row tracking)"
    )
    yield (
        f"version {blame.version}, WHERE {blame.where}: {len(blame.rows)} rows, {how}; "
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
        values = ", ".join(f"{k}={text_value(v)}" for k, v in (shown or {}).items())
        yield f"{label}{state}: {values}"
        for w in row.writes:
            who = w.user or w.engine or "unknown writer"
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
