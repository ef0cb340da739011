"""The built-in demo table (placeholder; the demo writer replaces this)."""

from __future__ import annotations


def write_demo_table(path: str, *, force: bool = False) -> str:
    """Write the demo table at ``path`` and return its absolute path."""
    raise NotImplementedError
