"""The change data feed's columns and change types, and the range check before Spark starts.

:func:`check_range` refuses a range with versions written without the feed (their changes
were never recorded: ``diff --rows`` compares such versions). Delta Lake reads the feed
(:func:`inspector.rows.delta_engine.read_change_feed`); counting and paging it is
:mod:`inspector.rows.changefeed`.
"""

from __future__ import annotations

from enum import StrEnum

from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.log.deltalog import DeltaLog

CDF_PROPERTY = "delta.enableChangeDataFeed"
CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP = (
    "_change_type",
    "_commit_version",
    "_commit_timestamp",
)


class ChangeType(StrEnum):
    """The values of ``_change_type``."""

    INSERT = "insert"
    DELETE = "delete"
    UPDATE_PREIMAGE = "update_preimage"
    UPDATE_POSTIMAGE = "update_postimage"


class ChangeDataFeedDisabled(UnsupportedFeature):
    """Some versions of the range were written without the change data feed."""


def check_range(log: DeltaLog, from_version: int, to_version: int) -> None:
    """Refuse a range outside the log, reversed, or with versions written without the feed.

    Raises:
        InvalidInput: ``from`` after ``to``.
        VersionNotFound: A bound outside the log.
        ChangeDataFeedDisabled: Naming the versions without the feed.
    """
    if from_version > to_version:
        raise InvalidInput(
            f"The range starts at version {from_version}, after its end {to_version}.",
            "Give --from at or before --to.",
        )
    log.snapshot(from_version)
    log.snapshot(to_version)  # both raise VersionNotFound with the table's range
    off = [
        v
        for v in range(from_version, to_version + 1)
        if log.snapshot(v).metadata.configuration.get(CDF_PROPERTY, "").lower() != "true"
    ]
    if off:
        raise ChangeDataFeedDisabled(
            f"The change data feed ({CDF_PROPERTY}) was not enabled at version(s) "
            f"{_ranges(off)}, so their changes were not recorded.",
            "Pick versions written while the property was true, or compare the versions "
            "with `diff --rows` instead.",
        )


def _ranges(versions: list[int]) -> str:
    spans: list[list[int]] = []
    for v in versions:
        if spans and spans[-1][1] == v - 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
