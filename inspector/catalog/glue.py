"""AWS Glue with boto3: a ``glue://DATABASE.TABLE`` name to its Delta location and credentials.

Credentials and region come from the storage options' ``AWS_*`` keys, else boto3's chain;
the object store then uses the credentials the lookup used. A Delta table in Glue comes in
two forms: as Spark registers it (a placeholder location, the real one in the SerDe
parameter ``path``, ``spark.sql.sources.provider`` = ``delta``), or with a plain location
and ``table_type`` = ``DELTA`` (Athena, Glue crawlers, delta-rs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from inspector.catalog.names import DELTA, CatalogName, CatalogTable, ResolvedTable
from inspector.delta.errors import (
    CatalogAccessDenied,
    CatalogUnavailable,
    InvalidInput,
    NotADeltaTable,
    TableNotInCatalog,
)
from inspector.settings import ENV_PREFIX, Settings

_T = TypeVar("_T")

_DENIED = frozenset(
    {
        "AccessDeniedException",
        "UnrecognizedClientException",
        "InvalidClientTokenId",
        "InvalidSignatureException",
        "SignatureDoesNotMatch",
        "ExpiredTokenException",
    }
)
PLACEHOLDER = "__PLACEHOLDER__"


class Glue:
    """The Glue Data Catalog of an AWS account and region, reached with boto3."""

    def __init__(self, settings: Settings) -> None:
        import boto3
        import botocore.config

        options = {k.upper(): v for k, v in settings.storage_options.items()}
        self._session = boto3.session.Session(
            aws_access_key_id=options.get("AWS_ACCESS_KEY_ID"),
            aws_secret_access_key=options.get("AWS_SECRET_ACCESS_KEY"),
            aws_session_token=options.get("AWS_SESSION_TOKEN"),
            region_name=options.get("AWS_REGION") or options.get("AWS_DEFAULT_REGION"),
        )
        endpoint = (
            settings.glue_endpoint
            or options.get("AWS_ENDPOINT_URL_GLUE")
            or options.get("AWS_ENDPOINT_URL")
            or None
        )
        timeout = settings.catalog_timeout_seconds
        config = botocore.config.Config(
            connect_timeout=timeout, read_timeout=timeout, retries={"max_attempts": 1}
        )
        self.endpoint = endpoint or "AWS Glue"
        self._client = self._guard(
            lambda: self._session.client("glue", endpoint_url=endpoint, config=config)
        )

    def schemas(self, catalog: str) -> list[str]:
        """Every database's name (Glue's one catalog's schemas)."""
        return self._guard(
            lambda: [d["Name"] for d in self._paged("get_databases", "DatabaseList")]
        )

    def tables(self, catalog: str, database: str) -> list[CatalogTable]:
        """Every table of a database."""
        self._require_database(database)
        found = self._guard(
            lambda: list(self._paged("get_tables", "TableList", DatabaseName=database))
        )
        return [_listed(f"glue://{database}.{t['Name']}", t) for t in found]

    def resolve(self, name: CatalogName, *, write: bool) -> ResolvedTable:
        """A ``glue://`` name resolved: its Delta location, and the credentials to read it
        (the errors of :func:`inspector.catalog.browse.resolve_table`)."""
        database, table = name.parts
        record = self._guard(lambda: self._get_table(database, table))
        if record is None:
            self._require_database(database)
            raise TableNotInCatalog(
                f"Glue has no table '{table}' in database '{database}'.",
                "Check the name; the app's catalog browser lists the tables.",
            )
        found = _listed(name.uri, record)
        if found.format != DELTA:
            raise NotADeltaTable(
                f"{name} is not a Delta table in Glue (its format: {found.format}).",
                "Pick a table with table_type DELTA or spark.sql.sources.provider delta.",
            )
        if not found.location:
            raise NotADeltaTable(
                f"The Glue table {record.get('DatabaseName')}.{record.get('Name')} records no "
                "location for its Delta table (only Spark's placeholder).",
                "Register the table with its location (SerDe parameter 'path').",
            )
        return ResolvedTable(
            name=name.uri, location=found.location, storage_options=self.credentials()
        )

    def credentials(self) -> dict[str, str]:
        """The credentials and region boto3 used, as storage options (for the object store)."""
        found = self._session.get_credentials()
        frozen = found.get_frozen_credentials() if found is not None else None
        options = {
            "AWS_ACCESS_KEY_ID": frozen.access_key if frozen else None,
            "AWS_SECRET_ACCESS_KEY": frozen.secret_key if frozen else None,
            "AWS_SESSION_TOKEN": frozen.token if frozen else None,
            "AWS_REGION": self._session.region_name,
        }
        return {k: v for k, v in options.items() if v}

    def _get_table(self, database: str, table: str) -> dict[str, Any] | None:
        try:
            return dict(self._client.get_table(DatabaseName=database, Name=table)["Table"])
        except self._client.exceptions.EntityNotFoundException:
            return None

    def _has_database(self, database: str) -> bool:
        try:
            self._client.get_database(Name=database)
        except self._client.exceptions.EntityNotFoundException:
            return False
        return True

    def _require_database(self, database: str) -> None:
        if not self._guard(lambda: self._has_database(database)):
            raise TableNotInCatalog(
                f"Glue has no database '{database}'.",
                "Check the name's first part; the app's catalog browser lists the databases.",
            )

    def _paged(self, operation: str, key: str, **kwargs: str) -> Iterator[dict[str, Any]]:
        for page in self._client.get_paginator(operation).paginate(**kwargs):
            yield from page.get(key) or []

    def _guard(self, call: Callable[[], _T]) -> _T:
        """Run a boto3 call, its failures in plain words (never a credential)."""
        import botocore.exceptions as bx

        try:
            return call()
        except bx.NoRegionError:
            raise CatalogUnavailable(
                "No AWS region is set for Glue.", "Set AWS_REGION (or a storage option)."
            ) from None
        except (bx.NoCredentialsError, bx.PartialCredentialsError):
            raise CatalogAccessDenied(
                "No AWS credentials were found for Glue.",
                "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or a role.",
            ) from None
        except bx.ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in _DENIED:
                raise CatalogAccessDenied(
                    f"{self.endpoint} refused the AWS credentials ({code}).",
                    "Check the credentials (never shown) and the Glue permissions.",
                ) from None
            raise CatalogUnavailable(
                f"{self.endpoint} failed the request ({code}).", "Try again later."
            ) from None
        except bx.ParamValidationError:
            raise InvalidInput(
                "Glue does not accept that database or table name.",
                "Names are at most 255 characters, without control characters.",
            ) from None
        except (bx.ConnectionError, bx.HTTPClientError) as exc:  # refused, timed out
            raise CatalogUnavailable(
                f"Cannot reach the Glue endpoint {self.endpoint}: {type(exc).__name__}.",
                f"Check {ENV_PREFIX}GLUE_ENDPOINT / AWS_ENDPOINT_URL_GLUE and the network.",
            ) from None


def _listed(name: str, record: Mapping[str, Any]) -> CatalogTable:
    """A Glue table record as the catalog lists it under ``name``: its format (``delta`` when
    either form says so, else what it records) and where it lives (the SerDe ``path``,
    Spark's form, else the storage location unless it is Spark's placeholder)."""
    params = {k.lower(): str(v) for k, v in (record.get("Parameters") or {}).items()}
    provider = params.get("spark.sql.sources.provider", "").lower()
    kind = params.get("table_type", "").lower()
    storage = record.get("StorageDescriptor") or {}
    serde = storage.get("SerdeInfo", {})
    recorded = provider or kind or params.get("classification", "").lower()
    recorded = recorded or serde.get("SerializationLibrary", "") or "unknown"
    path = str((serde.get("Parameters") or {}).get("path", ""))
    location = str(storage.get("Location") or "")
    return CatalogTable(
        name=name,
        format=DELTA if DELTA in (provider, kind) else recorded,
        location=path or ("" if PLACEHOLDER in location else location),
    )
