"""The one error hierarchy of Delta Inspector.

Every error carries a plain statement of what is wrong (``message``) and what the
user can do next (``hint``). The UI and the CLI render these in one place each
(``inspector.cli.main.run`` and ``app.render_error``); nothing else formats errors.
"""

from __future__ import annotations


class InspectorError(Exception):
    """Base class of every error a user can act on.

    Args:
        message: What is wrong, in plain words.
        hint: What to do next.
    """

    #: Exit code for the CLI. 2 means bad input; subclasses may override.
    exit_code = 2

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    @property
    def kind(self) -> str:
        """The error's type name, as used in JSON output."""
        return type(self).__name__

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class NotADeltaTable(InspectorError):
    """The path does not exist or holds no readable ``_delta_log``."""


class CorruptLog(InspectorError):
    """The log cannot be replayed to the requested version."""


class VersionNotFound(InspectorError):
    """The requested version is not in the log (never written, or expired)."""


class TimestampOutOfRange(InspectorError):
    """A timestamp is before the earliest or after the latest version."""


class InvalidInput(InspectorError):
    """A value typed by the user (version, timestamp, filter, ...) is malformed."""


class UnsupportedFeature(InspectorError):
    """The table uses a feature this tool cannot read or write correctly."""


class MissingDataFile(InspectorError):
    """A file the log references is absent or has the wrong size."""


class SparkUnavailable(InspectorError):
    """The Spark session could not be started (no Java, bad master URL, ...)."""


class DesktopUnavailable(InspectorError):
    """The desktop window cannot open here (no display, no webview backend, no server)."""

    exit_code = 5


class RestoreRefused(InspectorError):
    """A guard refused a restore; nothing was written."""

    exit_code = 3


class ConcurrentModification(RestoreRefused):
    """Another writer committed first; nothing was written."""


class StorageUnavailable(InspectorError):
    """The storage holding the table cannot be reached or refuses the credentials.

    An environment problem (exit code 5): fix the network, endpoint or credentials.
    """

    exit_code = 5
