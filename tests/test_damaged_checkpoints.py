"""Specification: a damaged checkpoint never crashes a log command.

pyarrow reads every checkpoint and sidecar; whatever it makes of a damaged one is worded
through the one error hierarchy. A seeded mutator flips bytes in the footer or in the body
(the pages) of one Parquet checkpoint file (classic, multi-part, V2 and its sidecars) of a
copy of a corpus table, and ``detail``, ``history``, ``files`` and ``check`` run on it:
each ends with a documented exit code, and a failing one prints one ``error:`` line, never
a traceback or "Unexpected failure" (exit 1). A flip in the body may decode silently (a
changed value is still a value); only the crash is ruled out.

Reproduce or widen: ``CHECKPOINT_FLIP_SEEDS=20 pytest tests/test_damaged_checkpoints.py``.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tests.conftest import copy_corpus_table, one_error_line, run_cli, run_main
from tests.test_fuzz_log import DOCUMENTED_EXITS

SEEDS = range(int(os.environ.get("CHECKPOINT_FLIP_SEEDS", "2")))

#: Two classic, a multi-part and two V2 checkpoints (with Parquet sidecars; one JSON manifest).
TABLES = [
    "delta-kernel-java/basic-with-checkpoint",
    "dat-v0.0.2/with_checkpoint/delta",
    "delta-kernel-rs-golden/multi-part-checkpoint/delta",
    "delta-kernel-rs/v2-checkpoints-parquet-with-sidecars",
    "delta-kernel-rs/v2-checkpoints-json-with-sidecars",
]


def parquet_files(log: Path) -> list[Path]:
    """The Parquet checkpoint files and sidecars of a log, in a stable order."""
    return sorted(p for p in log.rglob("*.parquet") if "checkpoint" in p.name)


def flip(path: Path, where: str, rng: random.Random) -> str:
    """Flip 1-8 bytes of the file's footer (the Thrift metadata) or its body (the pages)."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    end = len(data) - 8  # the footer's length and the closing magic stay intact
    start = end - footer
    lo, hi = (start, end) if where == "footer" else (4, start)
    spots = sorted(rng.randrange(lo, hi) for _ in range(rng.randint(1, 8)))
    for at in spots:
        data[at] ^= rng.randrange(1, 256)
    path.write_bytes(bytes(data))
    return f"{path.name}: {where} bytes {spots} flipped"


def assert_no_crash(argv: list[str], what: str) -> None:
    result = run_cli(*argv)
    code, output = result.returncode, result.stdout + result.stderr
    context = f"{what}; {argv[0]} exited {code}:\n{output[-2000:]}"
    assert code in DOCUMENTED_EXITS, context
    assert "Traceback" not in output and "Unexpected failure" not in output, context
    if code not in (0, 4):
        assert len(result.stderr.strip().splitlines()) == 1, context
        assert result.stderr.startswith("error: "), context


#: Cases that once crashed a reader: the pure-Python Parquet reader (removed by issue 33)
#: stopped every log command with ``AttributeError: 'float' object has no attribute 'decode'``.
CRASHED_BEFORE = [("dat-v0.0.2/with_checkpoint/delta", "footer", 20)]


@pytest.mark.parametrize(
    ("relative", "where", "seed"),
    [(t, w, s) for t in TABLES for w in ("footer", "body") for s in SEEDS] + CRASHED_BEFORE,
)
def test_flipped_bytes_in_a_checkpoint_give_a_documented_exit_and_no_traceback(
    tmp_path, relative, where, seed
):
    table = copy_corpus_table(relative, tmp_path / "t")
    rng = random.Random(f"{relative}/{where}/{seed}")
    what = f"{relative}, " + flip(rng.choice(parquet_files(table / "_delta_log")), where, rng)

    for argv in (
        ["detail", str(table)],
        ["history", str(table), "--json"],
        ["files", str(table), "--json"],
        ["check", str(table), "--json"],
    ):
        assert_no_crash(argv, what)


def damaged(data: bytes, how: str) -> bytes:
    footer = int.from_bytes(data[-8:-4], "little")
    if how == "cut short":
        return data[: len(data) // 2]
    if how == "pages zeroed":  # the footer intact: only reading the pages finds it
        return data[:4] + bytes(len(data) - footer - 12) + data[len(data) - footer - 8 :]
    return b"garbage"


@pytest.mark.parametrize("how", ["cut short", "pages zeroed", "garbage"])
def test_a_damaged_checkpoint_with_no_commits_to_fall_back_on_is_a_damaged_table(
    capsys, copy_table, how
):
    table = copy_table("delta-kernel-java/basic-with-checkpoint")  # checkpoint 10 of 0..14
    for version in range(10):
        (table / "_delta_log" / f"{version:020d}.json").unlink()
    checkpoint = table / "_delta_log" / f"{10:020d}.checkpoint.parquet"
    checkpoint.write_bytes(damaged(checkpoint.read_bytes(), how))

    code, out, err = run_main(capsys, "detail", table)

    assert code == 6 and out == "" and "cannot be reconstructed" in one_error_line(err)
    code, out, err = run_main(capsys, "detail", table, "--json")
    assert code == 6 and json.loads(out)["error"]["type"] == "CorruptLog"
