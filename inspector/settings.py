"""The one registry of settings: defaults, help text and environment overrides.

Every setting can be set with an environment variable ``DELTA_INSPECTOR_<NAME>``
(upper case), and some also with a CLI flag or in the app's sidebar.
``docs/settings.md`` documents each one; ``tests/test_settings.py`` checks that it does.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.connection import Pairs, SparkConf, StorageOptions, parse_pairs
from inspector.delta.errors import InvalidInput

ENV_PREFIX = "DELTA_INSPECTOR_"
#: The clouds' own variables that are storage options too (delta-rs names).
CLOUD_ENV_PREFIXES = ("AWS_", "AZURE_", "AZURITE_", "GOOGLE_")
_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "delta-inspector"


def _setting(default: Any, help: str, *, secret: bool = False) -> Any:
    # A secret setting (credentials) is never in a repr, a log line or an error.
    return field(default=default, repr=not secret, metadata={"help": help})


@dataclass(frozen=True, kw_only=True)
class Settings:
    """All user-tunable settings. Each field's metadata carries its help text."""

    demo_path: str = _setting(
        str(_CACHE / "demo-table"),
        "Where `demo` writes the built-in demo table, and what the app opens when no table is given.",
    )
    timestamp_tolerance_seconds: int = _setting(
        300,
        "Flag a version when its commitInfo timestamp, in-commit timestamp and file "
        "modification time disagree by more than this many seconds (typical of copied tables).",
    )
    preview_rows: int = _setting(100, "Rows shown in a snapshot preview (the first N rows).")
    sample_rows: int = _setting(50, "Rows per page of row-diff samples.")
    max_listed_files: int = _setting(
        100, "At most this many missing or mismatched files are listed in a guard or check result."
    )
    recent_tables_file: str = _setting(
        str(_CACHE / "recent.json"), "Where the app remembers recently opened tables."
    )
    recent_tables_max: int = _setting(10, "How many recently opened tables the sidebar offers.")
    spark_master: str = _setting(
        "local[*]", "Spark master URL: local[*], spark://host:7077, yarn, k8s://... ."
    )
    spark_conf: SparkConf = _setting(
        SparkConf(), "Extra Spark conf as 'key=value' pairs separated by ';' (e.g. spark.jars=...)."
    )
    spark_warmup: bool = _setting(
        True,
        "In the app, start Spark in the background when a page that reads rows opens "
        "(Preview, Diff, Restore), so the first rows do not wait for the JVM. The CLI never "
        "warms up: it starts Spark only for commands that read rows.",
    )
    jar_cache: str = _setting(
        str(_CACHE / "jars"),
        "Where ./dev.sh lists the jars it fetched with Maven (Delta Lake and Hadoop's cloud "
        "connectors, from inspector/rows/jars.pom.xml); Spark reads them in place (a local or "
        "loopback master) or ships them with spark.jars.",
    )
    operator_mode: bool = _setting(
        False, "Show the Restore view in the app. Off by default: the app is read-only."
    )
    desktop_state_file: str = _setting(
        str(_CACHE / "desktop.json"), "Where the desktop window remembers its size."
    )
    audit_log: str = _setting(
        str(_CACHE / "audit.jsonl"), "JSON-lines file where every restore attempt is recorded."
    )
    check_workers: int = _setting(8, "Parallel workers that stat data files during a health check.")
    log_index: bool = _setting(
        True,
        "Keep the commit files read on disk (the log index), so that a table read before "
        "costs only its listing and its new commits. The CLI's --no-cache switches it off.",
    )
    log_index_folder: str = _setting(
        str(_CACHE / "log-index"),
        "Where the log index lives: owner-only (0700), since commits hold real column values "
        "(min/max statistics). Never holds credentials.",
    )
    log_index_max_mb: int = _setting(
        1024, "The log index's size limit in MB; the least recently used tables go first."
    )
    storage_options: StorageOptions = _setting(
        StorageOptions(),
        "Object store options with delta-rs's names (AWS_ENDPOINT_URL, AWS_ALLOW_HTTP, "
        "AZURE_STORAGE_ACCOUNT_NAME, ...) as KEY=VALUE lines (newline separated). The cloud's "
        "own AWS_*, AZURE_* and GOOGLE_* variables are added; the CLI's --storage-option "
        "overrides both. Secret values are never shown.",
        secret=True,
    )

    unity_catalog_url: str = _setting(
        "",
        "The Unity Catalog server that `uc://CATALOG.SCHEMA.TABLE` names resolve through "
        "(e.g. http://localhost:8080 or https://<workspace>.cloud.databricks.com).",
    )
    unity_catalog_token: str = _setting(
        "",
        "The bearer token sent to the Unity Catalog server (empty: none). Never shown, stored "
        "in recent tables or written to the audit log.",
        secret=True,
    )
    glue_endpoint: str = _setting(
        "",
        "The AWS Glue endpoint for `glue://DATABASE.TABLE` names (empty: boto3's own, which "
        "honours AWS_ENDPOINT_URL_GLUE and AWS_ENDPOINT_URL).",
    )
    catalog_timeout_seconds: int = _setting(
        15, "How long a request to a catalog (Unity Catalog, Glue) may take before giving up."
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults overridden by ``DELTA_INSPECTOR_*`` variables (InvalidInput when a value
        does not fit the setting's type)."""
        environ = os.environ if environ is None else environ
        _refuse_retired(environ)
        values = {}
        for f in dataclasses.fields(cls):
            raw = environ.get(ENV_PREFIX + f.name.upper())
            if raw is not None:
                values[f.name] = _convert(f, raw)
        cloud = StorageOptions(
            (k, v) for k, v in environ.items() if k.upper().startswith(CLOUD_ENV_PREFIXES) and v
        )
        values["storage_options"] = cloud.merged(values.get("storage_options", StorageOptions()))
        return cls(**values)

    def secrets(self) -> dict[str, str]:
        """Every secret these settings hold, keyed so that redaction masks each value: the
        storage options and the catalog token (for :func:`inspector.connection.redact_text`)."""
        return {**self.storage_options, "UNITY_CATALOG_TOKEN": self.unity_catalog_token}


#: Settings that chose Delta Inspector's own Spark row reader, retired: Delta Lake on Spark
#: reads every row. A value asking for the own reader is refused in one line.
_RETIRED = {
    "SPARK_ENGINE": ("delta",),
    "SPARK_READ_PATH": ("auto",),
}


def _refuse_retired(environ: Mapping[str, str]) -> None:
    for name, harmless in _RETIRED.items():
        raw = environ.get(ENV_PREFIX + name)
        if raw is not None and raw.strip().lower() not in ("", *harmless):
            raise InvalidInput(
                f"{ENV_PREFIX}{name}={raw!r} asks for Delta Inspector's own row reader, which "
                "was retired: Delta Lake on Spark reads every row.",
                f"Unset {ENV_PREFIX}{name}; if Delta Lake's jars are missing, fetch them once "
                "with ./dev.sh app (the commands that read only the log work without them).",
            )


_PAIRS: dict[str, type[Pairs]] = {kind.__name__: kind for kind in (StorageOptions, SparkConf)}


def _convert(f: dataclasses.Field[Any], raw: str) -> Any:
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    if kind in _PAIRS:
        return parse_pairs(_PAIRS[kind], raw, origin=ENV_PREFIX + f.name.upper())
    try:
        if kind == "bool":
            if raw.strip().lower() not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
                raise ValueError(raw)
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if kind == "int":
            return int(raw)
    except ValueError:
        raise InvalidInput(
            f"{ENV_PREFIX}{f.name.upper()}={raw!r} is not a valid {kind}.",
            f"Set it to a {kind} value or unset it to use the default ({f.default!r}).",
        ) from None
    return raw
