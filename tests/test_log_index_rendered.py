"""A whole history's ``--json`` text kept beside its kept entries in the log index: a second
print of the unchanged history is that text, byte for byte what the renderer writes, and any
change (a new commit, a damaged file, a text kept for another history) prints afresh.

Real tables written by deltalake, a real cache folder, the CLI as a user runs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.table import history_entry as history
from tests.conftest import REPO, one_row_appends
from tests.damaged import DAMAGES, damage_file

RENDERED = "result-historyjson.bin"


def _history(table: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["history", str(table), "--json", *flags]) == 0
    return capsys.readouterr().out


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(folder))
    return folder


def _renders(monkeypatch) -> list[int]:
    """Count the entries rendered one by one (the real renderer, its calls noted)."""
    calls: list[int] = []
    real = history.history_record

    def record(entry):  # type: ignore[no-untyped-def]
        calls.append(entry.version)
        return real(entry)

    monkeypatch.setattr(history, "history_record", record)
    return calls


def test_a_second_history_prints_the_kept_text_with_no_entry_rendered(
    tmp_path, cache, capsys, monkeypatch
):
    table = tmp_path / "t"
    one_row_appends(table, 12, seed=1)
    off = _history(table, capsys, "--no-cache")
    cold = _history(table, capsys)
    assert len(list(cache.glob(f"*/{RENDERED}"))) == 1
    rendered = _renders(monkeypatch)
    warm = _history(table, capsys)
    assert warm == cold == off
    assert rendered == []


def test_a_new_commit_prints_afresh_and_keeps_the_new_text(tmp_path, cache, capsys, monkeypatch):
    table = tmp_path / "t"
    one_row_appends(table, 6, seed=2)
    _history(table, capsys)
    one_row_appends(table, 2, seed=3)
    rendered = _renders(monkeypatch)
    warm = _history(table, capsys)
    assert sorted(rendered) == list(range(8))
    assert warm == _history(table, capsys, "--no-cache")
    rendered.clear()
    assert _history(table, capsys) == warm and rendered == []


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_kept_text_is_ignored_and_written_again(tmp_path, cache, capsys, damage):
    table = tmp_path / "t"
    one_row_appends(table, 5, seed=4)
    cold = _history(table, capsys)
    (kept,) = cache.glob(f"*/{RENDERED}")
    raw = damage_file(kept, damage, flip_from=40, flip=0x01)
    assert _history(table, capsys) == cold
    assert kept.read_bytes() != raw  # written whole again
    assert _history(table, capsys) == cold


def test_a_text_kept_for_another_history_is_not_printed(tmp_path, cache, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    one_row_appends(first, 3, seed=5)
    one_row_appends(second, 3, seed=6)
    _history(first, capsys)
    expected = _history(second, capsys)
    (a,) = cache.glob(f"{_folder(cache, first)}/{RENDERED}")
    (b,) = cache.glob(f"{_folder(cache, second)}/{RENDERED}")
    b.write_bytes(a.read_bytes())  # whole, its digest right: but not this history's text
    assert _history(second, capsys) == expected


def _folder(cache: Path, table: Path) -> str:
    from inspector.log.index import LogIndex

    return Path(LogIndex(str(cache), max_bytes=1 << 30).for_table(str(table)).folder).name


def _detail(table: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["detail", str(table), "--json", *flags]) == 0
    return capsys.readouterr().out


def test_a_second_detail_prints_the_kept_text_and_reads_no_checkpoint(
    tmp_path, cache, capsys, monkeypatch
):
    from deltalake import DeltaTable

    from inspector.log import snapshot

    table = tmp_path / "t"
    one_row_appends(table, 6, seed=7)
    DeltaTable(str(table)).create_checkpoint()
    one_row_appends(table, 2, seed=8)
    off = _detail(table, capsys, "--no-cache")
    cold = _detail(table, capsys)
    assert len(list(cache.glob("*/result-detail.bin"))) == 1

    def unread(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the snapshot was read")

    monkeypatch.setattr(snapshot.Snapshot, "__init__", unread)
    assert _detail(table, capsys) == cold == off


def test_a_second_detail_imports_neither_the_action_parser_nor_pyarrow(tmp_path, cache):
    import subprocess
    import sys

    table = tmp_path / "t"
    one_row_appends(table, 3, seed=12)
    script = (
        "import sys; from inspector.cli.main import main; "
        f"code = main(['detail', {str(table)!r}, '--json']); "
        "sys.exit(code or 9 * any(m in sys.modules for m in ('inspector.delta.actions', 'pyarrow')))"
    )
    first, second = (
        subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=REPO)
        for _ in range(2)
    )

    assert second.returncode == 0, second.stderr.decode()
    assert second.stdout == first.stdout


@pytest.mark.parametrize("change", ["append", "touch-old-commit", "checkpoint"])
def test_a_detail_of_a_changed_log_is_computed_afresh(tmp_path, cache, capsys, change):
    import os

    from deltalake import DeltaTable

    table = tmp_path / "t"
    one_row_appends(table, 4, seed=9)
    DeltaTable(str(table)).create_checkpoint()  # detail reads from version 3 on
    one_row_appends(table, 1, seed=11)
    _detail(table, capsys)
    if change == "append":
        one_row_appends(table, 1, seed=10)
    elif change == "checkpoint":
        DeltaTable(str(table)).create_checkpoint()
    else:  # the file-time rule chains the latest version's timestamp from version 0
        first = table / "_delta_log" / f"{0:020d}.json"
        later = os.stat(table / "_delta_log" / f"{4:020d}.json").st_mtime_ns + 10**10
        os.utime(first, ns=(later, later))  # 10 s after the latest: within the tolerance
    warm = _detail(table, capsys)
    assert warm == _detail(table, capsys, "--no-cache")
    assert _detail(table, capsys) == warm
