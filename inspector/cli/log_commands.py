"""Commands that read only the log (no Spark): ``history``, ``files``, ``detail``, ``demo``."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.cli.args import open_table, table_arg
from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import InspectorError
from inspector.delta.schema import ColumnNames, logical_names
from inspector.delta.text import format_time, partition_label
from inspector.log.commit import Commit
from inspector.log.deltalog import table_problems
from inspector.log.tablemeta import metadata_at
from inspector.settings import Settings
from inspector.table.compatibility import Compatibility
from inspector.table.history import (
    HistoryEntry,
    history_page,
    history_record,
    is_copy_problem,
)
from inspector.table.history_pages import HistoryPager, newest_first
from inspector.table.overview import TableDetail, table_detail
from inspector.table.versions import commit_records, file_action_record, parse_version


@dataclass(frozen=True, kw_only=True)
class HistoryResult(Result):
    """``history``: entries newest first, and the table's own problems."""

    entries: Iterable[HistoryEntry]  # a whole history is given as its pages are read
    problems: Sequence[str] = ()

    def to_json(self) -> Iterator[dict[str, Any]]:
        return (history_record(e) for e in self.entries)  # printed one by one

    def notes(self) -> Iterator[str]:
        return (f"! {problem}" for problem in self.problems)

    def text(self) -> Iterator[str]:
        yield (
            f"{'version':>8}  {'timestamp':<27}  {'operation':<22} {'+files':>7} "
            f"{'-files':>7} {'dv upd':>7} {'+bytes':>12} {'-bytes':>12}  rows +ins / −del / upd"
        )
        copies = 0  # a copied table's time mismatch is said once, not once per version
        for e in self.entries:
            f = e.files
            yield (
                f"{e.version:>8}  {format_time(e.timestamps.history) or '':<27}  "
                f"{e.operation[:22]:<22} {f.num_added_files:>7,} {f.num_removed_files:>7,} "
                f"{f.deletion_vector_updates:>7,} {f.added_bytes:>12,} {f.removed_bytes:>12,}  "
                f"{e.rows.label()}"
            )
            for problem in e.problems:
                copies += is_copy_problem(problem)
                if copies <= 1 or not is_copy_problem(problem):
                    yield f"{'':>10}! {problem}"
        if copies > 1:
            yield (
                f"! {copies - 1:,} more versions have the same mismatch of commit time and file "
                "time (--json lists each)."
            )


def _history_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="Show only the newest N versions (only their commits are read).",
    )


@command("history", "Print the table's history, newest first (like DESCRIBE HISTORY).")
@arguments(_history_args)
def history_command(args: argparse.Namespace, settings: Settings) -> HistoryResult:
    log = open_table(args, settings).log
    if args.limit is not None:  # only the newest commits are read
        page = history_page(log, settings, limit=max(args.limit, 0))
        return HistoryResult(entries=page[::-1], problems=table_problems(log, whole=False))
    problems = table_problems(log)
    return HistoryResult(entries=newest_first(HistoryPager(log, settings)), problems=problems)


@dataclass(frozen=True, kw_only=True)
class FilesResult(Result):
    """``files``: one commit's add and remove actions."""

    commit: Commit
    names: ColumnNames

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.commit.version,
            "added": [file_action_record(a, self.names) for a in self.commit.adds],
            "removed": [file_action_record(r, self.names) for r in self.commit.removes],
            "problems": list(self.commit.problems),
        }

    def text(self) -> Iterator[str]:
        record = self.to_json()
        yield (
            f"version {self.commit.version}: {self.commit.commit_info.operation}, "
            f"{len(record['added'])} added, {len(record['removed'])} removed"
        )
        for sign, items in (("+", record["added"]), ("-", record["removed"])):
            for item in items:
                parts = partition_label(item["partitionValues"] or {}, unpartitioned="")
                yield f"{sign} {item['path']}  {item['size']} bytes  {parts}"


def _files_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", required=True, help="The version whose commit to show.")


@command("files", "Print the add and remove actions of one version's commit.")
@arguments(_files_args)
def files_command(args: argparse.Namespace, settings: Settings) -> FilesResult:
    log = open_table(args, settings).log
    version = parse_version(args.version, log)
    commit = commit_records(log, version)  # every action is printed
    try:  # logical column names, as every page shows them
        names = logical_names(metadata_at(log, commit.version, commit=commit).schema)
    except InspectorError:  # the version's state is unreadable: the log's own names
        names = {}
    return FilesResult(commit=commit, names=names)


@dataclass(frozen=True, kw_only=True)
class DetailResult(Result):
    """``detail``: the table's overview at a version, as the Overview page shows it."""

    detail: TableDetail
    compatibility: Compatibility

    def to_json(self) -> dict[str, Any]:
        return {**self.detail.to_json(), "compatibility": self.compatibility.to_json()}

    def text(self) -> Iterator[str]:
        record = self.to_json()
        record["createdAt"] = format_time(self.detail.created_at)  # the one text form
        record["lastModified"] = format_time(self.detail.last_modified)
        width = max(len(k) for k in record)
        for key, value in record.items():
            if key in _WHOLE_LOG and value is None:
                yield f"{key:<{width}}  - (read with --whole-log)"
            elif key not in ("columns", "properties", "compatibility"):
                yield f"{key:<{width}}  {_text_value(value)}"
        yield f"properties:{'' if record['properties'] else ' -'}"
        for key, value in sorted(record["properties"].items()):
            yield f"  {key} = {value}"
        yield "columns:"
        for c in record["columns"]:
            null = "" if c["nullable"] else " NOT NULL"
            yield f"  {c['name']} {c['type']}{null}"
        yield "compatibility:"
        yield from self.compatibility.text()


_WHOLE_LOG = ("earliestVersion", "numCommits", "checkpointVersions")  # only with --whole-log


def _text_value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    return str(value)


def _detail_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--version", default=None, help="The version to describe (default: the latest)."
    )
    parser.add_argument(
        "--whole-log",
        action="store_true",
        help="Also describe the whole log: earliest version, commit count, checkpoints and "
        "how engine compatibility changed (lists the log and reads every commit; by default "
        "only the newest checkpoint at or below the version and the commits after it are read, "
        "and those three fields are null).",
    )


@command(
    "detail",
    "Print the table's overview at a version (like DESCRIBE DETAIL): format, id, location, "
    "partitioning, files, size, properties and protocol.",
)
@arguments(_detail_args)
def detail_command(args: argparse.Namespace, settings: Settings) -> DetailResult:
    log = open_table(args, settings).log
    version = None if args.version is None else parse_version(args.version, log)
    detail, compatibility = table_detail(log, settings, version=version, whole_log=args.whole_log)
    return DetailResult(detail=detail, compatibility=compatibility)


@dataclass(frozen=True, kw_only=True)
class DemoResult(Result):
    """``demo``: where the demo table was written."""

    path: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path}

    def text(self) -> Iterator[str]:
        yield f"Demo table written to {self.path}"


def _demo_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        help="Where to write the demo table (default: the demo_path setting).",
    )
    parser.add_argument("--force", action="store_true", help="Replace an existing demo table.")


@command("demo", "Write the built-in demo table (a realistic history with a checkpoint).")
@arguments(_demo_args)
def demo_command(args: argparse.Namespace, settings: Settings) -> DemoResult:
    from inspector.demo import write_demo_table

    return DemoResult(path=write_demo_table(args.path or settings.demo_path, force=args.force))
