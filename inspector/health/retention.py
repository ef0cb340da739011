"""Retention: which versions can still be restored, and until when.

The two clocks (log cleanup, VACUUM) and what they run on: docs/health.md, "Retention view".
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import orjson

from inspector.delta import properties
from inspector.delta.text import format_time
from inspector.health.records import HealthReport, VersionStatus
from inspector.health.replica import newest_metadata
from inspector.health.trace import trace
from inspector.log.deltalog import DeltaLog
from inspector.log.index.answers import KeptAnswer, listing_identity, times_identity
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_time import iso


class RetentionState(StrEnum):
    """Whether a version can still be restored (see :class:`VersionRetention`)."""

    RESTORABLE = "restorable"
    LOG_EXPIRED = "log-expired"
    DATA_VACUUMED = "data-vacuumed"
    INCOMPLETE = "incomplete"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, kw_only=True)
class RetentionPolicy:
    """The table's two retention properties in force (``delta.logRetentionDuration`` and
    ``delta.deletedFileRetentionDuration``)."""

    log: properties.Retention
    deleted_files: properties.Retention

    @property
    def problems(self) -> tuple[str, ...]:
        """Why a table's value was not used (Delta's default is assumed instead)."""
        return tuple(r.problem for r in (self.log, self.deleted_files) if r.problem)


@dataclass(frozen=True, kw_only=True)
class VacuumRun:
    """A VACUUM recorded in the log (its ``VACUUM START`` commit)."""

    version: int
    timestamp: int
    retention_ms: int

    @property
    def cutoff(self) -> int:
        """Files removed before this time (ms) were deleted by this run."""
        return self.timestamp - self.retention_ms


@dataclass(frozen=True, kw_only=True)
class VersionRetention:
    """Whether a version can still be restored; ``expires_at`` is when a restorable one can
    start to disappear (ms), by ``expires_by`` (which retention)."""

    version: int
    state: RetentionState
    timestamp: int | None
    expires_at: int | None
    expires_by: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class RetentionView:
    """Every version with a commit file or checkpoint, oldest first, and what bounds it."""

    policy: RetentionPolicy
    versions: tuple[VersionRetention, ...]
    vacuums: tuple[VacuumRun, ...]
    earliest_version: int


def retention_policy(configuration: Mapping[str, str]) -> RetentionPolicy:
    """The retention durations a table's properties set (defaults when unset or invalid)."""
    return RetentionPolicy(
        log=properties.retention(configuration, properties.LOG_RETENTION),
        deleted_files=properties.retention(configuration, properties.DELETED_FILE_RETENTION),
    )


def retention_view(
    log: DeltaLog,
    history: Sequence[HistoryEntry],
    report: HealthReport | None = None,
    *,
    now_ms: int | None = None,
) -> RetentionView:
    """Mark each version restorable, log-expired, data-vacuumed, incomplete or unreadable
    (``history``: oldest first, for the timestamps; ``report``: where a health check covers
    a version, the files actually present decide, else VACUUM commits and removal times
    predict)."""
    context = _Context(log, history, report, now_ms)
    versions = sorted(set(context.times) | set(context.checkpoints))
    return RetentionView(
        policy=context.policy,
        versions=tuple(context.judge(v) for v in versions),
        vacuums=tuple(context.vacuums),
        earliest_version=log.earliest_version,
    )


def _vacuum_runs(history: Sequence[HistoryEntry], policy: RetentionPolicy) -> list[VacuumRun]:
    runs = []
    for entry in (e for e in history if e.operation == "VACUUM START"):
        params = entry.operation_parameters
        retention = params.get("specifiedRetentionMillis") or params.get("defaultRetentionMillis")
        try:
            retention_ms = int(retention)  # type: ignore[arg-type]
        except (TypeError, ValueError):  # none recorded, or not a number: the table's
            retention_ms = policy.deleted_files.ms
        stamp = entry.timestamps.history
        runs.append(VacuumRun(version=entry.version, timestamp=stamp, retention_ms=retention_ms))
    return runs


def _kept_removals(log: DeltaLog, times: Mapping[int, int]) -> dict[int, int]:
    """:func:`_first_removals`, kept in the log index under the identity of every log file
    and the history's times: a later open of an unchanged log reads it back instead of
    tracing every commit again (seconds at 100,000 commits); any other log computes it
    afresh and keeps that."""
    identity = None if log.index is None else listing_identity(log.listing)
    if log.index is None or identity is None:  # no index, or a catalog's staged commit
        return _first_removals(log, times)
    kept = KeptAnswer(log.index, "removals", [*identity, times_identity(times)])
    if (text := kept.load()) is not None:
        with suppress(ValueError, TypeError):  # not what this code writes: worked out afresh
            versions, stamps = orjson.loads(text)
            return dict(zip(versions, stamps, strict=True))
    found = _first_removals(log, times)
    kept.save(orjson.dumps([list(found), list(found.values())]).decode())
    return found


