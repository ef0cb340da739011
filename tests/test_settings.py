"""The settings registry: every setting documented, environment overrides, bad values."""

from __future__ import annotations

import dataclasses

import pytest

from inspector.connection import SparkConf, StorageOptions
from inspector.delta.errors import InvalidInput
from inspector.settings import ENV_PREFIX, Settings
from tests.conftest import REPO


def describe_settings() -> list[tuple[str, str, object, str]]:
    """(name, environment variable, default, help) of every setting."""
    return [
        (f.name, ENV_PREFIX + f.name.upper(), f.default, f.metadata["help"])
        for f in dataclasses.fields(Settings)
    ]


def documented_settings_rows() -> list[str]:
    """The rows of the settings table in docs/settings.md."""
    text = (REPO / "docs" / "settings.md").read_text()
    return [line for line in text.splitlines() if line.startswith("| `")]


@pytest.mark.parametrize("name, env, default, help", describe_settings(), ids=lambda v: str(v)[:40])
def test_every_setting_is_documented_in_docs_settings(name, env, default, help):
    assert env == ENV_PREFIX + name.upper()
    assert help.strip(), "every setting has help text"
    rows = [row for row in documented_settings_rows() if f"`{name}`" in row]
    assert len(rows) == 1, f"docs/settings.md's table needs one row for `{name}`"
    assert f"`{env}`" in rows[0]


def test_the_docs_document_no_setting_that_does_not_exist():
    names = {name for name, *_ in describe_settings()}
    documented = {row.split("`")[1] for row in documented_settings_rows()}
    assert documented == names


def test_defaults_apply_without_environment():
    assert Settings.from_env({}) == Settings()
    assert Settings().timestamp_tolerance_seconds == 300
    assert Settings().operator_mode is False


def test_environment_variables_override_each_kind_of_setting():
    settings = Settings.from_env(
        {
            "DELTA_INSPECTOR_TIMESTAMP_TOLERANCE_SECONDS": "60",
            "DELTA_INSPECTOR_OPERATOR_MODE": "yes",
            "DELTA_INSPECTOR_SPARK_MASTER": "spark://h:7077",
            "DELTA_INSPECTOR_UNRELATED": "ignored",
            "TIMESTAMP_TOLERANCE_SECONDS": "1",
        }
    )
    assert settings.timestamp_tolerance_seconds == 60
    assert settings.operator_mode is True
    assert settings.spark_master == "spark://h:7077"
    assert settings.preview_rows == Settings().preview_rows


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("1", True),
        ("true", True),
        ("ON", True),
        (" yes ", True),
        ("0", False),
        ("false", False),
        ("off", False),
        ("No", False),
    ],
)
def test_boolean_settings_accept_the_usual_spellings(raw, expected):
    assert Settings.from_env({"DELTA_INSPECTOR_OPERATOR_MODE": raw}).operator_mode is expected


def test_the_process_environment_is_read_by_default(monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_PREVIEW_ROWS", "7")
    assert Settings.from_env().preview_rows == 7


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Settings) if f.type == "int"])
def test_a_bad_number_is_refused_with_a_hint(name):
    env = ENV_PREFIX + name.upper()
    with pytest.raises(InvalidInput) as err:
        Settings.from_env({env: "five"})
    assert err.value.message == f"{env}='five' is not a valid int."
    assert "unset it to use the default" in err.value.hint


def test_a_bad_boolean_is_refused_with_a_hint():
    with pytest.raises(InvalidInput) as err:
        Settings.from_env({"DELTA_INSPECTOR_OPERATOR_MODE": "maybe"})
    assert err.value.message == "DELTA_INSPECTOR_OPERATOR_MODE='maybe' is not a valid bool."
    assert "unset it to use the default (False)" in err.value.hint


def test_spark_conf_is_parsed_into_pairs_and_bad_entries_are_refused():
    settings = Settings.from_env({"DELTA_INSPECTOR_SPARK_CONF": " spark.a=1 ; spark.b = x=y ;;"})
    assert settings.spark_conf == SparkConf({"spark.a": "1", "spark.b": "x=y"})
    with pytest.raises(InvalidInput) as err:
        Settings.from_env({"DELTA_INSPECTOR_SPARK_CONF": "spark.a=1;oops"})
    assert "'oops' in DELTA_INSPECTOR_SPARK_CONF is not key=value" in err.value.message
    assert "separate entries with ';'" in err.value.hint


def test_storage_options_come_from_the_clouds_variables_overridden_by_the_setting():
    settings = Settings.from_env(
        {
            "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL": "http://a",
            "DELTA_INSPECTOR_STORAGE_OPTIONS": "AWS_ENDPOINT_URL=http://b\n\nAWS_ALLOW_HTTP=true",
        }
    )
    assert settings.storage_options == StorageOptions(
        {"AWS_REGION": "eu-west-1", "AWS_ENDPOINT_URL": "http://b", "AWS_ALLOW_HTTP": "true"}
    )


def test_a_malformed_storage_option_line_is_refused_without_showing_a_secret():
    with pytest.raises(InvalidInput) as err:
        Settings.from_env({"DELTA_INSPECTOR_STORAGE_OPTIONS": "AWS_SECRET_ACCESS_KEYs3cr3t"})
    assert err.value.message == (
        "The storage option a secret in DELTA_INSPECTOR_STORAGE_OPTIONS is not KEY=VALUE."
    )
    assert "s3cr3t" not in err.value.message + err.value.hint


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().preview_rows = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    "name, value",
    [("SPARK_ENGINE", "own"), ("SPARK_READ_PATH", "native"), ("SPARK_READ_PATH", "python")],
)
def test_asking_for_the_retired_own_row_reader_is_one_line_saying_what_to_do(name, value):
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({ENV_PREFIX + name: value})
    assert "Delta Lake on Spark reads every row" in caught.value.message
    assert f"Unset {ENV_PREFIX}{name}" in caught.value.hint


def test_the_retired_settings_at_their_old_defaults_are_harmless():
    environ = {ENV_PREFIX + "SPARK_ENGINE": "delta", ENV_PREFIX + "SPARK_READ_PATH": "auto"}
    assert Settings.from_env(environ) == Settings()
