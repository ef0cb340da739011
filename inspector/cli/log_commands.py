"""Commands that read only the log (no Spark): ``history``, ``files``, ``detail``, ``demo``."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from inspector.cli.args import table_arg, table_version
from inspector.cli.registry import arguments, command
from inspector.cli.render import Rendered, Result, elements_text
from inspector.settings import Settings

if TYPE_CHECKING:
    from inspector.log.deltalog import DeltaLog
    from inspector.log.index.answers import KeptAnswer
    from inspector.table.history import HistoryPager
    from inspector.table.history_entry import HistoryEntry

# Each command imports what only it uses when it runs (start-up time): ``detail --json``
# answered from the log index needs neither the overview, engine compatibility nor text.


def _history_result(
    entries: Iterable[HistoryEntry], warnings: list[str], pager: HistoryPager | None = None
) -> Result:
    """``history``: entries newest first (a whole history given as its pages are read, by
    ``pager``), printed one by one, and the table's own problems."""

    def note() -> tuple[str, ...]:  # what filters chose, said after the entries were read
        from inspector.table.history_filter import FilteredHistory

        found = entries.note() if isinstance(entries, FilteredHistory) else None
        return () if found is None else (found,)

    def json() -> Iterator[Any]:
        from inspector.table.history_entry import history_record

        if pager is None:
            return (history_record(e) for e in entries)
        batches = (elements_text([history_record(e) for e in b]) for b in _batches(entries))
        return _kept(pager, batches, text=False)

    def lines() -> Iterable[str]:
        from inspector.present.text.log import history_lines

        found = history_lines(entries)
        return found if pager is None else _kept(pager, found, text=True)

    return Result(json=json, lines=lines, closing=note, warnings=warnings)


def _kept(pager: HistoryPager, parts: Iterator[str], *, text: bool) -> Iterator[Any]:
    """A whole history's JSON elements (its text lines with ``text``): the text kept in the
    log index when its entries are a kept history whose text the renderer wrote before, else
    ``parts`` (the entries' JSON a batch at a time, or their lines) as given (and that text
    kept, when the entries are a kept history)."""
    pager.read_older()  # a kept history is known by its first page
    kept = pager.kept.rendered(text=text) if pager.kept is not None else None
    if kept is not None:
        yield str(kept, "utf-8") if text else Rendered(kept)
        return
    texts = []  # the kept text joins them as the renderer does
    for part in parts:
        texts.append(part.encode())
        yield part if text else Rendered(part)
    if pager.kept is not None:
        pager.kept.keep_rendered(texts, text=text)


def _batches(entries: Iterable[HistoryEntry], size: int = 256) -> Iterator[list[HistoryEntry]]:
    """Entries a list of ``size`` at a time; when reading them fails part-way, those read
    are given first (the array printed so far holds every entry read)."""
    found = iter(entries)
    while True:
        batch: list[HistoryEntry] = []
        try:
            batch += itertools.islice(found, size)
        except Exception:
            if batch:
                yield batch
            raise
        if not batch:
            return
        yield batch


#: History's repeatable filters (``--operation WRITE --operation MERGE``) and their help.
_REPEATED_FILTERS = {
    "--operation": "Only this operation, case aside (e.g. WRITE, MERGE, 'CREATE TABLE'); repeat "
    "for several.",
    "--user": "Only versions whose userName contains this (open-source Delta Lake records none; "
    "Databricks does).",
    "--engine": "Only versions whose engineInfo contains this (e.g. Apache-Spark, delta-rs).",
}


def _history_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument(
        "--limit",
        type=int,
        help="Show only the newest N versions (only their commits are read); filters apply "
        "to those.",
    )
    for flag, help in _REPEATED_FILTERS.items():
        parser.add_argument(flag, action="append", default=[], help=help)
    parser.add_argument(
        "--since",
        help="Only versions at or after this time (read as show --timestamp reads it; UTC unless "
        "a zone is given).",
    )
    parser.add_argument(
        "--until",
        help="Only versions at or before this time (as --since).",
    )


