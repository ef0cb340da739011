"""Engine compatibility: which engines can read and write the table, and since which version.

Built from the table's protocol (versions and features, legacy ones implied by their
versions) and the cited data of :mod:`inspector.delta.engines`. Changes over the log
compare consecutive protocol actions only (cheap: no replay of file actions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.delta.actions import Protocol
from inspector.delta.engines import Engine, Support, load_engines, support_of, version_key
from inspector.delta.jsonvalue import camel_json
from inspector.delta.protocol import FEATURES, all_features, reader_features
from inspector.log.deltalog import DeltaLog
from inspector.table.history_entry import HistoryEntry


class Access(StrEnum):
    """What an engine does with the table."""

    READ = "read"
    WRITE = "write"


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """Whether an engine can read (or write) a protocol, and what stands in the way.

    Attributes:
        blocking: Features (or ``minReaderVersion 3``-style items) it lacks when
            ``support`` is no, or whose support is unknown when it is unknown.
        since: The engine version needed (the newest among the features'), if known.
        caveats: The data file's notes on the needed features when ``support`` is yes:
            yes is then not yes for every API of the engine.
    """

    support: Support
    blocking: tuple[str, ...] = ()
    since: str | None = None
    caveats: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"support": "no", "blocking": [...], "since": null, "caveats": [...]}``."""
        return camel_json(self)

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Verdict:
        """The verdict of its JSON form (:meth:`to_json`)."""
        return cls(
            support=Support(record["support"]),
            blocking=tuple(record["blocking"]),
            since=record["since"],
            caveats=tuple(record["caveats"]),
        )


@dataclass(frozen=True, kw_only=True)
class EngineCompatibility:
    """One engine against the table's protocol."""

    engine: str
    label: str
    read: Verdict
    write: Verdict
    source: str
    checked: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form of one engine's row (its fields in their order)."""
        return {**camel_json(self), "read": self.read.to_json(), "write": self.write.to_json()}


@dataclass(frozen=True, kw_only=True)
class CompatibilityChange:
    """A protocol change after which an engine's verdict differs."""

    version: int
    engine: str
    access: Access
    before: Support
    after: Support
    features: tuple[str, ...]

    @property
    def text(self) -> str:
        """``from version 12, DuckDB can no longer read this table: deletionVectors``."""
        what = {
            Support.NO: f"can no longer {self.access} this table",
            Support.UNKNOWN: f"may not be able to {self.access} this table (support unknown)",
            Support.YES: f"can {self.access} this table again",
        }[self.after]
        tail = f": {', '.join(self.features)}" if self.features else ""
        return f"from version {self.version}, {self.engine} {what}{tail}"

    def to_json(self) -> dict[str, Any]:
        return {**camel_json(self), "text": self.text}


@dataclass(frozen=True, kw_only=True)
class Compatibility:
    """Every engine's verdict at a version, and the changes up to it."""

    version: int
    engines: tuple[EngineCompatibility, ...]
    changes: tuple[CompatibilityChange, ...]

    def to_json(self) -> dict[str, Any]:
        """``detail --json``'s ``compatibility`` object."""
        return {
            "version": self.version,
            "engines": [e.to_json() for e in self.engines],
            "changes": [c.to_json() for c in self.changes],
        }


def judge(engine: Engine, protocol: Protocol, access: Access) -> Verdict:
    """Whether ``engine`` can read or write a table with ``protocol``."""
    reads = access is Access.READ
    needed = reader_features(protocol) if reads else all_features(protocol)
    version = protocol.min_reader_version if reads else protocol.min_writer_version
    limit = engine.max_reader if reads else engine.max_writer
    if limit is not None and version > limit:
        field = "minReaderVersion" if reads else "minWriterVersion"
        return Verdict(support=Support.NO, blocking=(f"{field} {version}",))
    found: dict[Support, list[str]] = {Support.NO: [], Support.UNKNOWN: []}
    versions: list[str] = []
    caveats: list[str] = []
    for name in sorted(needed):
        entry = engine.features.get(name) if name in FEATURES else None
        raw = getattr(entry, str(access)) if entry is not None else str(Support.UNKNOWN)
        support = support_of(raw)
        if support is not Support.YES:
            found[support].append(name)
            continue
        if version_key(raw):
            versions.append(raw)
        if entry is not None and entry.note:
            caveats.append(f"{name}: {entry.note}")
    for support in (Support.NO, Support.UNKNOWN):
        if found[support]:
            return Verdict(support=support, blocking=tuple(found[support]))
    since = max(versions, key=version_key, default=None)
    return Verdict(support=Support.YES, since=since, caveats=tuple(caveats))


def engines_for(protocol: Protocol) -> tuple[EngineCompatibility, ...]:
    """Every engine of the data file against one protocol."""
    return tuple(
        EngineCompatibility(
            engine=e.key,
            label=e.label,
            read=judge(e, protocol, Access.READ),
            write=judge(e, protocol, Access.WRITE),
            source=e.source,
            checked=e.checked,
        )
        for e in load_engines()
    )


def describe_compatibility(
    log: DeltaLog, history: Sequence[HistoryEntry] | None, *, version: int | None = None
) -> Compatibility:
    """Engine compatibility at a version (None: the latest), with the changes of verdict up
    to it found in ``history`` (None: the version alone, reading nothing older)."""
    snap = log.snapshot(version)
    steps: list[tuple[int, Protocol]] = []  # the protocol in force from each that changed it
    if history is not None:
        steps.append((log.earliest_version, log.snapshot(log.earliest_version).protocol))
    for entry in sorted(history or (), key=lambda h: h.version):
        if entry.changes_protocol and steps[0][0] < entry.version <= snap.version:
            protocol = log.commit(entry.version).protocol
            if protocol is not None:
                steps.append((entry.version, protocol))
    notes: list[CompatibilityChange] = []
    previous = engines_for(steps[0][1]) if steps else ()
    for at, protocol in steps[1:]:
        current = engines_for(protocol)
        notes.extend(_differences(at, previous, current))
        previous = current
    return Compatibility(
        version=snap.version, engines=engines_for(snap.protocol), changes=tuple(notes)
    )


def _differences(
    version: int, before: Sequence[EngineCompatibility], after: Sequence[EngineCompatibility]
) -> Iterable[CompatibilityChange]:
    for old, new in zip(before, after, strict=True):
        for access in Access:
            was, now = getattr(old, str(access)), getattr(new, str(access))
            if was.support is not now.support:
                yield CompatibilityChange(
                    version=version,
                    engine=new.label,
                    access=access,
                    before=was.support,
                    after=now.support,
                    features=now.blocking or was.blocking,
                )
