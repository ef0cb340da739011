"""Specification: Delta's engine needs the jar cache ./dev.sh fills; an absent or partial cache
is one line (exit 5) naming the command that fetches it, before any JVM starts."""

from __future__ import annotations

import os

from inspector.rows.jars import classpath_file
from inspector.settings import Settings
from tests.conftest import one_error_line, run_main


def test_an_absent_jar_cache_is_one_line_naming_the_fetch_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_JAR_CACHE", str(tmp_path / "no-cache"))
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_ENGINE", "delta")
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_MASTER", "local[1]")

    code, _, err = _show_in_fresh_process(tmp_path, capsys)

    assert code == 5
    line = one_error_line(err)
    assert "jar cache" in line and "./dev.sh app" in line


def test_a_partial_jar_cache_names_the_missing_jar(tmp_path, capsys, monkeypatch):
    cache = tmp_path / "jars"
    listing = classpath_file(Settings(jar_cache=str(cache)))
    listing.parent.mkdir(parents=True)
    present = tmp_path / "delta-spark_4.2_2.13-4.4.0.jar"
    present.write_bytes(b"PK")
    listing.write_text(os.pathsep.join([str(present), str(tmp_path / "bundle-2.35.4.jar")]))
    monkeypatch.setenv("DELTA_INSPECTOR_JAR_CACHE", str(cache))

    code, _, err = _show_in_fresh_process(tmp_path, capsys)

    assert code == 5
    line = one_error_line(err)
    assert "partial" in line and "bundle-2.35.4.jar" in line and "./dev.sh" in line


def _show_in_fresh_process(tmp_path, capsys):
    """``show`` on a real table in a process whose Spark has not started (the cache is
    checked before the JVM: nothing here starts one)."""
    import subprocess
    import sys

    table = tmp_path / "t"
    code, _, _ = run_main(capsys, "demo", table)
    assert code == 0
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "show", str(table)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr
