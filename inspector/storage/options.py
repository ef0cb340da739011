"""Storage options: delta-rs's names in, obstore's configuration out, secrets never shown.

Users give options with the names delta-rs documents (``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``, ``AWS_ALLOW_HTTP``, ``AZURE_STORAGE_ACCOUNT_NAME``,
``AZURE_STORAGE_USE_EMULATOR``, ``GOOGLE_APPLICATION_CREDENTIALS``, ...), in any case.
The environment's cloud variables become the ``storage_options`` setting
(:meth:`inspector.settings.Settings.from_env`, read only by the CLI and the app); the
backend always gets its options explicitly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from inspector.delta.errors import InvalidInput

#: Client (HTTP) options: valid for every store, with or without a cloud prefix.
_CLIENT_KEYS = frozenset(
    {
        "allow_http",
        "allow_invalid_certificates",
        "connect_timeout",
        "timeout",
        "proxy_url",
        "proxy_ca_certificate",
        "proxy_excludes",
        "pool_idle_timeout",
        "user_agent",
    }
)
_PREFIXES = {"s3": ("aws_",), "az": ("azure_storage_", "azure_"), "gs": ("google_",)}
# delta-rs options that configure its own commit coordination, which we never use:
# writes here always need a store that creates a file only if it is absent.
_IGNORED = frozenset(
    {
        "aws_s3_allow_unsafe_rename",
        "aws_s3_locking_provider",
        "delta_dynamo_table_name",
        "aws_profile",
        "aws_default_region_fallback",
        "aws_ec2_metadata_disabled",
        "aws_shared_credentials_file",
        "aws_config_file",
    }
)
# Variables the clouds' CLIs and SDKs read that are not store options (they are often set
# in a shell, and the environment's cloud variables are passed as options): skipped.
_NOT_STORE_OPTIONS = re.compile(
    r"aws_(ca_bundle|max_attempts|retry_mode|default_output|sts_regional_endpoints|"
    r"use_fips_endpoint|use_dualstack_endpoint|sdk_\w+|pager|cli_\w+|data_path|"
    r"ignore_configured_endpoint_urls|execution_env|lambda_\w+|region_name|"
    r"endpoint_url_(?!s3$)\w+)|"
    r"azure_(config_dir|core_\w+|subscription_id|extension_dir|http_user_agent|"
    r"functions_environment|devops_\w+)|google_cloud_\w+|google_api_\w+"
)
_BOOL_CLIENT = frozenset({"allow_http", "allow_invalid_certificates"})
# The words that make an option name secret: written once, used for option keys and for
# ``NAME=value`` pairs inside text.
_SECRET_WORDS = "SECRET|PASSWORD|TOKEN|KEY|SAS|SIG|CONNECTION_STRING|CREDENTIAL"
_SECRET = re.compile(_SECRET_WORDS, re.I)
_URL_QUERY = re.compile(r"(https?://[^\s?\"'<>]+)\?[^\s\"'<>]*")
# ``NAME=value`` where NAME says secret (AccountKey=, sig=, X-Amz-Signature=,
# AWS_SECRET_ACCESS_KEY=, ...): the value up to a separator is masked.
_SECRET_ASSIGNMENT = re.compile(
    rf"(\b[\w-]*(?:{_SECRET_WORDS})[\w-]*\s*=\s*)"
    r"(?!\*\*\*|value\b)([^\s;&,'\"<>]+)",
    re.I,
)
REDACTED = "***"


def parse_option(text: str) -> tuple[str, str]:
    """One ``KEY=VALUE`` storage option as typed on the command line.

    Raises:
        InvalidInput: If there is no ``=`` or the key is empty.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        shown = "a secret" if is_secret(text) else f"'{redact_text(text)}'"
        raise InvalidInput(
            f"The storage option {shown} is not KEY=VALUE.",
            "Write it like --storage-option AWS_REGION=eu-west-1.",
        )
    return key.strip(), value


def is_secret(key: str) -> bool:
    """True for an option whose value must never be shown (keys, tokens, secrets)."""
    return bool(_SECRET.search(key))


def redact_options(options: Mapping[str, str]) -> dict[str, str]:
    """A copy of the options safe to show: secret values replaced by ``***``."""
    return {k: (REDACTED if is_secret(k) else v) for k, v in options.items()}


def redact_text(text: str, options: Mapping[str, str] | None = None) -> str:
    """Text safe to show: the one redaction for the CLI, the app and the audit log.

    Masks the values of secret options given (wherever they appear), URL query strings
    (SAS tokens, presigned ``X-Amz-Signature``), and any ``NAME=value`` whose name says
    secret (``AccountKey=``, ``sig=``, ``AWS_SECRET_ACCESS_KEY=``).

    Args:
        text: What is about to be shown or written.
        options: Storage options in use (their secret values are masked anywhere).
    """
    out = text
    for key, value in sorted((options or {}).items(), key=lambda kv: -len(kv[1])):
        if is_secret(key) and len(value) >= 4:
            out = out.replace(value, REDACTED)
    out = _URL_QUERY.sub(r"\1?" + REDACTED, out)
    return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, out)


def store_config(scheme: str, options: Mapping[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    """Split delta-rs-named options into obstore's store config and client options.

    Args:
        scheme: ``s3``, ``az`` or ``gs``.
        options: The options, delta-rs names in any case.

    Returns:
        (store config with lower-case keys, client options).
    """
    config: dict[str, str] = {}
    client: dict[str, Any] = {}
    own = _PREFIXES[scheme]
    for raw_key, value in options.items():
        key = raw_key.lower()
        if key in _IGNORED or key.startswith("azurite_") or _NOT_STORE_OPTIONS.fullmatch(key):
            continue
        if key == "azure_storage_connection_string":
            if scheme == "az":
                config.update(_connection_string(value))
                if config.get("azure_storage_endpoint", "").startswith("http://"):
                    client["allow_http"] = True  # Azurite's BlobEndpoint=http://...
            continue
        bare = _strip(key, ("aws_", "azure_storage_", "azure_", "google_"))
        if bare in _CLIENT_KEYS:
            client[bare] = _truthy(value) if bare in _BOOL_CLIENT else value
        elif key.startswith(own):
            config[_alias(scheme, key)] = value
        elif not key.startswith(("aws_", "azure_", "google_")):
            config[key] = value  # a bare obstore key such as "endpoint" or "region"
    return config, client


def _connection_string(text: str) -> dict[str, str]:
    """Azure's ``AccountName=...;AccountKey=...;BlobEndpoint=...`` as obstore config."""
    fields = dict(part.split("=", 1) for part in text.split(";") if "=" in part and part.strip())
    names = {
        "AccountName": "azure_storage_account_name",
        "AccountKey": "azure_storage_account_key",
        "BlobEndpoint": "azure_storage_endpoint",
        "SharedAccessSignature": "azure_storage_sas_key",
    }
    config = {names[k]: v for k, v in fields.items() if k in names}
    if fields.get("UseDevelopmentStorage", "").lower() == "true":
        config["azure_storage_use_emulator"] = "true"
    return config


def _alias(scheme: str, key: str) -> str:
    """obstore spellings of delta-rs names that differ."""
    aliases = {
        "aws_endpoint_url": "aws_endpoint",
        "aws_endpoint_url_s3": "aws_endpoint",
        "google_application_credentials": "google_application_credentials",
    }
    return aliases.get(key, key)


def _strip(key: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def _truthy(value: str) -> bool:
    return str(value).strip().lower() in {"1", "true", "yes", "on"}
