"""Specification: the CLI's exit codes say what the user must do, one per group of errors.

0 ok, 1 unexpected (a bug), 2 bad input, 3 restore refused, 4 the latest version is
inconsistent, 5 environment problem, 6 damaged table (the table in docs/errors.md).
Errors are one line on stderr; with ``--json`` also ``{"error": {type, message, exitCode}}``
on stdout. Runs ``main(argv)`` in-process, except where a separate process is the point.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from inspector import __version__
from inspector.cli import registry
from inspector.delta import errors
from inspector.delta.errors import ExitCode
from inspector.restore.audit import read_audit
from tests.conftest import CORPUS, REPO, one_error_line
from tests.conftest import run_main as run

PARTITIONED = "dat-v0.0.2/multi_partitioned/delta"  # versions 0..2


@pytest.fixture
def no_terminal(monkeypatch):
    """stdin is a pipe (a script or CI), not a terminal an operator could type on."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))


def test_every_error_class_declares_the_exit_code_of_its_group():
    expected = {
        errors.NotADeltaTable: 2,
        errors.VersionNotFound: 2,
        errors.TimestampOutOfRange: 2,
        errors.InvalidInput: 2,
        errors.UnsupportedFeature: 2,
        errors.RestoreRefused: 3,
        errors.ConcurrentModification: 3,
        errors.SparkUnavailable: 5,
        errors.StorageUnavailable: 5,
        errors.CorruptLog: 6,
        errors.MissingDataFile: 6,
    }
    for cls, code in expected.items():
        assert cls.exit_code == code, cls
    assert ExitCode.INCONSISTENT == 4 and ExitCode.UNEXPECTED == 1


def test_the_exit_code_table_in_the_docs_lists_every_code():
    doc = (REPO / "docs" / "errors.md").read_text()
    for code in ExitCode:
        assert f"| {int(code)} " in doc, code
    for cls in (errors.NotADeltaTable, errors.SparkUnavailable, errors.CorruptLog):
        assert cls.__name__ in doc


def test_success_exits_0(capsys):
    code, out, err = run(capsys, "history", CORPUS / PARTITIONED, "--json")
    assert (code, err) == (0, "") and len(json.loads(out)) == 3


def test_an_unexpected_failure_exits_1_with_one_line_that_asks_for_a_report(capsys):
    @registry.command("crash-for-test", "A command with a bug.")
    def crash(args: argparse.Namespace, settings: object) -> int:
        return {}["no such key"]

    try:
        code, out, err = run(capsys, "crash-for-test", "--json")
    finally:
        registry._COMMANDS.pop("crash-for-test")
    assert code == 1
    assert "Unexpected failure: KeyError" in one_error_line(err) and "report" in err
    assert json.loads(out)["error"] == {
        "type": "UnexpectedError",
        "message": err.removeprefix("error: ").strip(),
        "exitCode": 1,
    }


@pytest.mark.parametrize(
    "args, kind",
    [
        (["history", "/nowhere/at/all"], "NotADeltaTable"),
        (["files", CORPUS / PARTITIONED, "--version", "99"], "VersionNotFound"),
        (["detail", CORPUS / PARTITIONED, "--version", "two"], "InvalidInput"),
        (["history", CORPUS / PARTITIONED, "--limit", "abc"], "InvalidInput"),
        (["show", CORPUS / PARTITIONED, "--timestamp", "1999-01-01"], "TimestampOutOfRange"),
        (["show", CORPUS / PARTITIONED, "--spark-conf", "no-equals-sign"], "InvalidInput"),
        (["no-such-command"], "InvalidInput"),
    ],
)
def test_bad_input_exits_2_naming_its_kind(capsys, args, kind):
    code, out, err = run(capsys, *args, "--json")
    assert code == 2
    one_error_line(err)
    assert json.loads(out)["error"]["type"] == kind
    assert json.loads(out)["error"]["exitCode"] == 2


def test_a_restore_refused_before_any_plan_exits_3_naming_everything_missing_audited(
    capsys, copy_table, audit, no_terminal
):
    table = copy_table(PARTITIONED)

    code, out, err = run(capsys, "restore", table, "--to-version", 1, "--json")

    assert code == 3
    line = one_error_line(err)
    assert "no terminal to type the confirmation" in line and "reason is required" in line
    assert "--yes" in line and "--reason" in line
    error = json.loads(out)["error"]
    assert (error["type"], error["exitCode"]) == ("RestoreRefused", 3)
    entries = read_audit(audit)
    assert [e.outcome for e in entries] == ["refused"]  # refused before planning (no Spark)
    assert entries[0].details["refusedBecause"] == ["no_confirmation", "no_reason"]
    assert (entries[0].from_version, entries[0].to_version) == (2, 1)


def test_an_unexpected_version_is_refused_with_exit_3_before_any_plan(capsys, copy_table, audit):
    table = copy_table(PARTITIONED)

    code, _, err = run(
        capsys, "restore", table, "--to-version", 1, "--expect-version", 1, "--dry-run"
    )

    assert code == 3 and "not at version 1" in one_error_line(err)
    assert [e.outcome for e in read_audit(audit)] == ["refused"]


