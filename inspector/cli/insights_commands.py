"""``insights``: a version's layout (file sizes, partitions, small files, stats, DVs) from the log."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import open_table, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.insights import LayoutInsights, layout_insights
from inspector.table.versions import parse_version


@dataclass(frozen=True, kw_only=True)
class InsightsResult(Result):
    """``insights``: the layout record of one version."""

    insights: LayoutInsights
    max_listed: int = 20

    def to_json(self) -> dict[str, Any]:
        return self.insights.to_json()

    def notes(self) -> Iterator[str]:
        return (f"! {p}" for p in self.insights.problems)

    def text(self) -> Iterator[str]:
        r = self.to_json()
        yield f"Layout of {r['table']} at version {r['version']}"
        yield f"files {r['files']:,}  bytes {r['bytes']:,}  rows {_n(r['rows'])}"
        yield (
            f"small files (< {r['targetFileSize']:,} bytes): {r['smallFiles']:,} "
            f"({r['smallBytes']:,} bytes)"
        )
        opt = r["optimize"]
        yield (
            f"OPTIMIZE would compact {opt['compactFiles']:,} files ({opt['compactBytes']:,} bytes) "
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
        for p in r["partitions"][: self.max_listed]:
            yield (
                f"{p['partition'][:40]:<40} {p['files']:>7,} {p['bytes']:>14,} {_n(p['rows']):>12} "
                f"{p['smallFiles']:>6,} {p['dvDeletedRows']:>9,}"
            )
        if len(r["partitions"]) > self.max_listed:
            yield f"… and {len(r['partitions']) - self.max_listed:,} more (use --json)"


def _n(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"


def _insights_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", default=None, help="The version (default: the latest).")


@command(
    "insights",
    "Layout insights from the log: file sizes, small files per partition, what OPTIMIZE "
    "would compact, statistics coverage and deletion-vector load.",
)
@arguments(_insights_args)
def insights_command(args: argparse.Namespace, settings: Settings) -> InsightsResult:
    log = open_table(args, settings).log
    version = log.latest_version if args.version is None else parse_version(args.version, log)
    snapshot = log.snapshot(version)
    found = layout_insights(snapshot, build_history(log, settings))
    return InsightsResult(insights=found, max_listed=settings.max_listed_files)