def _first_removals(log: DeltaLog, times: Mapping[int, int]) -> dict[int, int]:
    """For each version, when (ms) the first file live at it was removed later on (the
    remove's ``deletionTimestamp``, else its commit's time): the trace's removals in the
    log's order, each settling the unsettled versions its file was live in (a union-find
    "next unsettled version" pointer keeps this linear)."""
    found = trace(log, deep=False).intervals
    rows = np.flatnonzero(found.closed)
    rows = rows[np.lexsort((found.removed_line[rows], found.end[rows]))]
    settled: dict[int, int] = {}
    jump: dict[int, int] = {}
    for start, end, stamp in zip(
        *(a[rows].tolist() for a in (found.start, found.end, found.removed_at)), strict=True
    ):
        when = stamp or times.get(end)
        v = _next_unsettled(jump, start)
        while v < end and when is not None:
            settled[v], jump[v] = when, v + 1
            v = _next_unsettled(jump, v + 1)
    return settled


def _next_unsettled(jump: dict[int, int], v: int) -> int:
    root = v
    while root in jump:
        root = jump[root]
    while v in jump and jump[v] != root:  # path compression
        jump[v], v = root, jump[v]
    return root


class _Context:
    """What judges a version: the policy, the history's clocks, the VACUUMs, the removals,
    the checkpoints and the health check's verdicts."""

    def __init__(
        self,
        log: DeltaLog,
        history: Sequence[HistoryEntry],
        report: HealthReport | None,
        now_ms: int | None,
    ) -> None:
        newest = newest_metadata(log)
        self.policy = retention_policy(newest.configuration if newest else {})
        self.times = {e.version: e.timestamps.history for e in history}
        self.vacuums = _vacuum_runs(history, self.policy)  # ascending by version
        self._vacuum_versions = [run.version for run in self.vacuums]
        self.removals = _kept_removals(log, self.times)
        self.checkpoints = sorted({cp.version for cp in log.listing.usable_checkpoints()})
        self.checked = {v.version: v for v in report.versions} if report is not None else {}
        self.now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
        # once each: asking the log costs a pass over its listing
        self.earliest_version, self.latest_version = log.earliest_version, log.latest_version

    def judge(self, version: int) -> VersionRetention:
        lost = self._lost(version)
        state, reason = lost or (RetentionState.RESTORABLE, "")
        at, by = (self._bound(version) if lost is None else None) or (None, None)
        return VersionRetention(
            version=version,
            state=state,
            timestamp=self.times.get(version),
            expires_at=at,
            expires_by=by,
            reason=reason if lost is not None else self._restorable(version, at, by),
        )

    def _restorable(self, version: int, at: int | None, by: str | None) -> str:
        """Why a restorable version is (or stops being) restorable, in words."""
        if at is None:
            if version == self.latest_version:
                return "Current version."
            return "No retention bound applies yet (no later checkpoint, no file removed since)."
        if at <= self.now_ms:
            return f"At risk since {format_time(at)} by the {by}: the next cleanup or VACUUM may remove it."
        return f"Restorable until {format_time(at)} by the {by}."

    def _lost(self, version: int) -> tuple[RetentionState, str] | None:
        """Why a version can no longer be restored (its state and the reason), or None."""
        if version < self.earliest_version:
            return (
                RetentionState.LOG_EXPIRED,
                "The log no longer holds what is needed to rebuild it "
                f"(the earliest version that can be rebuilt is {self.earliest_version}).",
            )
        health = self.checked.get(version)
        if health is not None and health.status == VersionStatus.UNREADABLE:
            return (RetentionState.UNREADABLE, " ".join(p.message for p in health.problems))
        after = bisect.bisect_right(self._vacuum_versions, version)  # the first VACUUM after it
        vacuum = self.vacuums[after] if after < len(self.vacuums) else None
        if health is not None and health.status == VersionStatus.INCOMPLETE:
            if vacuum is not None:
                return (
                    RetentionState.DATA_VACUUMED,
                    f"VACUUM at version {vacuum.version} deleted files it needs "
                    f"({health.missing_count} missing).",
                )
            return (
                RetentionState.INCOMPLETE,
                f"{health.missing_count} file(s) missing, {health.size_mismatch_count} "
                "damaged, and no VACUUM explains it (replication not finished, or "
                "files deleted by hand).",
            )
        removed = self.removals.get(version)
        if health is None and vacuum and removed is not None and removed < vacuum.cutoff:
            return (
                RetentionState.DATA_VACUUMED,
                f"VACUUM at version {vacuum.version} deleted files removed before "
                f"{format_time(vacuum.cutoff)}; this version needs one removed at {format_time(removed)}.",
            )
        return None

    def _bound(self, version: int) -> tuple[int, str] | None:
        """When a restorable version can start to disappear (ms), and by which retention."""
        bounds = []
        later = bisect.bisect_right(self.checkpoints, version)
        if later < len(self.checkpoints) and self.checkpoints[later] in self.times:
            at = self.times[self.checkpoints[later]] + self.policy.log.ms
            bounds.append((at, "log retention"))
        if version in self.removals:
            at = self.removals[version] + self.policy.deleted_files.ms
            bounds.append((at, "deleted-file retention"))
        return min(bounds) if bounds else None


def retention_status(version: VersionRetention, now_ms: int) -> str:
    """A version's retention in words, with its date: the app's *status* column (never a
    past "expires" date next to "restorable": a passed retention is ``at risk since``)."""
    if version.state != RetentionState.RESTORABLE:  # its value in words: ``log expired``
        missing = " (files missing)" if version.state is RetentionState.INCOMPLETE else ""
        return version.state.replace("-", " ") + missing
    if version.expires_at is None:
        return "restorable"
    day = (iso(version.expires_at) or "")[:10]
    if version.expires_at <= now_ms:
        return f"at risk since {day}"
    return f"restorable until {day}"
