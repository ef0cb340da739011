"""The one error hierarchy of Delta Inspector, grouped by what the user must do.

Every error carries what is wrong (``message``) and what to do next (``hint``); its
group declares the CLI's exit code (:class:`ExitCode`, documented in ``docs/errors.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum, StrEnum
from typing import Any, ClassVar, Protocol


class ExitCode(IntEnum):
    """The CLI's exit codes: each says what the user must do next."""

    OK = 0
    UNEXPECTED = 1  # a bug: report it
    BAD_INPUT = 2  # fix the command line, the path, the version, ...
    RESTORE_REFUSED = 3  # nothing was written; resolve the refusal or plan again
    INCONSISTENT = 4  # check: the latest version is not consistent (recover)
    ENVIRONMENT = 5  # fix the machine: Java, Spark, storage access
    DAMAGED_TABLE = 6  # the table's log or files are damaged: see `check`
    INTERRUPTED = 130  # Ctrl-C; nothing was written


class InspectorError(Exception):
    """Base class of every error a user can act on."""

    exit_code: ClassVar[ExitCode] = ExitCode.BAD_INPUT

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    @property
    def kind(self) -> str:
        return type(self).__name__

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class BadInput(InspectorError):
    """Something the user gave (a path, a version, a value) cannot be used as given."""


class NotADeltaTable(BadInput):
    """The path does not exist or holds no readable ``_delta_log``."""


class VersionNotFound(BadInput):
    """The requested version is not in the log (never written, or expired)."""

    @classmethod
    def not_in_log(
        cls, version: int, earliest: int, latest: int, *, gaps: bool = False
    ) -> VersionNotFound:
        """The one message for a version the log does not have (CLI and app alike)."""
        return cls(
            f"Version {version} is not in this table's log; it has versions {earliest} to "
            f"{latest}{' with gaps' if gaps else ''}.",
            f"Pick a version between {earliest} and {latest}.",
        )


class TimestampOutOfRange(BadInput):
    """A timestamp is before the earliest or after the latest version."""


class InvalidInput(BadInput):
    """A value typed by the user (version, timestamp, filter, ...) is malformed."""


class UnsupportedFeature(BadInput):
    """The table uses a feature this tool cannot read or write correctly (use Delta itself)."""


class TableNotInCatalog(BadInput):
    """A catalog has no table, schema (database) or catalog of the name given."""


class RefusalReason(StrEnum):
    """Why the backend refused a restore (``RestoreRefused.reasons``)."""

    GUARDS = "guards"  # a guard failed and no override covers it
    NOT_CONFIRMED = "not_confirmed"  # the typed table name or version does not match
    NO_CONFIRMATION = "no_confirmation"  # no way to confirm (no terminal, no --yes)
    NO_REASON = "no_reason"  # every restore needs a reason
    UNEXPECTED_VERSION = "unexpected_version"  # not at the expected version
    TABLE_MOVED = "table_moved"  # another writer committed after the plan, or the name moved
    FILES_CHANGED = "files_changed"  # files to re-add went missing after the plan


class RefusedPlan(Protocol):
    """What a refusal shows of the plan it refused (``inspector.restore.RestorePlan``)."""

    def to_json(self) -> dict[str, Any]: ...

    def guards_json(self) -> list[dict[str, Any]]: ...


class RestoreRefused(InspectorError):
    """The backend refused a restore; nothing was written.

    ``reasons`` are every reason for the refusal; ``plan`` the plan refused (None when the
    refusal came before a plan).
    """

    exit_code = ExitCode.RESTORE_REFUSED

    def __init__(
        self,
        message: str,
        hint: str = "",
        *,
        reasons: Sequence[RefusalReason] = (),
        plan: RefusedPlan | None = None,
    ) -> None:
        super().__init__(message, hint)
        self.reasons = tuple(reasons)
        self.plan = plan


class ConcurrentModification(RestoreRefused):
    """Another writer committed first; nothing was written."""


class EnvironmentProblem(InspectorError):
    """The machine, not the table or the input, is at fault: Java, Spark, storage access."""

    exit_code = ExitCode.ENVIRONMENT


class SparkUnavailable(EnvironmentProblem):
    """The Spark session could not be started (no Java, bad master URL, ...)."""


class DeltaJarsMissing(EnvironmentProblem):
    """Delta Lake's jars are not in the jar cache, or only partly: fetch them once."""


class StorageUnavailable(EnvironmentProblem):
    """The storage holding the table cannot be reached or refuses the credentials."""


class CatalogUnavailable(EnvironmentProblem):
    """The catalog (Unity Catalog server, AWS Glue) cannot be reached or is not configured."""


class CatalogAccessDenied(EnvironmentProblem):
    """The catalog refused the token or credentials (never shown)."""


class DesktopUnavailable(EnvironmentProblem):
    """The desktop window cannot open here (no display, no webview backend, no server)."""


class DamagedTable(InspectorError):
    """The table's log or data files are damaged; ``check`` says what and how to recover."""

    exit_code = ExitCode.DAMAGED_TABLE


class CorruptLog(DamagedTable):
    """The log cannot be replayed to the requested version."""


class MissingDataFile(DamagedTable):
    """A file the log references is absent or has the wrong size."""
