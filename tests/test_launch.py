"""Starting the app: ``./dev.sh app [TABLE] [--operator]`` in any order, and bad arguments.

A bad argument must be one clear line in the terminal and a page that says what went
wrong; before, ``--operator`` without a table left a blank page and ``TABLE --operator``
dropped the flag.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import CORPUS, REPO, offered_pages
from ui.launch import LaunchOptions, launch_options, parse_launch

TABLE = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"


@pytest.mark.parametrize(
    "argv",
    [
        ["/data/sales", "--operator"],
        ["--operator", "/data/sales"],
        ["--table", "/data/sales", "--operator"],
        ["--operator", "--table", "/data/sales"],
    ],
)
def test_the_operator_flag_counts_before_or_after_the_table(argv):
    assert parse_launch(argv) == LaunchOptions(table="/data/sales", operator=True)


def test_no_arguments_open_the_demo_table_read_only():
    assert parse_launch([]) == LaunchOptions()
    assert parse_launch(["--operator"]) == LaunchOptions(operator=True)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "Unknown argument: --bogus."),
        (["/a", "/b"], "Unknown argument: /b."),
        (["--table"], "--table: expected one argument."),
        (["/a", "--table", "/b"], "Two tables given (/a and --table /b); give one."),
    ],
)
def test_a_bad_argument_is_an_error_sentence_not_an_exit(argv, said):
    assert parse_launch(argv).error == said


def test_pytests_own_arguments_are_not_taken_for_the_apps(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["pytest", "-q", "--tab", "x"])
    assert launch_options() == LaunchOptions()
    monkeypatch.setattr(sys, "argv", [str(REPO / "app.py"), "/t", "--operator"])
    assert launch_options() == LaunchOptions(table="/t", operator=True)


def _dev_sh(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(REPO / "dev.sh"), "app", "--check-args", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_dev_sh_hands_every_argument_to_the_app_in_any_order():
    for args in (["/t", "--operator"], ["--operator", "/t"]):
        done = _dev_sh(*args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "table=/t operator=true"
    assert _dev_sh().stdout.strip() == "table=(demo) operator=false"


def test_dev_sh_reports_a_bad_argument_in_one_line():
    done = _dev_sh("--bogus")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Delta Inspector: Unknown argument: --bogus. Usage: ./dev.sh app")


def test_the_app_started_with_the_flag_after_the_table_is_in_operator_mode(app, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", str(TABLE), "--operator"])

    at = app.run()

    assert not at.exception and not at.error
    assert at.session_state["table_input"] == str(TABLE)
    assert "Restore" in offered_pages(at)


def test_the_app_started_with_the_flag_before_the_table_opens_the_table(app, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--operator", str(TABLE)])

    at = app.run()

    assert not at.exception and not at.error
    assert at.session_state["table_input"] == str(TABLE)
    assert "Restore" in offered_pages(at)


def test_a_bad_argument_shows_a_page_that_says_what_went_wrong(app, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["app.py", "--bogus"])

    at = app.run()

    assert not at.exception
    assert "could not start" in at.title[0].value
    assert "Unknown argument: --bogus." in at.error[0].value
    assert "Usage" not in at.error[0].value and "dev.sh app" in at.error[0].value
    assert "Unknown argument: --bogus." in capsys.readouterr().err


def test_the_console_script_checks_arguments_like_dev_sh():
    code = (
        "import sys; from ui.launch import serve; "
        "sys.exit(serve(['--check-args', '--operator', '/t']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0 and done.stdout.strip() == "table=/t operator=true"


def test_the_sidebar_says_what_spark_is_doing_in_plain_words():
    from inspector.rows.session import SparkStatus

    ready = SparkStatus(state="ready", master="local[*]", version="4.2.0")
    assert ready.describe() == (
        "Spark 4.2.0 running locally; Delta Lake's jars are not on its classpath, so no rows "
        "can be read."
    )
    cluster = SparkStatus(
        state="ready",
        master="spark://h:7077",
        version="4.2.0",
        delta_version="4.4.0",
    )
    assert cluster.describe() == (
        "Spark 4.2.0 running on spark://h:7077; Delta Lake 4.4.0 reads rows and commits restores."
    )
    assert (
        SparkStatus(state="starting", master="local[*]")
        .describe()
        .startswith("Spark is starting locally in the background")
    )


def test_the_warm_up_setting_is_on_unless_switched_off():
    from inspector.settings import Settings

    assert Settings().spark_warmup is True
    assert Settings.from_env({"DELTA_INSPECTOR_SPARK_WARMUP": "false"}).spark_warmup is False
