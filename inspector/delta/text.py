"""Small text forms shared by every layer: times, version ranges and partition labels."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from itertools import groupby

#: format_time's form, for Streamlit's datetime columns.
TIME_FORMAT = "YYYY-MM-DD HH:mm:ss.SSS [UTC]"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = timedelta(seconds=1)


def format_time(ms: int | float | None) -> str | None:
    """The one way a moment is shown to people: ``2026-11-24 10:39:41.191 UTC``.

    Always UTC and always to the millisecond (two commits a few milliseconds apart
    never read the same). Every form shown is accepted back as input
    (``table.timetravel.parse_timestamp``); JSON keeps ISO 8601, for scripts.
    """
    if ms is None:
        return None
    whole, frac = divmod(int(ms), 1000)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(whole)) + f".{frac:03d} UTC"


def format_moment(moment: datetime) -> str:
    """:func:`format_time` of an aware (or naive UTC) datetime."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    seconds = (aware - _EPOCH) // _SECOND  # floored, as timegm (calendar: 2-3 ms of start-up)
    return format_time(seconds * 1000 + aware.microsecond // 1000) or ""


def counted(n: int | None, noun: str, plural: str | None = None) -> str:
    """The one way a count is said in text: ``1 version``, ``3,100 rows``, ``? rows``."""
    many = plural or f"{noun}s"
    if n is None:
        return f"? {many}"
    return f"{n:,} {noun if n == 1 else many}"


def version_spans(versions: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """The runs of consecutive versions as ``(first, last)``: ``[(3, 5), (9, 9)]`` from
    ``[3, 4, 5, 9]`` (versions in ascending order)."""
    runs = groupby(enumerate(versions), lambda iv: iv[1] - iv[0])
    return tuple((run[0][1], run[-1][1]) for run in (list(r) for _, r in runs))


def version_ranges(versions: Iterable[int]) -> str:
    """Compact ``3..5, 9`` from ``[3, 4, 5, 9]`` (versions in ascending order)."""
    return ", ".join(f"{a}..{b}" if a < b else str(a) for a, b in version_spans(versions))


def partition_label(
    values: Mapping[str, str | None] | Iterable[tuple[str, str | None]],
    *,
    unpartitioned: str = "(unpartitioned)",
) -> str:
    """``region=EU/day=2024-05-01`` (Hive style, in the given order); null values as ``null``."""
    pairs = values.items() if isinstance(values, Mapping) else values
    label = "/".join(f"{k}={'null' if v is None else v}" for k, v in pairs)
    return label or unpartitioned
