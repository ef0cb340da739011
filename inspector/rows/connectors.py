"""Hadoop's object-store connectors: how Delta Lake on Spark reaches a table's files.

Which connector (in the jar cache of :mod:`inspector.rows.jars`) serves a URI, how the URI
is spelled for it (``s3://`` becomes ``s3a://``), and which Hadoop ``fs.*`` conf carries the
storage options. The conf goes with each read as Delta's DataFrame options, never set on
the shared session and never printed: it holds secrets.

Hadoop's ABFS connector speaks only the DFS API of ``*.dfs.core.windows.net``, so a
Blob-only endpoint (the emulator Azurite) gives no rows, in one line. That is an emulator's
missing endpoint, not a user's table: rows on Azure are tested as the log-level commands
against Azurite plus Delta's reads on local disk and S3 (moto).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from inspector.log.snapshot import Snapshot

from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.rows.session import has_class


@dataclass(frozen=True, kw_only=True)
class Connector:
    """A Hadoop file system for object storage: its class and Maven package."""

    filesystem_class: str
    package: str


S3A = Connector(
    filesystem_class="org.apache.hadoop.fs.s3a.S3AFileSystem",
    package="org.apache.hadoop:hadoop-aws",
)
ABFS = Connector(
    filesystem_class="org.apache.hadoop.fs.azurebfs.SecureAzureBlobFileSystem",
    package="org.apache.hadoop:hadoop-azure",
)
GCS = Connector(
    filesystem_class="com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem",
    package="com.google.cloud.bigdataoss:gcs-connector",
)
_BY_SCHEME = {"s3": S3A, "s3a": S3A, "abfss": ABFS, "abfs": ABFS, "az": ABFS, "gs": GCS}
_DFS = ".dfs.core.windows.net"


def connector_for(uri: str, options: Mapping[str, str] | None = None) -> Connector | None:
    """The connector that serves ``uri``'s scheme, or None (local paths, unknown schemes,
    or an Azure blob endpoint given in the options, which ABFS cannot reach)."""
    connector = _BY_SCHEME.get(urlsplit(uri).scheme.lower())
    if connector is ABFS and _option(options or {}, "AZURE_STORAGE_ENDPOINT", "ENDPOINT"):
        return None
    return connector


def hadoop_uri(uri: str, options: Mapping[str, str] | None = None) -> str:
    """``uri`` as the connector names it: ``s3a://b/k``, or
    ``abfss://container@ACCOUNT.dfs.core.windows.net/k`` (the account from
    ``AZURE_STORAGE_ACCOUNT_NAME`` when the URI has none); others are kept.

    Raises:
        InvalidInput: An Azure URI without an account, none in the options either.
    """
    parts = urlsplit(uri)
    scheme, netloc = parts.scheme.lower(), parts.netloc
    if scheme in ("s3", "s3a"):
        return urlunsplit(("s3a", netloc, parts.path, "", ""))
    if scheme not in ("az", "abfs", "abfss"):
        return uri
    if "@" not in netloc:
        account = _option(options or {}, "AZURE_STORAGE_ACCOUNT_NAME", "ACCOUNT_NAME")
        if not account:
            raise InvalidInput(
                f"The Azure location names the container '{netloc}' but not its storage account.",
                "Write abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH, or set "
                "AZURE_STORAGE_ACCOUNT_NAME.",
            )
        netloc = f"{netloc}@{account}{_DFS}"
    return urlunsplit(("abfss", netloc, parts.path, "", ""))


def hadoop_conf(uri: str, options: Mapping[str, str]) -> dict[str, str]:
    """The Hadoop conf that gives the connector the storage options (holds secrets): per
    bucket (S3) or account (Azure), so two tables' credentials never mix."""
    parts = urlsplit(hadoop_uri(uri, options))
    if parts.scheme == "s3a":
        return _s3a_conf(parts.netloc, options)
    if parts.scheme == "abfss":
        return _abfs_conf(parts.netloc.split("@", 1)[-1], options)
    if parts.scheme == "gs":
        return _gcs_conf(options)
    return {}


def _option(options: Mapping[str, str], *names: str) -> str | None:
    """An option by any of its names (delta-rs / object_store spellings, any case)."""
    upper = {k.upper(): v for k, v in options.items()}
    return next((upper[name] for name in names if upper.get(name)), None)


