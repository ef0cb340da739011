"""Small text forms shared by every layer: version ranges and partition labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def version_ranges(versions: Iterable[int]) -> str:
    """Compact ``3..5, 9`` from ``[3, 4, 5, 9]`` (versions in ascending order)."""
    ordered = list(versions)
    parts, start = [], None
    for i, v in enumerate(ordered):
        start = v if start is None else start
        if i + 1 == len(ordered) or ordered[i + 1] != v + 1:
            parts.append(str(v) if start == v else f"{start}..{v}")
            start = None
    return ", ".join(parts)


def partition_label(
    values: Mapping[str, str | None] | Iterable[tuple[str, str | None]],
    *,
    unpartitioned: str = "(unpartitioned)",
) -> str:
    """``region=EU/day=2024-05-01`` (Hive style, in the given order); null values as ``null``.

    Args:
        values: An add action's ``partitionValues``, or (column, value) pairs.
        unpartitioned: What to show when there are no partition values.

    Returns:
        The label.
    """
    pairs = values.items() if isinstance(values, Mapping) else values
    label = "/".join(f"{k}={'null' if v is None else v}" for k, v in pairs)
    return label or unpartitioned
