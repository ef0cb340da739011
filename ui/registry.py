"""The pages of the app, in display order.

Each page is registered with Streamlit's navigation (``ui.routing``) under its key as URL
path (``/diff``). A page's module is ``ui/pages/KEY.py``; ``app.py`` imports it only when
the page is shown and calls its ``render(ctx: PageContext)``. A page whose module does not exist is not offered, so a
page can be listed here before it is written.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from inspector.settings import Settings


@dataclass(frozen=True)
class Page:
    """One page of the app.

    Attributes:
        key: Stable identifier: the page's URL path (``/KEY``; old links say ``?view=KEY``).
        title: What the navigation shows.
        icon: The navigation's icon (a Material symbol).
        module: Dotted module with a ``render(ctx)`` function.
        operator_only: Shown only in operator mode (pages that change tables).
        needs_rows: The page reads rows with Spark (the app may warm Spark up when it opens).
        params: The query parameters of the page's own state (``ui.page_state``), besides
            the table and the version every page shares.
    """

    key: str
    title: str
    module: str
    icon: str
    operator_only: bool = False
    needs_rows: bool = False
    params: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        """True when the page's module exists (it is not imported here)."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except ImportError:  # parent package missing
            return False


def _page(key: str, title: str, icon: str, *params: str, **flags: bool) -> Page:
    return Page(key, title, f"ui.pages.{key}", f":material/{icon}:", params=params, **flags)


PAGES: list[Page] = [
    _page("timeline", "Timeline", "timeline", "window"),
    _page("version", "Version", "commit"),
    _page(
        "preview",
        "Preview",
        "table_view",
        *("at", "timestamp", "filter", "explain", "blame"),
        needs_rows=True,
    ),
    _page("overview", "Overview", "info"),
    _page("diff", "Diff", "difference", "from", "to", "key", "rows", needs_rows=True),
    _page("changes", "Changes", "change_circle", "from", "to", "filter", needs_rows=True),
    _page("health", "Health", "health_and_safety"),
    _page("maintenance", "Maintenance", "cleaning_services"),
    _page("insights", "Insights", "insights"),
    _page("restore", "Restore", "restore", operator_only=True, needs_rows=True),
    _page("audit", "Audit", "receipt_long", operator_only=True),
]
DEFAULT_PAGE = "timeline"
SHARED_PARAMS = ("table", "version")  # every page's: the sidebar writes them
PAGE_PARAMS = frozenset(name for page in PAGES for name in page.params)


def visible_pages(settings: Settings) -> list[Page]:
    """The pages to offer: those whose module exists, and operator pages only in operator mode."""
    return [p for p in PAGES if p.available and (settings.operator_mode or not p.operator_only)]
