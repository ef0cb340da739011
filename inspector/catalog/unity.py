"""Unity Catalog over its REST API (``/api/2.1/unity-catalog``): tables, listings, credentials.

Spoken with ``urllib`` as Unity Catalog's OpenAPI specification has it (the open-source
server and Databricks serve the same API); the bearer token never appears in a message.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

from inspector.catalog.names import DELTA, CatalogName, CatalogTable, ResolvedTable
from inspector.delta.errors import (
    CatalogAccessDenied,
    CatalogUnavailable,
    NotADeltaTable,
    TableNotInCatalog,
)
from inspector.settings import ENV_PREFIX, Settings

API_PATH = "/api/2.1/unity-catalog"
_URL_SETTING = f"{ENV_PREFIX}UNITY_CATALOG_URL"
_TOKEN_SETTING = f"{ENV_PREFIX}UNITY_CATALOG_TOKEN"


class _NotFound(Exception):
    """The server answered 404 (the caller says what was not found)."""


class UnityCatalog:
    """A Unity Catalog server, as the settings name it (CatalogUnavailable when none)."""

    def __init__(self, settings: Settings) -> None:
        url = settings.unity_catalog_url.strip().rstrip("/")
        if not url:
            raise CatalogUnavailable(
                "No Unity Catalog server is configured for uc:// names.",
                f"Set {_URL_SETTING} to the server's URL, e.g. http://localhost:8080.",
            )
        self.url = url
        self._base = url if url.endswith(API_PATH) else url + API_PATH
        self._token = settings.unity_catalog_token.strip()
        self._timeout = settings.catalog_timeout_seconds

    def catalogs(self) -> list[str]:
        """The name of every catalog the token may see."""
        return [str(c.get("name")) for c in self._pages("/catalogs", "catalogs", {})]

    def schemas(self, catalog: str) -> list[str]:
        """The name of every schema of a catalog."""
        try:
            found = self._pages("/schemas", "schemas", {"catalog_name": catalog})
            return [str(s.get("name")) for s in found]
        except _NotFound:
            raise _no_catalog(catalog, self.url) from None

    def tables(self, catalog: str, schema: str) -> list[CatalogTable]:
        """Every table of a schema."""
        query = {"catalog_name": catalog, "schema_name": schema}
        try:
            found = self._pages("/tables", "tables", query)
            return [_listed(f"uc://{catalog}.{schema}.{t.get('name')}", t) for t in found]
        except _NotFound:
            raise _no_schema(catalog, schema, self.url) from None

    def resolve(self, name: CatalogName, *, write: bool) -> ResolvedTable:
        """A ``uc://`` name resolved: its storage location and the credentials the server
        vends (the errors of :func:`inspector.catalog.browse.resolve_table`)."""
        try:
            info = self._call("GET", f"/tables/{_quote(name.full_name)}")
        except _NotFound:  # say which part of the name is missing
            raise self._missing(name) from None
        found = _listed(name.uri, info)
        if found.format != DELTA or not found.location:
            kind = found.format.upper()
            what = f"a {kind} table" if found.format != DELTA else "a table without a location"
            raise NotADeltaTable(
                f"{name} is {what} in Unity Catalog, not a Delta table this tool can open.",
                "Pick a Delta table (data_source_format DELTA).",
            )
        table_id = str(info.get("table_id") or "")
        options = self.credentials(table_id, write=write) if table_id else {}
        return ResolvedTable(name=name.uri, location=found.location, storage_options=options)

    def credentials(self, table_id: str, *, write: bool) -> dict[str, str]:
        """Temporary credentials for a table's location (delta-rs names), or none.

        A server that vends none (a local location, or credentials not configured)
        answers an error or an empty object: the environment's credentials then apply.
        """
        body = {"table_id": table_id, "operation": "READ_WRITE" if write else "READ"}
        try:
            answer = self._call("POST", "/temporary-table-credentials", body)
        except (_NotFound, CatalogAccessDenied, CatalogUnavailable):
            return {}
        # Azure's user-delegation SAS and AWS's session credentials map to delta-rs's
        # options; a GCP OAuth token has none (the environment's credentials apply).
        aws = answer.get("aws_temp_credentials") or {}
        azure = answer.get("azure_user_delegation_sas") or {}
        options = {
            "AWS_ACCESS_KEY_ID": aws.get("access_key_id"),
            "AWS_SECRET_ACCESS_KEY": aws.get("secret_access_key"),
            "AWS_SESSION_TOKEN": aws.get("session_token"),
            "AZURE_STORAGE_SAS_KEY": azure.get("sas_token"),
        }
        return {k: str(v) for k, v in options.items() if v}

    def ratified_commits(self, name: CatalogName) -> tuple[dict[int, str], int] | None:
        """The table's ratified, possibly unpublished commits, from the Delta API's
        ``loadTable`` (Unity Catalog's managed-tables specification 1.0:
        ``GET /delta/v1/catalogs/{catalog}/schemas/{schema}/tables/{table}``, its
        ``commits`` and ``latest-table-version``), as {version: staged file name} and the
        latest ratified version; None when the server has no such API (the Java server's
        ``/delta/preview/commits`` is not asked) or does not coordinate the table's commits
        (no ``latest-table-version``: an external table).
        """
        catalog, schema, table = (_quote(p) for p in name.parts)
        path = f"/delta/v1/catalogs/{catalog}/schemas/{schema}/tables/{table}"
        try:
            answer = self._call("GET", path)
        except (_NotFound, CatalogAccessDenied, CatalogUnavailable):
            return None
        latest = answer.get("latest-table-version")
        try:
            listed = answer.get("commits") or []
            commits = {int(c["version"]): str(c["file-name"]).rsplit("/")[-1] for c in listed}
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return (commits, latest) if isinstance(latest, int) else None

    def _missing(self, name: CatalogName) -> TableNotInCatalog:
        catalog, schema, table = name.parts
        for path, error in (
            (f"/catalogs/{_quote(catalog)}", _no_catalog(catalog, self.url)),
            (f"/schemas/{_quote(catalog + '.' + schema)}", _no_schema(catalog, schema, self.url)),
        ):
            try:
                self._call("GET", path)
            except _NotFound:
                return error
        return TableNotInCatalog(
            f"Unity Catalog has no table '{table}' in {catalog}.{schema} ({self.url}).",
            "Check the name; the app's catalog browser lists the tables.",
        )

    def _pages(self, path: str, key: str, query: Mapping[str, str]) -> Iterator[dict[str, Any]]:
        token = ""
        while True:
            params = {**query, **({"page_token": token} if token else {})}
            answer = self._call("GET", f"{path}?{urllib.parse.urlencode(params)}")
            yield from answer.get(key) or []
            token = answer.get("next_page_token") or ""
            if not token:
                return

    def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        request = urllib.request.Request(
            self._base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Accept": "application/json", "Content-Type": "application/json"},
        )
        if self._token:
            request.add_unredirected_header("Authorization", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                answer = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise CatalogUnavailable(
                f"Cannot reach the Unity Catalog server at {self.url}: {reason}.",
                f"Check {_URL_SETTING} and that the server is running.",
            ) from None
        except ValueError:  # not JSON
            answer = None
        if not isinstance(answer, dict):
            raise CatalogUnavailable(
                f"{self.url} did not answer as a Unity Catalog server (no JSON).",
                f"Check {_URL_SETTING}: the server's base URL, e.g. http://localhost:8080.",
            )
        return answer

    def _http_error(self, exc: urllib.error.HTTPError) -> Exception:
        if exc.code == 404:
            return _NotFound()
        if exc.code in (401, 403):
            return CatalogAccessDenied(
                f"The Unity Catalog server at {self.url} refused the token (HTTP {exc.code}).",
                f"Check {_TOKEN_SETTING} (it is never shown) and the grants on the table.",
            )
        try:
            code = str(json.loads(exc.read()).get("error_code") or exc.reason)
        except (ValueError, AttributeError, OSError):
            code = str(exc.reason)
        return CatalogUnavailable(
            f"The Unity Catalog server at {self.url} answered HTTP {exc.code} ({code}).",
            "Try again later, or check the server's log.",
        )


def _listed(name: str, info: Mapping[str, Any]) -> CatalogTable:
    """A ``TableInfo`` as the catalog lists it under ``name``."""
    kind = str(info.get("data_source_format") or "unknown").lower()
    return CatalogTable(name=name, format=kind, location=str(info.get("storage_location") or ""))


def _quote(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _no_catalog(catalog: str, url: str) -> TableNotInCatalog:
    return TableNotInCatalog(
        f"Unity Catalog has no catalog '{catalog}' ({url}).",
        "Check the name's first part; the app's catalog browser lists the catalogs.",
    )


def _no_schema(catalog: str, schema: str, url: str) -> TableNotInCatalog:
    return TableNotInCatalog(
        f"Unity Catalog has no schema '{schema}' in catalog '{catalog}' ({url}).",
        "Check the name's second part; the app's catalog browser lists the schemas.",
    )
