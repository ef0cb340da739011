"""Every log command over every corpus table answers alike with the log index cold, warm and
switched off (``--no-cache``): the index never changes an answer."""

from __future__ import annotations

import shutil

import pytest

from inspector.cli.main import main
from inspector.delta.errors import InspectorError
from inspector.log.deltalog import DeltaLog
from inspector.log.index import tables
from tests.conftest import CORPUS, corpus_index

TABLES = [entry["path"] for entry in corpus_index()]


def _commands(root: str) -> list[list[str]]:
    """history, detail, files of the latest version, diff from the earliest to the latest,
    check: the log questions, as a user asks them."""
    try:
        log = DeltaLog.open(root)
        first, last = log.earliest_version, log.latest_version
    except InspectorError:
        first, last = 0, 1  # not a table, or an unreadable log: the error must match too
    return [
        ["history", root],
        ["detail", root],
        ["files", root, "--version", str(last)],
        ["diff", root, "--from", str(first), "--to", str(last)],
        ["check", root],
    ]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*argv, "--json"])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("path", TABLES)
def test_every_log_command_answers_alike_with_the_index_cold_warm_and_off(
    path, tmp_path, monkeypatch, capsys
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(cache))
    monkeypatch.setattr(tables, "LOCAL_FROM", 1)  # small local reads too go through the index
    for argv in _commands(str(CORPUS / path)):
        off = _run([*argv, "--no-cache"], capsys)
        shutil.rmtree(cache, ignore_errors=True)
        cold = _run(argv, capsys)
        warm = _run(argv, capsys)
        assert cold == off, argv
        assert warm == off, argv