def test_check_exits_4_when_the_latest_version_is_inconsistent(capsys, copy_table):
    table = copy_table(PARTITIONED)
    commit = (table / "_delta_log" / f"{2:020d}.json").read_text().splitlines()
    added = next(json.loads(line)["add"]["path"] for line in commit if '"add"' in line)
    (table / unquote(added)).unlink()

    code, out, err = run(capsys, "check", table, "--json")

    assert code == 4 and err == ""
    assert json.loads(out)["lastConsistentVersion"] == 1


def test_no_java_is_an_environment_problem_exit_5(tmp_path):
    # A separate process: the test run's own Spark session may already be running.
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "show", str(CORPUS / PARTITIONED), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 5, result.stderr
    assert "Java" in one_error_line(result.stderr)
    assert json.loads(result.stdout)["error"]["type"] == "SparkUnavailable"


def test_a_damaged_log_is_a_damaged_table_exit_6(capsys, copy_table):
    table = copy_table(PARTITIONED)
    (table / "_delta_log" / f"{1:020d}.json").unlink()  # a gap: version 2 cannot be replayed

    code, out, err = run(capsys, "detail", table, "--json")

    assert code == 6
    assert "cannot be reconstructed" in one_error_line(err)
    assert json.loads(out)["error"] == {
        "type": "CorruptLog",
        "message": err.removeprefix("error: ").strip(),
        "exitCode": 6,
    }


def test_version_prints_the_program_and_its_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"delta-inspector {__version__}\n")


def test_a_missing_version_has_one_message_in_the_cli_and_the_app(capsys):
    code, _, err = run(capsys, "files", CORPUS / PARTITIONED, "--version", "99")
    assert code == 2
    assert "Version 99 is not in this table's log; it has versions 0 to 2." in err


def test_the_console_script_and_the_dependencies_are_declared():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["delta-inspector"] == "inspector.cli.main:main"
    assert project["version"] == __version__
    runtime = (REPO / "requirements.txt").read_text().split("# Tests")[0]
    pins = {line.strip() for line in runtime.splitlines() if "==" in line}
    assert pins == set(project["dependencies"])


def test_every_command_that_starts_spark_takes_the_same_spark_options():
    from inspector.cli.main import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("show", "diff", "restore"):
        options = {o for a in subparsers.choices[name]._actions for o in a.option_strings}
        assert {"--spark-master", "--spark-conf"} <= options, name


@pytest.mark.parametrize(
    "args",
    [
        ["diff", CORPUS / PARTITIONED, "--from", "0", "--to", "1", "--rows"],
        ["restore", CORPUS / PARTITIONED, "--to-version", "1", "--dry-run"],
    ],
)
def test_a_malformed_spark_conf_is_bad_input_before_any_work(capsys, args):
    code, _, err = run(capsys, *args, "--spark-conf", "no-equals-sign")
    assert code == 2 and "key=value" in one_error_line(err)


def test_a_command_that_prints_for_itself_instead_of_returning_a_record_is_a_bug(capsys):
    from inspector.cli.registry import arguments, command

    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("word")

    @command("echo-for-test", "Prints its word.")
    @arguments(add)
    def echo(args: argparse.Namespace, settings: object) -> int:
        print(args.word)
        return 0

    try:
        code, _, err = run(capsys, "echo-for-test", "hello")
    finally:
        registry._COMMANDS.pop("echo-for-test")
    assert code == ExitCode.UNEXPECTED
    assert "a command returned int, not a Result" in one_error_line(err)


def test_command_modules_never_import_the_entry_point():
    import ast

    for module in (*registry.COMMAND_MODULES, "inspector.cli.registry", "inspector.cli.render"):
        path = REPO / (module.replace(".", "/") + ".py")
        imported = {
            node.module
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom)
        }
        assert "inspector.cli.main" not in imported, module


def test_each_command_is_registered_by_the_module_the_registry_names():
    by_module: dict[str, set[str]] = {}
    for cmd in registry.commands():
        by_module.setdefault(cmd.handler.__module__, set()).add(cmd.name)
    assert by_module == {m: set(names) for m, names in registry.COMMAND_MODULES.items()}


def test_a_command_imports_only_its_own_command_module():
    import subprocess
    import sys

    probe = (
        "import sys; from inspector.cli.main import main; main(['history', '--help']); "
        "print(sorted(m for m in sys.modules if m.startswith('inspector.cli.') "
        "and m.endswith(('_commands', 'desktop', 'operations'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "['inspector.cli.log_commands']"


def test_every_command_returns_a_record_for_the_one_renderer():
    import typing

    from inspector.cli.render import Result

    for cmd in registry.commands():
        hint = typing.get_type_hints(cmd.handler)["return"]
        returned = typing.get_origin(hint) or hint  # Shown[Record] is a Shown
        assert isinstance(returned, type) and issubclass(returned, Result), cmd.name


def test_a_streamed_array_that_fails_part_way_is_closed_before_the_error(capsys):
    from inspector.cli.render import emit_json

    def entries():
        yield {"version": 2}
        raise errors.StorageUnavailable("The store stopped answering.", "Try again.")

    with pytest.raises(errors.StorageUnavailable):
        emit_json(entries())

    assert json.loads(capsys.readouterr().out) == [{"version": 2}]
