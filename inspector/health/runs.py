"""A health report told compactly: runs of versions with the same verdict, and each bad file once.

A gap of 10,000 commit files makes 10,000 unreadable versions, and a missing data file
makes every later version incomplete: listed version by version, the answer is buried.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import groupby
from typing import Any

from inspector.delta.jsonvalue import camel_json
from inspector.delta.text import counted, version_spans
from inspector.files.filecheck import FileState
from inspector.health.records import (
    HealthProblem,
    HealthReport,
    ProblemKind,
    VersionHealth,
    VersionStatus,
)


class RunRole(StrEnum):
    """Why a run of versions matters."""

    LATEST = "latest"
    LAST_CONSISTENT = "last consistent"


@dataclass(frozen=True, kw_only=True)
class VersionRun:
    """Contiguous versions with the same status and the same problem; the counts are per
    version (the same for every version of the run), ``summary`` says what is wrong in a few
    words (``commit files missing``)."""

    first: int
    last: int
    status: VersionStatus
    summary: str
    problems: tuple[HealthProblem, ...]
    missing_count: int
    size_mismatch_count: int
    unreadable_count: int
    role: RunRole | None = None

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @property
    def label(self) -> str:
        """``version 7`` or ``versions 14–9,998``."""
        return spans_text([(self.first, self.last)])

    def to_json(self) -> dict[str, Any]:
        return {
            "firstVersion": self.first,
            "lastVersion": self.last,
            "versionCount": self.count,
            **camel_json(self, "status", "summary"),
            "problems": [p.message for p in self.problems],
            **camel_json(self, "missing_count", "size_mismatch_count", "unreadable_count", "role"),
        }


@dataclass(frozen=True, kw_only=True)
class DamagedFile:
    """One file some versions need but a reader cannot use, listed once, with the versions
    that need it as ``(first, last)`` ranges, oldest first."""

    path: str
    problem: FileState
    detail: str
    versions: tuple[tuple[int, int], ...]

    @property
    def versions_text(self) -> str:
        """``versions 3–5, 9``."""
        return spans_text(self.versions)

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "path", "problem", "detail"),
            "versions": [{"first": a, "last": b} for a, b in self.versions],
            "versionCount": sum(b - a + 1 for a, b in self.versions),
        }


def spans_text(spans: Iterable[tuple[int, int]]) -> str:
    """``versions 3–5, 9`` from ``[(3, 5), (9, 9)]``."""
    items = list(spans)
    parts = [f"{a:,}" if a == b else f"{a:,}–{b:,}" for a, b in items]
    single = len(items) == 1 and items[0][0] == items[0][1]
    return ("version " if single else "versions ") + ", ".join(parts)


def version_runs(report: HealthReport) -> list[VersionRun]:
    """The report's versions as runs, the ones that matter first: the latest version's,
    the last consistent version's, the other damaged runs, the other complete runs (newest
    first within each group)."""
    built = [_run(list(group), report) for _, group in groupby(report.versions, _shape)]
    rank = {RunRole.LATEST: 0, RunRole.LAST_CONSISTENT: 1}  # then damaged runs, then complete
    return sorted(
        built,
        key=lambda r: (
            rank[r.role] if r.role else 2 + (r.status is VersionStatus.COMPLETE),
            -r.last,
        ),
    )


def _shape(v: VersionHealth) -> tuple[list[ProblemKind], VersionHealth]:
    """What the versions of a run share (the versions are consecutive): the status and the
    problem (a damaged file set may differ only in its listing); a gap's versions compare
    equal whatever the problems' details."""
    return [p.kind for p in v.problems], replace(v, version=0, problems=(), checksum=None)


def _run(group: list[VersionHealth], report: HealthReport) -> VersionRun:
    head, first, last = group[-1], group[0].version, group[-1].version
    role, consistent = None, report.last_consistent_version
    if first <= report.latest_version <= last:
        role = RunRole.LATEST
    elif consistent is not None and first <= consistent <= last:
        role = RunRole.LAST_CONSISTENT
    return VersionRun(
        first=first,
        last=last,
        status=head.status,
        summary=_summary(head, len(group)),
        problems=tuple(head.problems),
        missing_count=head.missing_count,
        size_mismatch_count=head.size_mismatch_count,
        unreadable_count=head.unreadable_count,
        role=role,
    )


def _summary(v: VersionHealth, count: int) -> str:
    if v.status is VersionStatus.UNREADABLE:  # never without a problem (trace._broken)
        first = v.problems[0]
        if first.kind == ProblemKind.COMMIT_MISSING:
            return "commit file missing" if count == 1 else "commit files missing"
        if first.kind == ProblemKind.COMMIT_DAMAGED:
            return "commit file damaged"
        if first.kind == ProblemKind.REPLAY_BROKEN:
            return (
                "cannot be replayed: an earlier commit is unreadable and no checkpoint bridges it"
            )
        return first.message
    if v.status is VersionStatus.COMPLETE:
        return "complete" + (" (with problems in the log)" if v.problems else "")
    found = (v.missing_count, v.size_mismatch_count, v.unreadable_count)
    named = zip(found, ("missing", "with the wrong size", "unreadable"), strict=True)
    counts = [(n, what) for n, what in named if n]
    if len(counts) == 1:
        return f"{counted(counts[0][0], 'file')} {counts[0][1]}"
    return "files: " + ", ".join(f"{n:,} {what}" for n, what in counts)


def damaged_files(report: HealthReport) -> list[DamagedFile]:
    """Every damaged file the report lists, once, with the versions that need it.

    Files are ordered by the newest version that needs them (newest first), then path.
    The report's per-version lists are capped (``max_listed_files``), so a file beyond
    the cap in every version that needs it is not listed; the counts stay exact.
    """
    needed: dict[tuple[str, FileState], list[int]] = {}
    details: dict[tuple[str, FileState], str] = {}
    for v in report.versions:
        named = [(path, FileState.MISSING, "") for path in v.missing_files]
        named += [(i.path, i.state, i.detail) for i in (*v.size_mismatches, *v.unreadable_files)]
        for path, state, detail in named:
            needed.setdefault((path, state), []).append(v.version)
            details[(path, state)] = detail
    spans = {found: version_spans(sorted(versions)) for found, versions in needed.items()}
    files = [
        DamagedFile(path=path, problem=state, detail=details[path, state], versions=runs)
        for (path, state), runs in spans.items()
    ]
    return sorted(files, key=lambda f: (-f.versions[-1][1], f.path))


def grouped_record(report: HealthReport) -> dict[str, Any]:
    """The keys ``check --json`` adds to the report's record (``versions`` stays as it was;
    these say the same compactly)."""
    return {
        "runs": [r.to_json() for r in version_runs(report)],
        "damagedFiles": [f.to_json() for f in damaged_files(report)],
    }
