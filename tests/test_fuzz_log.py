"""Specification: no damaged log makes a command crash.

A seeded, reproducible mutator damages copies of small corpus tables' ``_delta_log``
(truncated and empty files, flipped bytes, bytes that are not UTF-8, fields of the wrong JSON type, huge numbers,
junk lines, deleted commits and checkpoints, a bad ``_last_checkpoint``, directories named
like log files) and runs the read-only commands on each copy in-process. Every run must end
with a documented exit code and one-line error, never a traceback or an "Unexpected
failure" (exit 1).

Reproduce a failure with its case number: ``FUZZ_CASES=1 FUZZ_FIRST=<case> pytest
tests/test_fuzz_log.py``; ``FUZZ_CASES`` (default 1,200) and ``FUZZ_SEED`` widen the search.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import build_parser
from tests.conftest import CORPUS, run_cli

SEED = int(os.environ.get("FUZZ_SEED", "20261123"))
CASES = int(os.environ.get("FUZZ_CASES", "1200"))
FIRST = int(os.environ.get("FUZZ_FIRST", "0"))
BATCHES = 12

#: The documented exit codes (docs/cli.md#exit-codes); 1 is an unexpected failure.
DOCUMENTED_EXITS = {0, 2, 3, 4, 5, 6}

#: Small tables covering classic, multi-part and V2 checkpoints, _last_checkpoint,
#: deletion vectors, partitions, column mapping, in-commit timestamps and change data.
TABLES = [
    "dat-v0.0.2/with_checkpoint/delta",
    "delta-kernel-rs-golden/multi-part-checkpoint/delta",
    "delta-golden/v2-checkpoint-json",
    "delta-kernel-rs/table-with-dv-small",
    "dat-v0.0.2/multi_partitioned_2/delta",
    "delta-kernel-java/column-mapping-id",
    "delta-rs/simple_table_with_checkpoint",
    "delta-kernel-rs/in-commit-timestamps-test",
    "delta-rs/cdc_ict_table",
    "delta-kernel-rs-golden/basic-with-inserts-merge/delta",
]

WRONG_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    -0.5,
    1e308,
    10**30,
    -(10**30),
    2**63,
    "",
    "x",
    "1",
    [],
    [1, "a"],
    {},
    {"a": 1},
]
HUGE_VALUES: list[Any] = [10**18, 2**63, 10**30, -(10**18), 1e300, 253402300800000]
JUNK_LINES = [
    "",
    "not json",
    "[1, 2]",
    "42",
    "null",
    '"add"',
    "{}",
    '{"add": 5}',
    '{"add": {}, "remove": {}}',
    '{"unknownAction": {"x": 1}}',
    '{"metaData": []}',
    '{"protocol": {"minReaderVersion": "3", "minWriterVersion": null}}',
    '{"add": {"path": 7, "size": "big", "partitionValues": [], "modificationTime": "now"}}',
    '{"remove": {"path": "", "deletionTimestamp": 1e400}}',
    '{"commitInfo": {"timestamp": 99999999999999999999, "operation": 5}}',
    '{"txn": {"appId": 1, "version": "v"}}',
    '{"domainMetadata": {"domain": null, "configuration": 3, "removed": "no"}}',
    '{"checkpointMetadata": {"version": "x"}}',
    '{"sidecar": {"path": 1, "sizeInBytes": "big"}}',
    '{"cdc": {"path": [], "size": {}}}',
]


def _parser_commands() -> set[str]:
    parser = build_parser()
    return set(next(a for a in parser._actions if a.dest == "command").choices)


COMMANDS = _parser_commands()


# --- the mutator ------------------------------------------------------------------------


def _log_files(log: Path) -> list[Path]:
    return sorted(p for p in log.rglob("*") if p.is_file())


def _pick_file(log: Path, rng: random.Random) -> Path | None:
    """One of the log's files (None once earlier mutations deleted them all)."""
    files = _log_files(log)
    return rng.choice(files) if files else None


def _commits(log: Path) -> list[Path]:
    return sorted(p for p in log.glob("[0-9]" * 20 + ".json") if p.is_file())


