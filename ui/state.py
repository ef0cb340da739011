"""What a page keeps between runs: typed records in ``st.session_state``, never tuples.

A page that computes something (a plan, a health report, a page of rows) keeps it with
what it was computed for, and shows it again only while it is asked for the same:
``keep(KEY, request, report)`` then ``kept(KEY, request, HealthReport)``. The request is
a hashable record of the inputs (the table root, the log's generation, the page's
choices), so a result of another table or an older log is never shown as current.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

import streamlit as st

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Kept(Generic[T]):
    """A result a page computed, with what it was computed for.

    Attributes:
        request: The inputs it was computed from (a hashable record or tuple of values).
        value: The result.
    """

    request: Hashable
    value: T


def keep(key: str, request: Hashable, value: T) -> T:
    """Keep ``value`` under ``key`` for ``request``, replacing what was kept there."""
    st.session_state[key] = Kept(request=request, value=value)
    return value


def kept(key: str, request: Hashable, kind: type[T]) -> T | None:
    """The value kept under ``key`` when it was computed for ``request``, else None."""
    record = st.session_state.get(key)
    if isinstance(record, Kept) and record.request == request and isinstance(record.value, kind):
        return record.value
    return None


def kept_record(key: str, kind: type[T]) -> Kept[T] | None:
    """What is kept under ``key``, whatever it was computed for (None when nothing is)."""
    record = st.session_state.get(key)
    if isinstance(record, Kept) and isinstance(record.value, kind):
        return record
    return None


def forget(key: str) -> None:
    """Drop what is kept under ``key``."""
    st.session_state.pop(key, None)
