"""The guards of a RESTORE: each says, in plain words, whether it is safe to proceed.

Guards are evaluated when the plan is made, and those that can change (the table moving,
files disappearing) again at commit time. A failed guard refuses the restore unless it
names an ``override`` and the operator passed it explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from inspector.delta import properties
from inspector.delta.actions import AddFile, Metadata, Protocol
from inspector.delta.jsonvalue import camel_json
from inspector.delta.protocol import (
    MANAGED_FEATURES,
    MAX_READER_VERSION,
    MAX_WRITER_VERSION,
    REFUSED_FEATURES,
    RESTORABLE_FEATURES,
    all_features,
    catalog_features,
    covers,
    describe_protocol,
    through_the_catalog,
    writer_features,
)


class GuardName(StrEnum):
    """The stable identifier of each guard (JSON ``guards[].name``)."""

    TARGET_VERSION = "target_version"
    FILES_AVAILABLE = "files_available"
    TABLE_UNCHANGED = "table_unchanged"
    PROTOCOL_NOT_DOWNGRADED = "protocol_not_downgraded"
    WRITER_FEATURES = "writer_features"
    NOT_CATALOG_MANAGED = "not_catalog_managed"
    APPEND_ONLY = "append_only"
    ROW_TRACKING = "row_tracking"
    COLUMN_MAPPING = "column_mapping"


class Override(StrEnum):
    """What an operator may explicitly accept although a guard failed (``RestoreRequest.overrides``)."""

    #: Leave out re-added files that are missing or truncated: the result is a PARTIAL table.
    ALLOW_MISSING_FILES = "allow_missing_files"
    #: Write the target's protocol even where it is lower than the current one.
    ALLOW_PROTOCOL_DOWNGRADE = "allow_protocol_downgrade"


class Overridden:
    """The two flags read from ``overrides`` (a base of the request and the result)."""

    overrides: frozenset[Override]

    @property
    def allow_missing_files(self) -> bool:
        return Override.ALLOW_MISSING_FILES in self.overrides

    @property
    def allow_protocol_downgrade(self) -> bool:
        return Override.ALLOW_PROTOCOL_DOWNGRADE in self.overrides


@dataclass(frozen=True, kw_only=True)
class GuardResult:
    """One guard's verdict: ``message`` in plain words, ``details`` the facts behind it (lists
    capped, counts exact), ``override`` what lets an operator proceed although it failed."""

    name: GuardName
    passed: bool
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)
    override: Override | None = None

    @classmethod
    def passing(
        cls, name: GuardName, message: str, details: Mapping[str, Any] | None = None
    ) -> GuardResult:
        return cls(name=name, passed=True, message=message, details=details or {})

    @classmethod
    def failing(
        cls,
        name: GuardName,
        message: str,
        details: Mapping[str, Any] | None = None,
        override: Override | None = None,
    ) -> GuardResult:
        """A guard that stops the restore (unless ``override`` is given and used)."""
        return cls(
            name=name, passed=False, message=message, details=details or {}, override=override
        )

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "name", "passed", "message", "override"),
            "details": dict(self.details),
        }


def target_guard(
    current_version: int, target: int, earliest: int, error: str | None
) -> GuardResult:
    """The target must be older than the current version and reconstructable from the log
    (``error``: why its snapshot could not be built, if it could not)."""
    details = {
        "currentVersion": current_version,
        "targetVersion": target,
        "earliestVersion": earliest,
    }
    if target >= current_version:
        word = (
            "the current version" if target == current_version else "newer than the current version"
        )
        return GuardResult.failing(
            GuardName.TARGET_VERSION,
            f"Version {target} is {word} ({current_version}); a restore can only go "
            "back to an older version.",
            details=details,
        )
    if error:
        return GuardResult.failing(
            GuardName.TARGET_VERSION,
            f"Version {target} cannot be restored: {error}",
            details=details,
        )
    return GuardResult.passing(
        GuardName.TARGET_VERSION,
        f"Version {target} is older than the current version {current_version} "
        f"and still in the log (the oldest readable version is {earliest}).",
        details=details,
    )


def files_guard(listed: Sequence[Any], total: int, num_files: int) -> GuardResult:
    """Every file to re-add (and its deletion vector) must exist with the size the log records
    (``listed``: the first of the ``total`` missing or truncated ones)."""
    if not total:
        return GuardResult.passing(
            GuardName.FILES_AVAILABLE,
            f"All {num_files} files to re-add exist with the sizes recorded in the log.",
            details={"checkedFiles": num_files},
        )
    return GuardResult.failing(
        GuardName.FILES_AVAILABLE,
        f"{total} of the {num_files} files to re-add are missing or truncated (deleted by VACUUM, "
        "moved or damaged). Without them the restored table would be incomplete or unreadable. "
        "With allow_missing_files they are left out: the result is a PARTIAL table.",
        details={
            "checkedFiles": num_files,
            "numProblems": total,
            "problems": [p.to_json() for p in listed],
            "listed": len(listed),
        },
        override=Override.ALLOW_MISSING_FILES,
    )


def unchanged_guard(read_version: int, latest: int) -> GuardResult:
    """The table must still be at the version the plan was made on."""
    if latest == read_version:
        return GuardResult.passing(
            GuardName.TABLE_UNCHANGED,
            f"The table is at version {read_version}, the version this plan was made "
            "on (checked again at commit time).",
            details={"readVersion": read_version},
        )
    return GuardResult.failing(
        GuardName.TABLE_UNCHANGED,
        f"The table moved from version {read_version} to {latest} after this plan was "
        "made; the plan no longer describes it. Make a new plan.",
        details={"readVersion": read_version, "latestVersion": latest},
    )


def protocol_guard(current: Protocol, target: Protocol, merged: Protocol) -> GuardResult:
    """The protocol must never be downgraded: the commit carries current merged with target."""
    details = {
        "current": describe_protocol(current),
        "target": describe_protocol(target),
        "afterRestore": describe_protocol(merged),
    }
    if not covers(merged, current):
        return GuardResult.failing(
            GuardName.PROTOCOL_NOT_DOWNGRADED,
            f"The restore would lower the protocol from {details['current']} to "
            f"{details['afterRestore']}.",
            details=details,
            override=Override.ALLOW_PROTOCOL_DOWNGRADE,
        )
    lower = ""
    if not covers(target, current):
        lower = (
            f" The target version's protocol ({details['target']}) is lower; it is merged with "
            "the current one, as Delta does, so nothing is downgraded."
        )
    return GuardResult.passing(
        GuardName.PROTOCOL_NOT_DOWNGRADED,
        f"The protocol after the restore is {details['afterRestore']}, at least the "
        f"current {details['current']}.{lower}",
        details=details,
    )


def features_guard(protocols: Sequence[Protocol]) -> GuardResult:
    """Every feature of the current, target and merged protocols must be supported by this writer
    (those of a catalog or a commit coordinator are :func:`managed_guard`'s)."""
    names = set().union(*(all_features(p) for p in protocols))
    managed = sorted(n for n in names if n in MANAGED_FEATURES)
    refused = sorted(n for n in names if n in REFUSED_FEATURES and n not in MANAGED_FEATURES)
    unknown = sorted(n for n in names if n not in RESTORABLE_FEATURES and n not in REFUSED_FEATURES)
    too_new = [
        describe_protocol(p)
        for p in protocols
        if p.min_reader_version > MAX_READER_VERSION or p.min_writer_version > MAX_WRITER_VERSION
    ]
    details = {"features": sorted(names), "refused": refused, "unknown": unknown}
    if refused or unknown or too_new:
        parts = [f"{n} ({REFUSED_FEATURES[n]})" for n in refused]
        parts += [f"{n} (unknown to this writer)" for n in unknown]
        parts += [f"protocol {p} (newer than this writer knows)" for p in too_new]
        return GuardResult.failing(
            GuardName.WRITER_FEATURES,
            "The table uses features this writer cannot commit to safely: "
            + "; ".join(parts)
            + ". Restore it with Spark and Delta Lake instead.",
            details=details,
        )
    supported = ", ".join(sorted(set(names) - set(managed))) or "none"
    aside = f"; {', '.join(managed)}: see not_catalog_managed" if managed else ""
    return GuardResult.passing(
        GuardName.WRITER_FEATURES,
        f"Every table feature is supported by this writer ({supported}{aside}).",
        details=details,
    )


def managed_guard(
    metadata: Metadata,
    protocol: Protocol,
    staged_commits: int,
    *,
    name: str | None = None,
    target_version: int | None = None,
) -> GuardResult:
    """Tables managed by a catalog or a commit coordinator cannot be committed to directly
    (a catalog-managed table's reason names the table's ``name`` and the command to run)."""
    features = sorted(f for f in all_features(protocol) if f in MANAGED_FEATURES)
    keys = sorted(
        k for k in metadata.configuration if k.startswith(properties.COORDINATED_COMMITS_PREFIX)
    )
    details = {"features": features, "properties": keys, "stagedCommits": staged_commits}
    if catalog_features(protocol):
        command = (
            f"RESTORE TABLE t TO VERSION AS OF {'N' if target_version is None else target_version}"
        )
        return GuardResult.failing(
            GuardName.NOT_CATALOG_MANAGED,
            f"The table is catalog-managed ({', '.join(features)}): only its catalog may "
            "commit to it, and Delta Inspector never commits through a catalog. To restore "
            f"it, {through_the_catalog(command, name, metadata.configuration)}.",
            details=details,
        )
    if features or keys or staged_commits:
        reasons = [f"table features {', '.join(features)}"] if features else []
        reasons += [f"properties {', '.join(keys)}"] if keys else []
        staged = f"{staged_commits} staged commits in _delta_log/_staged_commits"
        reasons += [staged] if staged_commits else []
        return GuardResult.failing(
            GuardName.NOT_CATALOG_MANAGED,
            "The table is managed by a catalog or a commit coordinator ("
            + "; ".join(reasons)
            + "): writing a commit file directly would bypass "
            "it. Restore it through its catalog (e.g. RESTORE in the managing engine).",
            details=details,
        )
    return GuardResult.passing(
        GuardName.NOT_CATALOG_MANAGED,
        "The table is not managed by a catalog or a commit coordinator.",
    )


def append_only_guard(metadata: Metadata, removes: Sequence[AddFile]) -> GuardResult:
    """An append-only table (``delta.appendOnly=true``) must not lose data (PROTOCOL.md)."""
    append_only = properties.enabled(metadata.configuration, properties.APPEND_ONLY)
    if append_only and removes:
        return GuardResult.failing(
            GuardName.APPEND_ONLY,
            f"The table is append-only (delta.appendOnly=true) and this restore would "
            f"remove {len(removes)} files; the Delta protocol forbids removing data "
            "from an append-only table. If that is really intended, unset "
            "delta.appendOnly with Spark first, then make a new plan.",
            details={"appendOnly": True, "filesToRemove": len(removes)},
        )
    message = (
        "The table is append-only, and this restore only adds files."
        if append_only
        else "The table is not append-only."
    )
    return GuardResult.passing(GuardName.APPEND_ONLY, message, details={"appendOnly": append_only})


def row_tracking_guard(
    protocol: Protocol, metadata: Metadata, adds: Sequence[AddFile]
) -> GuardResult:
    """With row tracking, every re-added file must carry the row IDs it had (baseRowId)."""
    if not row_tracking_in_use(protocol, metadata.configuration):
        return GuardResult.passing(
            GuardName.ROW_TRACKING, "Row tracking is not in use; no row IDs to carry."
        )
    lacking = [a.path for a in adds if a.base_row_id is None]
    if lacking:
        return GuardResult.failing(
            GuardName.ROW_TRACKING,
            f"{len(lacking)} files to re-add have no row IDs (baseRowId): they were "
            "written before row tracking was enabled. This writer does not assign "
            "fresh row IDs; restore this table with Spark and Delta Lake instead.",
            details={"filesWithoutRowIds": len(lacking), "examples": lacking[:10]},
        )
    return GuardResult.passing(
        GuardName.ROW_TRACKING,
        f"All {len(adds)} files to re-add keep their row IDs (baseRowId) and commit versions.",
    )


def row_tracking_in_use(protocol: Protocol, configuration: Mapping[str, str]) -> bool:
    """The ``rowTracking`` writer feature, not suspended (``delta.rowTrackingSuspended``)."""
    suspended = properties.enabled(configuration, properties.ROW_TRACKING_SUSPENDED)
    return "rowTracking" in writer_features(protocol) and not suspended


def column_mapping_guard(current: Metadata, target: Metadata) -> GuardResult:
    """The column mapping mode may only change as Delta allows it (unchanged, or none to name;
    ``changeColumnMappingModeNotSupported``)."""
    old, new = current.column_mapping_mode, target.column_mapping_mode
    details = {"current": old, "target": new}
    if old == new:
        return GuardResult.passing(
            GuardName.COLUMN_MAPPING, f"The column mapping mode stays '{old}'.", details=details
        )
    if (old, new) == ("none", "name"):
        return GuardResult.passing(
            GuardName.COLUMN_MAPPING,
            "The restore turns column mapping on ('name'), as "
            "the target version had it; Delta allows this change.",
            details=details,
        )
    return GuardResult.failing(
        GuardName.COLUMN_MAPPING,
        f"The restore would change the column mapping mode from '{old}' to '{new}', "
        "which Delta does not allow: files written under one mode are read by other "
        f"column names under the other. Pick a version whose mode is '{old}'.",
        details=details,
    )
