"""obstore's errors in plain words: missing file, no such bucket, refused credentials, no network.

A message never carries a secret: the store's own text is cut to its first line
and passed through :func:`~inspector.storage.options.redact_text`.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping

from obstore.exceptions import NotFoundError, PermissionDeniedError, UnauthenticatedError

from inspector.connection import redact_text
from inspector.delta.errors import NotADeltaTable, StorageUnavailable

# GCS's XML API says NoSuchBucket too; fake-gcs-server (the tests' GCS) says "no bucket named".
_NO_BUCKET = (
    "NoSuchBucket",
    "ContainerNotFound",
    "The specified bucket does not exist",
    "no bucket named",
)
_REFUSED = (
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "AuthenticationFailed",
    "AuthorizationFailure",
    "AuthorizationPermissionMismatch",
    "AccessDenied",
    "403 Forbidden",
    "401 Unauthorized",
    "InvalidAuthenticationInfo",
)
_UNREACHABLE = (
    "error sending request",
    "Connection refused",
    "connection refused",
    "tcp connect error",
    "dns error",
    "timed out",
)
_CREDENTIALS_HINT = (
    "Check the credentials: the cloud's standard variables (AWS_ACCESS_KEY_ID, "
    "AZURE_STORAGE_ACCOUNT_KEY, GOOGLE_APPLICATION_CREDENTIALS, ...) or --storage-option "
    "KEY=VALUE; see docs/object-storage.md."
)


def translate(exc: BaseException, root: str, path: str, options: Mapping[str, str]) -> Exception:
    """The error to raise for an obstore failure on ``path`` of the table at ``root``:
    ``FileNotFoundError`` (a missing object, like a missing local file), ``NotADeltaTable``
    (no bucket or container) or ``StorageUnavailable`` (refused, unreachable, other)."""
    text = str(exc)
    first = redact_text(text.splitlines()[0] if text else type(exc).__name__, options)[:300]
    if isinstance(exc, (NotFoundError, FileNotFoundError)) and not _has(text, _NO_BUCKET):
        return FileNotFoundError(errno.ENOENT, "No such object", path)
    if _has(text, _NO_BUCKET):
        return NotADeltaTable(
            f"The bucket or container of '{root}' does not exist.",
            "Check the bucket (or container and account) name in the location, and the "
            "endpoint and region options.",
        )
    if isinstance(exc, (PermissionDeniedError, UnauthenticatedError)) or _has(text, _REFUSED):
        return StorageUnavailable(
            f"The object store refused access to '{root}' (wrong or missing credentials, "
            "or no permission to read it).",
            _CREDENTIALS_HINT,
        )
    if _has(text, _UNREACHABLE):
        return StorageUnavailable(
            f"The object store holding '{root}' cannot be reached ({_endpoint(options)}): "
            "the connection failed or timed out.",
            "Check the network, and the endpoint option (AWS_ENDPOINT_URL, "
            "AZURE_STORAGE_ENDPOINT, GOOGLE_BASE_URL) if you set one.",
        )
    return StorageUnavailable(
        f"The object store failed reading '{root}': {first}.",
        "Try again; if it persists, check the location, endpoint and credentials.",
    )


def _has(text: str, needles: tuple[str, ...]) -> bool:
    return any(n in text for n in needles)


def _endpoint(options: Mapping[str, str]) -> str:
    for key, value in options.items():
        if "ENDPOINT" in key.upper() or key.upper() in {"GOOGLE_BASE_URL", "BASE_URL"}:
            return f"endpoint {redact_text(value)}"
        if key.upper() == "AZURE_STORAGE_CONNECTION_STRING":
            return "the endpoint of the connection string"
    return "the cloud's default endpoint"