def _truncate(log: Path, rng: random.Random) -> str:
    path = _pick_file(log, rng)
    if path is None:
        return "truncate: no file"
    data = path.read_bytes()
    cut = rng.randrange(len(data)) if data else 0
    path.write_bytes(data[:cut])
    return f"truncate {path.name} at {cut}"


def _empty(log: Path, rng: random.Random) -> str:
    path = _pick_file(log, rng)
    if path is None:
        return "empty: no file"
    path.write_bytes(b"")
    return f"empty {path.name}"


def _bytes_of_one_file(log: Path, rng: random.Random, what: str) -> tuple[Path, bytearray] | str:
    """A file's bytes to change, or what was done instead (no file left, an empty file)."""
    path = _pick_file(log, rng)
    if path is None:
        return f"{what}: no file"
    data = bytearray(path.read_bytes())
    return (path, data) if data else f"{what}: nothing in empty {path.name}"


def _flip(log: Path, rng: random.Random) -> str:
    picked = _bytes_of_one_file(log, rng, "flip")
    if isinstance(picked, str):
        return picked
    path, data = picked
    spots = [rng.randrange(len(data)) for _ in range(rng.randint(1, 8))]
    for i in spots:
        data[i] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    return f"flip bytes {spots} of {path.name}"


#: Bytes that are not UTF-8: a stray continuation byte, a cut-off sequence, an encoded
#: surrogate (Python's json accepts it, strict UTF-8 does not), bytes that never occur.
NOT_UTF8 = [b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xff", b"\xfe\xff", b"\xc0\xaf"]


def _not_utf8(log: Path, rng: random.Random) -> str:
    """Insert bytes that are not UTF-8 into a text file, or set high bits in a Parquet one."""
    picked = _bytes_of_one_file(log, rng, "not UTF-8")
    if isinstance(picked, str):
        return picked
    path, data = picked
    if path.suffix == ".parquet":  # strings inside survive as long as the pages decode
        spots = [rng.randrange(len(data)) for _ in range(rng.randint(1, 6))]
        for i in spots:
            data[i] |= 0x80
        path.write_bytes(bytes(data))
        return f"high bits at {spots} of {path.name}"
    at = rng.randrange(len(data))
    junk = rng.choice(NOT_UTF8)
    data[at:at] = junk
    path.write_bytes(bytes(data))
    return f"insert {junk!r} at byte {at} of {path.name}"


def _mutate_json(
    value: Any, rng: random.Random, pool: list[Any], depth: int = 0
) -> tuple[Any, str]:
    """Replace one value somewhere inside ``value`` (a dict or list, or JSON text of one)."""
    if isinstance(value, str) and value[:1] in "{[" and depth < 4:
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, dict | list) and inner and rng.random() < 0.7:
            changed, where = _mutate_json(inner, rng, pool, depth + 1)
            return json.dumps(changed), f"(json text){where}"
    if isinstance(value, dict) and value and depth < 6:
        key = rng.choice(list(value))
        if rng.random() < 0.6 and isinstance(value[key], dict | list | str):
            changed, where = _mutate_json(value[key], rng, pool, depth + 1)
            if where:
                return {**value, key: changed}, f".{key}{where}"
        return {**value, key: rng.choice(pool)}, f".{key}"
    if isinstance(value, list) and value and depth < 6:
        i = rng.randrange(len(value))
        changed, where = _mutate_json(value[i], rng, pool, depth + 1)
        if not where:
            changed, where = rng.choice(pool), ""
        return value[:i] + [changed] + value[i + 1 :], f"[{i}]{where}"
    return value, ""


def _retype(log: Path, rng: random.Random, pool: list[Any], label: str) -> str:
    commits = _commits(log)
    if not commits:
        return "retype: no commit"
    path = rng.choice(commits)
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    candidates = [i for i, line in enumerate(lines) if line.strip().startswith("{")]
    if not candidates:
        return f"retype: nothing in {path.name}"
    i = rng.choice(candidates)
    try:
        action = json.loads(lines[i])
    except ValueError:
        return f"retype: line {i} of {path.name} is not JSON"
    changed, where = _mutate_json(action, rng, pool)
    lines[i] = json.dumps(changed)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{label} {path.name} line {i}{where}"