def _s3a_conf(bucket: str, options: Mapping[str, str]) -> dict[str, str]:
    prefix = f"fs.s3a.bucket.{bucket}."
    conf: dict[str, str] = {}
    key = _option(options, "AWS_ACCESS_KEY_ID", "ACCESS_KEY_ID")
    secret = _option(options, "AWS_SECRET_ACCESS_KEY", "SECRET_ACCESS_KEY")
    token = _option(options, "AWS_SESSION_TOKEN", "AWS_TOKEN", "SESSION_TOKEN", "TOKEN")
    if key and secret:
        conf[prefix + "access.key"] = key
        conf[prefix + "secret.key"] = secret
        provider = "TemporaryAWSCredentialsProvider" if token else "SimpleAWSCredentialsProvider"
        conf[prefix + "aws.credentials.provider"] = "org.apache.hadoop.fs.s3a." + provider
    if token:
        conf[prefix + "session.token"] = token
    if region := _option(options, "AWS_REGION", "AWS_DEFAULT_REGION", "REGION"):
        conf[prefix + "endpoint.region"] = region
    if endpoint := _option(options, "AWS_ENDPOINT_URL", "AWS_ENDPOINT", "ENDPOINT_URL", "ENDPOINT"):
        conf[prefix + "endpoint"] = endpoint
        conf[prefix + "connection.ssl.enabled"] = str(endpoint.startswith("https:")).lower()
        # Self-hosted S3 servers (MinIO, moto, Ceph) address buckets by path.
        conf[prefix + "path.style.access"] = "true"
    virtual = _option(options, "AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "VIRTUAL_HOSTED_STYLE_REQUEST")
    if virtual:
        conf[prefix + "path.style.access"] = str(virtual.lower() not in ("true", "1")).lower()
    return conf


def _abfs_conf(host: str, options: Mapping[str, str]) -> dict[str, str]:
    conf: dict[str, str] = {}
    key = _option(options, "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY", "ACCOUNT_KEY")
    sas = _option(options, "AZURE_STORAGE_SAS_TOKEN", "SAS_TOKEN", "SAS_KEY")
    client = _option(options, "AZURE_CLIENT_ID", "CLIENT_ID")
    if key:
        conf[f"fs.azure.account.key.{host}"] = key
    elif sas:
        conf[f"fs.azure.account.auth.type.{host}"] = "SAS"
        conf[f"fs.azure.sas.fixed.token.{host}"] = sas.lstrip("?")
    elif client:
        tenant = _option(options, "AZURE_TENANT_ID", "TENANT_ID") or ""
        conf[f"fs.azure.account.auth.type.{host}"] = "OAuth"
        conf[f"fs.azure.account.oauth.provider.type.{host}"] = (
            "org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider"
        )
        conf[f"fs.azure.account.oauth2.client.id.{host}"] = client
        conf[f"fs.azure.account.oauth2.client.secret.{host}"] = (
            _option(options, "AZURE_CLIENT_SECRET", "CLIENT_SECRET") or ""
        )
        conf[f"fs.azure.account.oauth2.client.endpoint.{host}"] = (
            f"https://login.microsoftonline.com/{tenant}/oauth2/token"
        )
    return conf


def _gcs_conf(options: Mapping[str, str]) -> dict[str, str]:
    conf: dict[str, str] = {}
    keyfile = _option(
        options, "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_SERVICE_ACCOUNT", "SERVICE_ACCOUNT"
    )
    if keyfile:
        conf["fs.gs.auth.type"] = "SERVICE_ACCOUNT_JSON_KEYFILE"
        conf["fs.gs.auth.service.account.json.keyfile"] = keyfile
    if endpoint := _option(options, "GOOGLE_CLOUD_STORAGE_ENDPOINT", "STORAGE_EMULATOR_HOST"):
        conf["fs.gs.storage.root.url"] = endpoint
    return conf


def spark_location(spark: Any, snapshot: Snapshot) -> tuple[str, dict[str, str]]:
    """The table root as Delta on Spark takes it, and the Hadoop conf that reaches its store.

    Raises:
        UnsupportedFeature: No connector on the session reaches the store (named).
    """
    if snapshot.storage.local_path() is not None:
        return snapshot.table_root, {}
    options = snapshot.storage.options
    connector = connector_for(snapshot.table_root, options)
    if connector is None or not has_class(spark, connector.filesystem_class):
        raise UnsupportedFeature(
            f"Spark has no connector that reaches {snapshot.table_root}, so its rows cannot be "
            "read (Hadoop's ABFS connector needs an account's dfs.core.windows.net endpoint; "
            "a Blob-only endpoint such as the emulator Azurite has none).",
            f"Add {connector.package if connector else 'a Hadoop connector for the scheme'} "
            "with spark.jars.packages in spark_conf, or copy the table to a local folder.",
        )
    return hadoop_uri(snapshot.table_root, options), hadoop_conf(snapshot.table_root, options)
