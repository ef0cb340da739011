"""Why a version cannot be read: expired, outside the log, or cut off by damage, in plain words."""

from __future__ import annotations

from collections.abc import Collection

from inspector.delta.errors import CorruptLog, VersionNotFound
from inspector.delta.text import version_ranges


def version_not_found(version: int, earliest: int, latest: int) -> VersionNotFound:
    """A version outside ``earliest..latest``: expired by log retention, or never written."""
    if 0 <= version < earliest:
        return VersionNotFound(
            f"Version {version} has expired from the log (log retention); "
            f"the earliest version that can be read is {earliest}.",
            f"Pick a version between {earliest} and {latest}.",
        )
    return VersionNotFound.not_in_log(version, earliest, latest)


def only_checkpoint(version: int) -> VersionNotFound:
    """A version whose commit file is gone while its checkpoint remains."""
    return VersionNotFound(
        f"Version {version} has no commit file: only its checkpoint remains "
        "(the commit expired by log retention or was not copied), so what that "
        "commit changed is unknown.",
        "Its state can still be read (e.g. its files); pick another version "
        "to see a commit's changes.",
    )


def unreachable(
    version: int,
    earliest: int,
    listed: Collection[int],
    broken: list[int],
    bad_checkpoints: bool,
    broken_detail: str = "",
) -> CorruptLog:
    """A version in the log that no base reaches: commit files missing (not ``listed``),
    ``broken`` (truncated or corrupt, ``broken_detail`` saying what is wrong with the first),
    or the checkpoints that could bridge them unusable."""
    gaps = [v for v in range(earliest, version + 1) if v not in listed]
    reasons = []
    if gaps:
        reasons.append(f"commit files are missing for versions {version_ranges(gaps)}")
    if broken:
        are = "commit {} is" if len(broken) == 1 else "commits {} are"
        reasons.append(f"{are.format(version_ranges(broken))} truncated or corrupt{broken_detail}")
    if bad_checkpoints:
        reasons.append("the checkpoints that could bridge this cannot be used")
    return CorruptLog(
        f"Version {version} cannot be reconstructed: {'; '.join(reasons) or 'no usable base'}.",
        "Pick a version before the damage or after a readable checkpoint, "
        "or run `python -m inspector check` to find the last consistent version.",
    )
