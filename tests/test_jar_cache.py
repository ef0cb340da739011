"""Specification: Delta's engine needs the jar cache ./dev.sh fills; an absent or partial cache
is one line (exit 5) naming the command that fetches it, before any JVM starts."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from inspector.rows.jars import CLASSPATH_KEYS, classpath_file, delta_conf
from inspector.settings import Settings
from tests.conftest import one_error_line, run_main


def test_an_absent_jar_cache_is_one_line_naming_the_fetch_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_JAR_CACHE", str(tmp_path / "no-cache"))
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_MASTER", "local[1]")

    code, _, err = _show_in_fresh_process(tmp_path, capsys)

    assert code == 5
    line = one_error_line(err)
    assert "jar cache" in line and "./dev.sh app" in line
    assert "commands that read only the log" in line and "ENGINE" not in line


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


def _cache_of(tmp_path, *names: str) -> Settings:
    """A jar cache listing ``names``, each a real (tiny) file."""
    settings = Settings(jar_cache=str(tmp_path / "jars"))
    jars = [tmp_path / name for name in names]
    for jar in jars:
        jar.write_bytes(b"PK")
    classpath_file(settings).parent.mkdir(parents=True)
    classpath_file(settings).write_text(os.pathsep.join(map(str, jars)))
    return settings


@pytest.mark.parametrize(
    "master",
    ["local[2]", "local-cluster[2,1,1024]", "spark://127.0.0.1:7077", "spark://localhost:1"],
)
def test_where_every_executor_runs_here_the_jars_are_read_in_place_not_shipped(tmp_path, master):
    settings = replace(
        _cache_of(tmp_path, "delta-spark_4.2_2.13-4.4.0.jar", "b.jar"), spark_master=master
    )

    conf = delta_conf(settings, {"spark.executor.extraClassPath": "/opt/mine.jar"})

    assert "spark.jars" not in conf
    cached = [str(tmp_path / "delta-spark_4.2_2.13-4.4.0.jar"), str(tmp_path / "b.jar")]
    assert conf["spark.driver.extraClassPath"] == os.pathsep.join(cached)
    assert conf["spark.executor.extraClassPath"] == os.pathsep.join([*cached, "/opt/mine.jar"])


@pytest.mark.parametrize(
    "master",
    [
        "spark://head:7077",
        "spark://127.0.0.1:7077,head:7077",
        "yarn",
        "k8s://https://127.0.0.1:6443",
    ],
)
def test_a_cluster_that_may_run_executors_elsewhere_receives_the_jars_with_spark_jars(
    tmp_path, master
):
    settings = replace(_cache_of(tmp_path, "delta-spark_4.2_2.13-4.4.0.jar"), spark_master=master)

    conf = delta_conf(settings, {"spark.jars": "/opt/mine.jar"})

    assert conf["spark.jars"] == f"{tmp_path / 'delta-spark_4.2_2.13-4.4.0.jar'},/opt/mine.jar"
    assert not set(conf) & set(CLASSPATH_KEYS)
