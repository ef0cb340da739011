"""The whole history's bulk read gives what reading each commit on its own gives.

``scan_commits`` parses the add and remove lines of many commits together and only
counts them; for every commit, its other actions, its problems, its file counts and its
row figures must equal those of the one commit parser and the typed row tracker
(``rows_along``), on every corpus table (damaged ones included) and on a streaming
table of many commits, whatever the slice size. Log-only: no Spark.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.tablegen import make_commits_table, make_files_table
from inspector.delta.actions import AddFile, RemoveFile
from inspector.delta.errors import InspectorError
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog
from inspector.table.history_scan import scan_commits
from inspector.table.rowcounts import commit_rows, rows_along
from inspector.table.rowrule import RowChange
from tests.conftest import CORPUS, corpus_index


def _seen(pairs: list[tuple[Commit, RowChange]]) -> list[tuple[object, ...]]:
    return [
        (c.version, c.file, _others(c), c.problems, c.file_summary, rows)
        for c, rows in pairs
        # a big commit keeps its file actions: its typed records are not in ``parsed``
        if c.columns is None
    ]


def _others(commit: Commit) -> tuple[object, ...]:
    return tuple(a for a in commit.parsed if not isinstance(a, AddFile | RemoveFile))


def _both(root: Path | str, size: int) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    bulk_log, typed_log = DeltaLog.open(str(root)), DeltaLog.open(str(root))
    versions = sorted(bulk_log.listing.commits)
    bulk = list(scan_commits(bulk_log, versions, size=size))
    typed = list(rows_along(typed_log, typed_log.stream_commits(versions)))
    return _seen(bulk), _seen(typed)


def _tables() -> list[str]:
    return [entry["path"] for entry in corpus_index()]


@pytest.mark.parametrize("relative", _tables())
def test_a_bulk_read_equals_each_commit_read_on_its_own(relative: str) -> None:
    try:
        bulk, typed = _both(CORPUS / relative, size=3)
    except InspectorError:
        pytest.skip("not a readable table (its own tests say why)")
    assert bulk == typed


@pytest.mark.parametrize("size", [1, 7, 1024])
def test_a_streaming_table_reads_the_same_in_any_slice_size(tmp_path: Path, size: int) -> None:
    root = tmp_path / "stream"
    make_commits_table(str(root), 250)
    bulk, typed = _both(root, size=size)
    assert len(bulk) == 250
    assert bulk == typed


def test_counted_commits_keep_no_file_actions(tmp_path: Path) -> None:
    root = tmp_path / "stream"
    make_commits_table(str(root), 3)
    log = DeltaLog.open(str(root))
    commit, _ = list(scan_commits(log, [0, 1, 2]))[1]
    assert commit.counted is not None
    with pytest.raises(ValueError, match="only counted"):
        commit.adds  # noqa: B018


def test_files_removed_after_a_big_commit_count_the_rows_it_added(tmp_path: Path) -> None:
    # Commit 0 (4,000 files, over a megabyte) is taken from its metrics, its adds unparsed;
    # the MERGE and the DELETE after it remove files without their own stats, looked up in
    # the snapshot of version 0 (its checkpoint).
    root = tmp_path / "files"
    make_files_table(str(root), 4000)
    log = DeltaLog.open(str(root))
    pairs = list(scan_commits(log, sorted(log.listing.commits)))
    assert pairs[0][0].counted is not None
    assert pairs[0][0].file_summary.add_actions == 4000
    for commit, rows in pairs:
        assert rows == commit_rows(DeltaLog.open(str(root)), commit.version)
    assert any(r.removed for _, r in pairs)


def _damaged(tmp_path: Path, damage: dict[int, bytes]) -> Path:
    root = tmp_path / "stream"
    make_commits_table(str(root), 20)
    for version, text in damage.items():
        path = root / "_delta_log" / f"{version:020d}.json"
        data = path.read_bytes()
        path.write_bytes(data.replace(b"\n", b"\n\n", 1) if text == b"blank" else data + text)
    return root


def test_damaged_commits_in_a_slice_are_parsed_on_their_own(tmp_path: Path) -> None:
    # One slice holds good commits and damaged ones (a cut-off line, two values on one line,
    # a blank line): each damaged file goes to the one commit parser, which names its line;
    # the others stay in the bulk read.
    root = _damaged(
        tmp_path,
        {
            3: b'{"commitInfo":{"operation":"WRI',
            5: b'{"txn":{"appId":"a","version":1}},{"x":1}\n',
            7: b"blank",
        },
    )
    bulk, typed = _both(root, size=1024)
    assert bulk == typed
    assert [v for v, _, _, problems, _, _ in bulk if problems] == [3, 5]
    log = DeltaLog.open(str(root))
    commits = [c for c, _ in scan_commits(log, sorted(log.listing.commits))]
    assert [c.version for c in commits if c.counted is None] == [3, 5, 7]


def test_a_file_action_arrow_refuses_sends_its_slice_to_the_commit_parser(
    tmp_path: Path,
) -> None:
    root = _damaged(tmp_path, {9: b'{"add":{"path":"x.parquet","dataChange":true}}\n'})
    bulk, typed = _both(root, size=1024)
    assert bulk == typed
    assert [v for v, _, _, problems, _, _ in bulk if problems] == [9]