def _wrong_type(log: Path, rng: random.Random) -> str:
    return _retype(log, rng, WRONG_VALUES, "wrong type in")


def _huge_number(log: Path, rng: random.Random) -> str:
    return _retype(log, rng, HUGE_VALUES, "huge number in")


def _junk_line(log: Path, rng: random.Random) -> str:
    commits = _commits(log)
    if not commits:
        return "junk: no commit"
    path = rng.choice(commits)
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    junk = rng.choice(JUNK_LINES)
    at = rng.randint(0, len(lines))
    lines.insert(at, junk)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"insert {junk!r} at line {at} of {path.name}"


def _delete_commit(log: Path, rng: random.Random) -> str:
    commits = _commits(log)
    if not commits:
        return "delete: no commit"
    path = rng.choice(commits)
    path.unlink()
    return f"delete {path.name}"


def _delete_checkpoint(log: Path, rng: random.Random) -> str:
    found = [p for p in _log_files(log) if "checkpoint" in p.name or p.parent.name == "_sidecars"]
    if not found:
        return _delete_commit(log, rng)
    path = rng.choice(found)
    path.unlink()
    return f"delete {path.relative_to(log)}"


def _bad_last_checkpoint(log: Path, rng: random.Random) -> str:
    versions = [int(p.name[:20]) for p in _commits(log)] or [0]
    v = rng.choice(versions)
    text = rng.choice(
        [
            "",
            "{",
            "[]",
            "42",
            "null",
            '{"version": "x", "size": 1}',
            '{"version": -1, "size": 3}',
            f'{{"version": {10**25}, "size": 1}}',
            f'{{"version": {v}, "parts": 0}}',
            f'{{"version": {v}, "parts": {10**6}}}',
            '{"version": 1.5}',
            '{"version": null}',
            f'{{"version": {v}, "size": "big", "sizeInBytes": -1, "checksum": 5}}',
            f'{{"version": {v}, "v2Checkpoint": {{"path": 5}}}}',
            f'{{"version": {max(versions) + 5}, "size": 2}}',
            '{"version": 1e308}',
            "\x00\xff\xfe garbage",
        ]
    )
    if (log / "_last_checkpoint").is_dir():  # an earlier mutation made it a directory
        shutil.rmtree(log / "_last_checkpoint")
    (log / "_last_checkpoint").write_text(text, encoding="utf-8", errors="surrogateescape")
    return f"_last_checkpoint = {text!r}"


def _directory_named_like_a_file(log: Path, rng: random.Random) -> str:
    versions = [int(p.name[:20]) for p in _commits(log)] or [0]
    choices = [
        f"{max(versions) + 1:020d}.json",
        f"{rng.choice(versions):020d}.json",
        f"{rng.choice(versions):020d}.checkpoint.parquet",
        f"{rng.choice(versions):020d}.crc",
        "_last_checkpoint",
    ]
    name = rng.choice(choices)
    target = log / name
    if target.is_file():
        target.unlink()
    target.mkdir(exist_ok=True)
    (target / "inside.json").write_text("{}")
    return f"directory named {name}"


MUTATIONS: list[Callable[[Path, random.Random], str]] = [
    _truncate,
    _empty,
    _flip,
    _not_utf8,
    _not_utf8,
    _wrong_type,
    _wrong_type,
    _huge_number,
    _junk_line,
    _delete_commit,
    _delete_checkpoint,
    _bad_last_checkpoint,
    _directory_named_like_a_file,
]


def make_case(case: int, root: Path) -> tuple[Path, list[str], random.Random]:
    """The mutated copy of case ``case`` (its own random stream: reproducible alone)."""
    rng = random.Random(f"{SEED}:{case}")
    source = CORPUS / rng.choice(TABLES)
    table = root / f"case{case}"
    table.mkdir()
    for entry in source.iterdir():  # data through links: read-only commands never write
        if entry.name != "_delta_log":
            (table / entry.name).symlink_to(entry)
    shutil.copytree(source / "_delta_log", table / "_delta_log")
    done = [f"table {source.relative_to(CORPUS)}"]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        done.append(rng.choice(MUTATIONS)(table / "_delta_log", rng))
    return table, done, rng


