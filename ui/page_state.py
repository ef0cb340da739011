"""Each page's own state as a typed record, kept in the URL and in ``st.session_state``.

A record knows its query parameters (``params``) and how to read them back from a link
(``from_link``). A page adopts the record of the link that opened it (a link opened, a
reload, or a switch from another page that hands it a record: ``ui.routing.go_to``),
puts it into its widgets, and writes the record its widgets then hold back to the URL.
So a copied address reopens the same view: ``/diff?table=T&version=5&from=3&to=5``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from ui.routing import link_params, write_url

_NO_FILTER = ""


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


@dataclass(frozen=True, kw_only=True)
class VersionPair:
    """Two versions compared (Diff) or a range read (Changes): ``?from=A&to=B``."""

    from_version: int
    to_version: int

    def params(self) -> dict[str, str]:
        """The record as query parameters."""
        return {"from": str(self.from_version), "to": str(self.to_version)}

    @classmethod
    def from_link(cls, link: Mapping[str, str], versions: list[int]) -> VersionPair | None:
        """The pair a link names, when both are versions of the table; else None."""
        first, second = _int(link.get("from")), _int(link.get("to"))
        if first in versions and second in versions and first is not None and second is not None:
            return cls(from_version=first, to_version=second)
        return None

    @staticmethod
    def link_problem(link: Mapping[str, str], versions: list[int]) -> str | None:
        """What is wrong with a link's ``from``/``to`` (``to=abc``), for the page to say
        before what it fell back to; None when the link names no pair or a good one."""
        bad = [
            f"{k}={link[k]}" for k in ("from", "to") if k in link and _int(link[k]) not in versions
        ]
        if not bad or not versions:
            return None
        verb = "is" if len(bad) == 1 else "are"
        return (
            f"The link's {' and '.join(bad)} {verb} not a version of this table (versions "
            f"{versions[0]} to {versions[-1]})."
        )


@dataclass(frozen=True, kw_only=True)
class PreviewChoice:
    """What Preview shows: a version or a typed timestamp, and a filter.

    ``?at=V`` (a version) or ``?timestamp=TEXT``, and ``&filter=SQL`` when there is one.
    """

    version: int | None = None
    timestamp: str | None = None
    filter: str = _NO_FILTER

    def params(self) -> dict[str, str | None]:
        """The record as query parameters (None removes one)."""
        return {
            "at": None if self.version is None else str(self.version),
            "timestamp": self.timestamp or None,
            "filter": self.filter or None,
        }

    @classmethod
    def from_link(cls, link: Mapping[str, str]) -> PreviewChoice:
        """The choice a link names (an empty one when it names none)."""
        return cls(
            version=_int(link.get("at")),
            timestamp=link.get("timestamp") or None,
            filter=link.get("filter", _NO_FILTER),
        )


def adopt(record_params: Mapping[str, object], widget_keys: Mapping[str, str]) -> None:
    """Put a linked record's values into the page's widgets (before they are drawn).

    Args:
        record_params: The record's query parameters (values as the widgets hold them).
        widget_keys: For each parameter, the key of the widget that shows it.
    """
    for name, value in record_params.items():
        if value is not None and name in widget_keys:
            st.session_state[widget_keys[name]] = value


def initial_index(key: str, index: int) -> int:
    """A picker's ``index``, or 0 (Streamlit's "no default") when a link or a page switch
    already put its value in the session state: Streamlit warns, with a stack trace, when a
    widget gets both a default and a session state value."""
    return 0 if key in st.session_state else index


def linked() -> Mapping[str, str]:
    """The parameters of the link this page was opened with (empty after its first run)."""
    return link_params()


def mirror(params: Mapping[str, str | None]) -> None:
    """Write the page's record to the URL (the address bar is a link to what is shown)."""
    write_url(params)
