"""Connection settings: one parser, one merge rule, frozen mappings that never show a secret."""

from __future__ import annotations

import copy
import pickle

import pytest

from inspector.connection import SparkConf, StorageOptions, parse_pairs, secrets_in
from inspector.delta.errors import InvalidInput


def test_a_text_and_a_repeated_flag_are_parsed_by_the_same_rule():
    from_text = parse_pairs(StorageOptions, " AWS_REGION = eu \n\nAWS_ALLOW_HTTP=true\n")
    from_flags = parse_pairs(StorageOptions, ["AWS_REGION=eu", "AWS_ALLOW_HTTP=true"])
    assert from_text == from_flags == StorageOptions({"AWS_REGION": "eu", "AWS_ALLOW_HTTP": "true"})


def test_spark_conf_pairs_are_separated_by_semicolons_and_values_may_hold_equals_signs():
    assert parse_pairs(SparkConf, "spark.a=1;spark.b=x=y") == SparkConf(
        {"spark.a": "1", "spark.b": "x=y"}
    )


def test_a_later_source_overrides_an_earlier_one_key_by_key():
    env = StorageOptions({"AWS_REGION": "eu", "AWS_ENDPOINT_URL": "http://env"})
    merged = env.merged({"AWS_ENDPOINT_URL": "http://flag"}, {"AWS_ALLOW_HTTP": "true"})
    assert merged == StorageOptions(
        {"AWS_REGION": "eu", "AWS_ENDPOINT_URL": "http://flag", "AWS_ALLOW_HTTP": "true"}
    )
    assert isinstance(merged, StorageOptions)
    assert env["AWS_ENDPOINT_URL"] == "http://env", "merging makes a new mapping"


def test_the_mappings_are_frozen_and_hashable():
    options = StorageOptions({"AWS_REGION": "eu"})
    with pytest.raises(AttributeError):
        options._items = {}  # type: ignore[misc]
    assert hash(options) == hash(StorageOptions({"AWS_REGION": "eu"}))


def test_the_mappings_survive_pickle_and_copy():
    options = StorageOptions({"AWS_REGION": "eu"})
    assert pickle.loads(pickle.dumps(options)) == options
    assert type(copy.deepcopy(options)) is StorageOptions


def test_a_secret_value_never_appears_in_a_repr():
    options = StorageOptions({"AWS_SECRET_ACCESS_KEY": "s3cr3t-value", "AWS_REGION": "eu"})
    assert "s3cr3t-value" not in repr(options)
    assert "eu" in repr(options)


@pytest.mark.parametrize("bad", ["AWS_REGION", "=eu-west-1"])
def test_an_entry_that_is_not_a_pair_is_bad_input_naming_it(bad):
    with pytest.raises(InvalidInput) as err:
        parse_pairs(StorageOptions, [bad])
    assert err.value.message == f"The storage option '{bad}' is not KEY=VALUE."


def test_secrets_are_found_in_raw_text_without_ever_raising():
    found = secrets_in(["AWS_SECRET_ACCESS_KEY=abcd\nnot a pair", ""])
    assert found == StorageOptions({"AWS_SECRET_ACCESS_KEY": "abcd", "SECRET": "not a pair"})