def commands(table: Path, rng: random.Random) -> list[list[str]]:
    """The read-only commands to run on a mutated table (never one that starts Spark)."""
    t = str(table)
    json_flag = ["--json"] if rng.random() < 0.5 else []
    v = lambda: str(rng.choice([0, 1, 2, 3, 10]))  # noqa: E731
    runs = [
        ["history", t, *json_flag],
        ["files", t, "--version", rng.choice([v(), "latest"]), *json_flag],
        ["diff", t, "--from", v(), "--to", rng.choice([v(), "latest"]), *json_flag],
        ["check", t, *json_flag, *rng.choice([[], ["--all-versions"], ["--deep"]])],
        ["vacuum-plan", t, *json_flag],
    ]
    if "detail" in COMMANDS:
        runs.append(["detail", t, *json_flag])
    return runs


def run_case(case: int, root: Path) -> list[str]:
    """Failures of one case, each with what to reproduce it."""
    table, mutations, rng = make_case(case, root)
    failures = []
    for argv in commands(table, rng):
        try:
            result = run_cli(*argv)
        except BaseException as exc:  # main() must never raise
            failures.append(f"case {case} {mutations}: {argv[0]} raised {exc!r}")
            continue
        output = result.stdout + result.stderr
        if (
            result.returncode not in DOCUMENTED_EXITS
            or "Traceback" in output
            or "Unexpected failure" in output
        ):
            failures.append(
                f"case {case} {mutations}: {' '.join(argv[:1] + argv[2:])} exited "
                f"{result.returncode}: {result.stderr.strip()[:400]}"
            )
    shutil.rmtree(table)
    return failures


def test_the_mutator_is_reproducible(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, first, _ = make_case(7, tmp_path / "a")
    b, second, _ = make_case(7, tmp_path / "b")
    assert first == second
    assert {p.relative_to(a): p.read_bytes() for p in _log_files(a / "_delta_log")} == {
        p.relative_to(b): p.read_bytes() for p in _log_files(b / "_delta_log")
    }


@pytest.mark.parametrize("batch", range(BATCHES))
def test_no_mutated_log_makes_a_command_crash(tmp_path, batch):
    cases = range(FIRST + batch, FIRST + CASES, BATCHES)
    failures = [f for case in cases for f in run_case(case, tmp_path)]
    assert not failures, f"{len(failures)} crashes:\n" + "\n".join(failures[:15])


# --- the crashes the fuzzer found, as specifications -------------------------------------


def _rewrite_first(table: Path, version: int, action: str, change: Callable[[dict], None]) -> None:
    """Apply ``change`` to the body of the first ``action`` in a commit of a table copy."""
    path = table / "_delta_log" / f"{version:020d}.json"
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    change(next(line[action] for line in lines if action in line))
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def test_a_commit_time_no_calendar_can_show_is_no_time_at_all(copy_table):
    table = copy_table("delta-rs/simple_table_with_checkpoint")
    _rewrite_first(table, 4, "commitInfo", lambda info: info.update(timestamp=10**20))

    result = run_cli("history", table, "--json")

    assert result.returncode == 0, result.stderr
    entry = next(e for e in result.json() if e["version"] == 4)
    assert entry["commitInfoTimestamp"] is None


def test_stats_that_are_not_text_make_the_commit_damaged_not_the_command_crash(copy_table):
    table = copy_table("delta-rs/simple_table_with_checkpoint")
    _rewrite_first(table, 4, "add", lambda add: add.update(stats=7))

    result = run_cli("history", table, "--json")

    assert result.returncode == 0, result.stderr
    problems = next(e for e in result.json() if e["version"] == 4)["problems"]
    assert any("'stats' must be a string" in p for p in problems), problems


def test_a_change_data_file_whose_path_is_a_number_is_a_damaged_commit(copy_table):
    table = copy_table("delta-rs/cdc_ict_table")
    _rewrite_first(table, 2, "cdc", lambda cdc: cdc.update(path=1e300))

    result = run_cli("check", table, "--json")

    assert result.returncode in DOCUMENTED_EXITS - {0}, result.stderr
    assert "Traceback" not in result.stderr and "Unexpected" not in result.stderr
