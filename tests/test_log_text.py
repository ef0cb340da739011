"""Specification: the log is strict UTF-8 JSON, read by one rule, and damage to it is reported.

Bytes that are not UTF-8 in a commit, a checkpoint (JSON or Parquet) or ``_last_checkpoint``
make the file damaged where it is read, naming it (and the line of a commit), never an
"Unexpected failure" in whichever command first touches the string. Property-based tests
(Hypothesis, derandomized) damage real corpus commits at every place.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.log import text
from inspector.log.bigcommit import COLUMNAR_FROM
from inspector.log.commit import parse_commit
from inspector.log.listing import LogFile, read_last_checkpoint
from inspector.storage import LocalStorage
from tests.conftest import CORPUS, run_cli

TABLE = "delta-rs/simple_table_with_checkpoint"
COMMIT = CORPUS / TABLE / "_delta_log" / f"{2:020d}.json"
NOT_UTF8 = [
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xff",
    b"\xc0\xaf",
    b"\xf4\x90\x80\x80",
]
FUZZ = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _file(path: Path) -> LogFile:
    return LogFile(name=path.name, path=str(path), size=0, modification_time=0)


def _utf8_everywhere(commit: object) -> None:
    """Every string of every parsed action can be written as UTF-8 (Arrow, JSON, the screen)."""
    for action in commit.actions:  # type: ignore[attr-defined]
        repr(action).encode("utf-8")


# --- the rule ----------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=200))
def test_any_bytes_parse_or_raise_a_value_error_never_a_unicode_error(data):
    try:
        text.loads(data)
    except ValueError as exc:
        assert not isinstance(exc, UnicodeError)


@pytest.mark.parametrize(
    "line",
    [b'{"a": "x\xffy"}', b'{"a": "\xed\xa0\x80"}', b'{"a": "\\ud800"}', b'{"a": "\\udc00x"}'],
)
def test_text_that_is_not_utf8_is_named_as_such(line):
    with pytest.raises(ValueError, match="not valid UTF-8 text") as caught:
        text.loads(line)
    assert not isinstance(caught.value, UnicodeError)


def test_a_truncated_line_is_still_a_json_error_so_commits_can_say_it_is_cut_off():
    commit = parse_commit(2, _file(COMMIT), COMMIT.read_bytes()[:-20])
    assert any("cut off" in p for p in commit.problems), commit.problems


# --- commits -----------------------------------------------------------------------------


@FUZZ
@given(st.data())
def test_a_commit_with_bytes_that_are_not_utf8_anywhere_names_the_line(data):
    original = COMMIT.read_bytes()
    at = data.draw(st.integers(0, len(original)), label="at")
    junk = data.draw(st.sampled_from(NOT_UTF8), label="junk")
    damaged = original[:at] + junk + original[at:]

    commit = parse_commit(2, _file(COMMIT), damaged)

    line = damaged[:at].count(b"\n") + 1
    assert any(p.startswith(f"Line {line} ") for p in commit.problems), commit.problems
    _utf8_everywhere(commit)


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes_as_a_commit_are_actions_or_problems_never_an_error(data):
    commit = parse_commit(2, _file(COMMIT), data)
    _utf8_everywhere(commit)


def test_a_big_commit_read_by_arrow_checks_utf8_too():
    lines = COMMIT.read_bytes().splitlines()
    add = next(line for line in lines if line.startswith(b'{"add":'))
    copies = COLUMNAR_FROM // len(add) + 1
    body = [line for line in lines if not line.startswith(b'{"add":')]
    body += [add.replace(b'"path":"', f'"path":"{i}-'.encode(), 1) for i in range(copies)]
    body[-1] = body[-1].replace(b'"path":"', b'"path":"\xff', 1)
    data = b"\n".join(body) + b"\n"
    assert len(data) >= COLUMNAR_FROM

    commit = parse_commit(2, _file(COMMIT), data)

    assert commit.problems == (
        f"Line {len(body)} of the commit is not a valid action: not valid UTF-8 text "
        "(byte 17 cannot be decoded).",
    )


def test_last_checkpoint_that_is_not_utf8_is_ignored_with_a_problem(tmp_path):
    path = tmp_path / "_last_checkpoint"
    path.write_bytes(b'{"version": 10, "size": "\xff"}')
    found = read_last_checkpoint(LocalStorage(str(tmp_path)), path.name)
    assert found.version is None and "unreadable" in (found.problem or "")


# --- the commands ------------------------------------------------------------------------


def _poison_checkpoint_paths(path: Path) -> None:
    """Rewrite a Parquet checkpoint with a first byte 0xFF in every add's path."""
    table = pq.read_table(path)
    add = table.column("add").combine_chunks()
    at = add.type.get_field_index("path")
    raw = [None if p is None else b"\xff" + p.encode()[1:] for p in add.field("path").to_pylist()]
    paths = pa.array(raw, pa.binary()).view(pa.string())
    children = [paths if i == at else add.field(i) for i in range(add.type.num_fields)]
    poisoned = pa.StructArray.from_arrays(children, fields=list(add.type), mask=add.is_null())
    column = table.schema.get_field_index("add")
    pq.write_table(table.set_column(column, table.schema.field("add"), poisoned), path)


def test_a_checkpoint_holding_text_that_is_not_utf8_is_not_used(copy_table):
    table = copy_table(TABLE)
    _poison_checkpoint_paths(table / "_delta_log" / f"{10:020d}.checkpoint.parquet")

    for command in ("check", "vacuum-plan", "detail"):
        result = run_cli(command, table)
        assert result.returncode == 0, result.stderr
        assert "Unexpected" not in result.stderr
    assert "not valid UTF-8" in run_cli("check", table).stdout


def _damage_commit(table: Path, version: int) -> None:
    path = table / "_delta_log" / f"{version:020d}.json"
    data = path.read_bytes()
    at = data.index(b'"path":"', data.index(b'{"add"')) + 8
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])


def test_check_reports_a_commit_that_is_not_utf8_naming_its_line(copy_table):
    table = copy_table("delta-rs/simple_table")
    _damage_commit(table, 2)

    result = run_cli("check", table)

    assert result.returncode == 4, result.stderr
    assert "version 2 " in result.stdout
    assert "Line 2 of the commit is not a valid action: not valid UTF-8 text" in result.stdout


def test_vacuum_plan_on_a_commit_that_is_not_utf8_is_a_damaged_table_naming_file_and_line(
    copy_table,
):
    table = copy_table("delta-rs/simple_table")
    _damage_commit(table, 2)

    result = run_cli("vacuum-plan", table)

    assert result.returncode == 6, result.stderr
    assert f"{2:020d}.json: Line 2 of the commit" in result.stderr
    assert "Unexpected" not in result.stderr
