"""Table properties (``metaData.configuration``): every ``delta.*`` key the code uses.

One place for each rule about a property: its key, Delta's default, how a boolean is
read and how an interval is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from inspector.delta.errors import InvalidInput
from inspector.delta.schema import StructType

APPEND_ONLY = "delta.appendOnly"
ENABLE_CHANGE_DATA_FEED = "delta.enableChangeDataFeed"
ENABLE_IN_COMMIT_TIMESTAMPS = "delta.enableInCommitTimestamps"
ICT_ENABLEMENT_VERSION = "delta.inCommitTimestampEnablementVersion"
ICT_ENABLEMENT_TIMESTAMP = "delta.inCommitTimestampEnablementTimestamp"
ROW_TRACKING_SUSPENDED = "delta.rowTrackingSuspended"
ENABLE_ROW_TRACKING = "delta.enableRowTracking"
COLUMN_MAPPING_MODE = "delta.columnMapping.mode"
COLUMN_MAPPING_MAX_ID = "delta.columnMapping.maxColumnId"
LOG_RETENTION = "delta.logRetentionDuration"
DELETED_FILE_RETENTION = "delta.deletedFileRetentionDuration"
TARGET_FILE_SIZE = "delta.targetFileSize"
DATA_SKIPPING_NUM_INDEXED_COLS = "delta.dataSkippingNumIndexedCols"
DATA_SKIPPING_STATS_COLUMNS = "delta.dataSkippingStatsColumns"
#: Every key under this prefix names the table's commit coordinator (coordinated commits).
COORDINATED_COMMITS_PREFIX = "delta.coordinatedCommits."
#: The domain (``domainMetadata``) that holds liquid-clustering columns.
CLUSTERING_DOMAIN = "delta.clustering"
#: Every key under this prefix is a CHECK constraint (``ALTER TABLE ADD CONSTRAINT``).
CONSTRAINTS_PREFIX = "delta.constraints."

#: Delta's default of each property (``DeltaConfigs``), used when a table does not set it.
DEFAULTS: Mapping[str, str] = {
    APPEND_ONLY: "false",
    ENABLE_CHANGE_DATA_FEED: "false",
    ENABLE_IN_COMMIT_TIMESTAMPS: "false",
    ROW_TRACKING_SUSPENDED: "false",
    ENABLE_ROW_TRACKING: "false",
    COLUMN_MAPPING_MODE: "none",
    LOG_RETENTION: "interval 30 days",
    DELETED_FILE_RETENTION: "interval 1 week",
    TARGET_FILE_SIZE: "134217728",
    DATA_SKIPPING_NUM_INDEXED_COLS: "32",
}


def enabled(configuration: Mapping[str, str], key: str) -> bool:
    """Whether a boolean property is on, read as Delta reads it (Scala's ``toBoolean``):
    ``true``/``false`` in any case; unset or any other value means Delta's default, so a
    damaged property never switches a feature on."""
    value = str(configuration.get(key)).lower()  # unset: "none", Delta's default
    return value == "true" if value in ("true", "false") else DEFAULTS.get(key) == "true"


_MICROS = {
    "week": 7 * 86_400_000_000,
    "day": 86_400_000_000,
    "hour": 3_600_000_000,
    "minute": 60_000_000,
    "second": 1_000_000,
    "millisecond": 1_000,
    "microsecond": 1,
}
_MONTHS = {"year": 12, "month": 1}
# One "value unit" pair of Spark's IntervalUtils.stringToInterval, the grammar Delta's
# parseCalendarInterval uses: an optional sign (spaces may follow it), ASCII digits with at
# most nine fractional digits (or ".5"), at least one space, a unit with an optional "s",
# then a space or the end. Only seconds may have a fraction ("1.5 days" is refused).
_PAIR = re.compile(
    r"\s*(?P<sign>[+-]?)\s*(?P<int>[0-9]*)(?P<frac>\.[0-9]{0,9})?\s+"
    r"(?P<unit>year|month|week|day|hour|minute|second|millisecond|microsecond)s?(?=\s|$)"
)
_LONG = 2**63 - 1
_INT = 2**31 - 1


def parse_interval(text: str) -> int:
    """Parse a retention interval exactly as Delta does; the duration in milliseconds.

    Delta (``DeltaConfigs.parseCalendarInterval``) trims and lower-cases the text,
    prefixes ``interval `` when absent and hands it to Spark's
    ``IntervalUtils.stringToInterval``; a retention must then have no months and not
    be negative (``isValidIntervalConfigValue``): ``1.5 days`` (only seconds may have a
    fraction), ``1 month`` (months have no fixed length) and ``-1 day`` are refused.

    Raises:
        InvalidInput: If Delta would refuse the value.
    """
    lowered = str(text).strip().lower()
    # Delta adds the prefix unless the text starts with "interval " (a space, not a tab).
    body = (lowered[len("interval ") :] if lowered.startswith("interval ") else lowered).rstrip()
    if not body:
        raise _bad_interval(text)
    months = days = micros = position = 0
    while position < len(body):
        match = _PAIR.match(body, position)
        if match is None or not (match["int"] or len(match["frac"] or "") > 1):
            raise _bad_interval(text)
        months, days, micros = _add_pair(text, match, months, days, micros)
        position = match.end()
    ms = (days * 86_400_000_000 + micros) // 1000  # DeltaConfigs.getMilliSeconds
    if months or ms < 0:
        raise _bad_interval(text)
    return ms


def _add_pair(
    text: str, match: re.Match[str], months: int, days: int, micros: int
) -> tuple[int, int, int]:
    """Add one "value unit" pair, with Spark's overflow checks (int months/days, long micros)."""
    unit, frac = match["unit"], match["frac"]
    if frac is not None and unit != "second":
        raise _bad_interval(text)
    value = int(match["int"] or "0")
    fraction = int((frac or ".")[1:].ljust(9, "0")) // 1000  # nanoseconds -> microseconds
    if value > _LONG:
        raise _bad_interval(text)
    if match["sign"] == "-":
        value, fraction = -value, -fraction
    if unit in _MONTHS:
        part, months = value * _MONTHS[unit], months + value * _MONTHS[unit]
    elif unit in ("week", "day"):
        part, days = value, days + value * (7 if unit == "week" else 1)
    else:
        part, micros = value * _MICROS[unit], micros + value * _MICROS[unit] + fraction
    if abs(part) > _LONG or abs(months) > _INT or abs(days) > _INT or abs(micros) > _LONG:
        raise _bad_interval(text)
    return months, days, micros


def _bad_interval(text: str) -> InvalidInput:
    return InvalidInput(
        f"'{text}' is not a retention interval Delta accepts.",
        "Write it like 'interval 30 days' or 'interval 1 week' (no months or years; only "
        "seconds may have a fraction).",
    )


def format_duration(ms: int) -> str:
    """``2 days 12 hours`` for 216000000: the largest units, exactly (weeks shown as days)."""
    if ms == 0:
        return "0 seconds"
    parts, rest = [], ms
    for name in ("day", "hour", "minute", "second", "millisecond"):
        count, rest = divmod(rest, _MICROS[name] // 1000)
        if count:
            parts.append(f"{count} {name}{'s' if count != 1 else ''}")
    return " ".join(parts)


@dataclass(frozen=True, kw_only=True)
class Retention:
    """One retention property in force (the table's value, else Delta's default): ``text``
    is what ``ms`` was parsed from, ``problem`` why the table's value was not used."""

    key: str
    ms: int
    text: str
    problem: str | None = None

    def describe(self) -> str:
        """``2 days 12 hours (delta.deletedFileRetentionDuration = 'interval 2 days 12 hours')``."""
        return f"{format_duration(self.ms)} ({self.key} = '{self.text}')"


def retention(configuration: Mapping[str, str], key: str) -> Retention:
    """A retention property in force: the table's value, else Delta's default (``problem``
    says so when an invalid value was replaced: Delta itself would fail on such a table)."""
    default = DEFAULTS[key]
    text = configuration.get(key) or default
    try:
        return Retention(key=key, ms=parse_interval(text), text=text)
    except InvalidInput as exc:
        return Retention(
            key=key,
            ms=parse_interval(default),
            text=default,
            problem=f"{key}: {exc.message} Delta's default ({default}) is assumed.",
        )


_SIZE = re.compile(r"^\s*(?P<n>[0-9]+)\s*(?P<unit>b|k|kb|m|mb|g|gb|t|tb)?\s*$")
_SIZE_UNITS = {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


@dataclass(frozen=True, kw_only=True)
class TargetFileSize:
    """The file size OPTIMIZE aims for: the table's valid ``delta.targetFileSize``
    (``from_table``), else Delta's 128 MB default (``problem`` says why, if set)."""

    bytes: int
    from_table: bool
    problem: str | None = None


def target_file_size(configuration: Mapping[str, str]) -> TargetFileSize:
    """``delta.targetFileSize`` in bytes (``134217728``, ``128mb``, ``1g``), else 128 MB."""
    default = int(DEFAULTS[TARGET_FILE_SIZE])
    text = configuration.get(TARGET_FILE_SIZE)
    if text is None:
        return TargetFileSize(bytes=default, from_table=False)
    match = _SIZE.match(str(text).lower())
    if match is None or int(match["n"]) <= 0:
        problem = f"{TARGET_FILE_SIZE} = '{text}' is not a size; the 128 MB default is assumed."
        return TargetFileSize(bytes=default, from_table=False, problem=problem)
    unit = _SIZE_UNITS[(match["unit"] or "b")[0]]
    return TargetFileSize(bytes=int(match["n"]) * unit, from_table=True)


@dataclass(frozen=True, kw_only=True)
class StatsColumnsPolicy:
    """Which columns writers collect statistics for: ``delta.dataSkippingStatsColumns``
    (None when unset), else ``delta.dataSkippingNumIndexedCols`` (32; -1 = all)."""

    columns: tuple[str, ...] | None
    num_indexed_cols: int

    def describe(self) -> str:
        """``delta.dataSkippingStatsColumns = a, b`` or ``first 32 columns (...)``."""
        if self.columns is not None:
            return f"{DATA_SKIPPING_STATS_COLUMNS} = {', '.join(self.columns)}"
        if self.num_indexed_cols < 0:
            return f"all columns ({DATA_SKIPPING_NUM_INDEXED_COLS} = -1)"
        return f"first {self.num_indexed_cols} columns ({DATA_SKIPPING_NUM_INDEXED_COLS})"

    def indexed_leaves(
        self, schema: StructType, partition_columns: Iterable[str]
    ) -> tuple[tuple[str, ...], ...]:
        """The leaf columns (logical paths) writers collect statistics for: the listed ones,
        else the first ``num_indexed_cols`` leaves of the data columns, counted as Delta's
        ``StatisticsCollection`` does (an array or a map is one leaf)."""
        if self.columns is not None:
            return tuple(tuple(c.split(".")) for c in self.columns)
        parts = set(partition_columns)
        data = StructType(fields=tuple(f for f in schema.fields if f.name not in parts))
        leaves = tuple(_leaves(data, ()))
        return leaves if self.num_indexed_cols < 0 else leaves[: self.num_indexed_cols]


def _leaves(struct: StructType, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for f in struct.fields:
        if isinstance(f.type, StructType):
            yield from _leaves(f.type, (*path, f.name))
        else:
            yield (*path, f.name)


def stats_columns_policy(configuration: Mapping[str, str]) -> StatsColumnsPolicy:
    """The table's data-skipping statistics settings (Delta's defaults when unset or invalid)."""
    listed = configuration.get(DATA_SKIPPING_STATS_COLUMNS)
    columns = None
    if isinstance(listed, str) and listed.strip():
        columns = tuple(c.strip().strip("`") for c in listed.split(",") if c.strip())
    default = int(DEFAULTS[DATA_SKIPPING_NUM_INDEXED_COLS])
    try:
        count = int(str(configuration.get(DATA_SKIPPING_NUM_INDEXED_COLS, default)).strip())
    except ValueError:
        count = default
    return StatsColumnsPolicy(columns=columns, num_indexed_cols=count if count >= -1 else default)
