"""Storage options: delta-rs's names in, obstore's configuration out, secrets never shown.

Names as delta-rs documents them (``AWS_ACCESS_KEY_ID``, ...), in any case. The backend gets
them explicitly (:class:`inspector.connection.StorageOptions`), never from the environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

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
# obstore's spelling of delta-rs names that differ.
_ALIASES = {"aws_endpoint_url": "aws_endpoint", "aws_endpoint_url_s3": "aws_endpoint"}


def store_config(scheme: str, options: Mapping[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    """Split delta-rs-named options for ``scheme`` (``s3``, ``az``, ``gs``) into obstore's
    store config (lower-case keys) and client options."""
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
        bare = re.sub(r"^(aws_|azure_storage_|azure_|google_)", "", key)
        if bare in _CLIENT_KEYS:
            truthy = str(value).strip().lower() in {"1", "true", "yes", "on"}
            client[bare] = truthy if bare in _BOOL_CLIENT else value
        elif key.startswith(own):
            config[_ALIASES.get(key, key)] = value
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