@command("history", "Print the table's history, newest first (like DESCRIBE HISTORY).")
@arguments(_history_args)
def history_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.log.deltalog import table_problems
    from inspector.table import open_table
    from inspector.table.history import HistoryPager, history_page, newest_first
    from inspector.table.history_filter import FilteredHistory, HistoryFilter, filtered_history
    from inspector.table.staged import staged_commits, staged_entries
    from inspector.table.timetravel import parse_timestamp

    keep = HistoryFilter(
        operations=tuple(args.operation),
        users=tuple(args.user),
        engines=tuple(args.engine),
        since=None if args.since is None else parse_timestamp(args.since),
        until=None if args.until is None else parse_timestamp(args.until),
    )
    table = open_table(args.table, settings)
    log = table.log
    # A catalog-managed table's staged commits come first (newest), marked with their status.
    staged = staged_entries(table, staged_commits(table, settings), settings)[::-1]
    if args.limit is not None:  # only the newest commits are read
        page = history_page(log, settings, limit=max(args.limit, 0))[::-1]
        chosen = FilteredHistory([*staged, *page][: max(args.limit, 0)], keep)
        return _history_result(chosen, table_problems(log, whole=False))
    problems = table_problems(log)
    if keep.any:
        chosen = filtered_history(log, settings, keep, lead=staged)
        return _history_result(chosen, problems)
    pager = HistoryPager(log, settings)
    pages = itertools.chain(staged, newest_first(pager))
    return _history_result(pages, problems, None if staged else pager)


def _files_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", required=True, help="The version whose commit to show.")


@command("files", "Print the add and remove actions of one version's commit.")
@arguments(_files_args)
def files_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.delta.errors import InspectorError
    from inspector.delta.schema import logical_names
    from inspector.log.tablemeta import metadata_at
    from inspector.present.text.log import files_lines
    from inspector.table.versions import commit_records, file_action_record

    log, version = table_version(args, settings)
    commit = commit_records(log, version)  # every action is printed
    try:  # logical column names, as every page shows them
        names = logical_names(metadata_at(log, commit.version, commit=commit).schema)
    except InspectorError:  # the version's state is unreadable: the log's own names
        names = {}
    record = {
        "version": commit.version,
        "added": [file_action_record(a, names) for a in commit.adds],
        "removed": [file_action_record(r, names) for r in commit.removes],
        "problems": list(commit.problems),
    }
    operation = commit.commit_info.operation
    return Result(json=lambda: record, lines=lambda: files_lines(record, operation=operation))


def _detail_args(parser: argparse.ArgumentParser) -> None:
    table_arg(parser)
    parser.add_argument("--version", help="The version to describe (default: the latest).")
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
def detail_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.table import open_table

    log = open_table(args.table, settings).log
    version = None
    if args.version is not None:  # the log's parsing: not imported for a kept answer
        from inspector.table.versions import parse_version

        version = parse_version(args.version, log)
    kept = None if version is not None or args.whole_log else _kept_detail(log, settings)
    text = None if kept is None else kept.load()
    if text is not None:  # the text is rendered from the kept record, as from a new one
        return Result(json=lambda: Rendered(text), lines=lambda: _detail_lines(orjson.loads(text)))
    from inspector.present.values import json_text
    from inspector.table.overview import table_detail

    detail, compatibility = table_detail(log, settings, version=version, whole_log=args.whole_log)
    record = {**detail.to_json(), "compatibility": compatibility.to_json()}
    if kept is not None:
        kept.save(json_text(record))
    return Result(json=lambda: record, lines=lambda: _detail_lines(record))


def _detail_lines(record: dict[str, Any]) -> Iterable[str]:
    from inspector.present.text.log import detail_lines

    return detail_lines(record)


def _kept_detail(log: DeltaLog, settings: Settings) -> KeptAnswer | None:
    """Where the latest version's ``detail --json`` is kept (a table on a local disk: on an
    object store the index serves its commits and checkpoints, and the times of the commits
    before the checkpoint would cost a listing), under what it is computed from: the files
    from the newest checkpoint on, and every log file's size and time (the latest version's
    file-time timestamp chains from version 0): the whole listing's record."""
    if log.index is None or log.storage.local_path() is None:
        return None
    from inspector.log.index.answers import KeptAnswer, listing_identity

    tail, whole = listing_identity(log.tail), log.whole_key()
    if tail is None or whole is None:
        return None
    identity = [log.latest_version, settings.timestamp_tolerance_seconds, tail, whole]
    return KeptAnswer(log.index, "detail", identity)


def _demo_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        nargs="?",
        help="Where to write the demo table (default: the demo_path setting).",
    )
    parser.add_argument("--force", action="store_true", help="Replace an existing demo table.")


@command("demo", "Write the built-in demo table (a realistic history with a checkpoint).")
@arguments(_demo_args)
def demo_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.demo import write_demo_table
    from inspector.present.text.log import demo_lines

    path = write_demo_table(args.path or settings.demo_path, force=args.force)
    return Result(json=lambda: {"path": path}, lines=lambda: demo_lines(path))
