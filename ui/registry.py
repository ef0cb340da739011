"""The pages of the app, in display order.

``app.py`` imports a page's module only when the page is shown and calls its
``render(ctx: PageContext)``. A page whose module does not exist is not offered,
so a page can be listed here before it is written.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from inspector.settings import Settings


@dataclass(frozen=True)
class Page:
    """One page of the app.

    Attributes:
        key: Stable identifier, used in the URL (``?view=KEY``).
        title: What the navigation shows.
        module: Dotted module with a ``render(ctx)`` function.
        operator_only: Shown only in operator mode (pages that change tables).
        needs_rows: The page reads rows with Spark (the app may warm Spark up when it opens).
    """

    key: str
    title: str
    module: str
    operator_only: bool = False
    needs_rows: bool = False

    @property
    def available(self) -> bool:
        """True when the page's module exists (it is not imported here)."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except ImportError:  # parent package missing
            return False


PAGES: list[Page] = [
    Page("timeline", "Timeline", "ui.timeline"),
    Page("version", "Version", "ui.version"),
    Page("preview", "Preview", "ui.preview", needs_rows=True),
    Page("overview", "Overview", "ui.overview"),
    Page("diff", "Diff", "ui.diff", needs_rows=True),
    Page("changes", "Changes", "ui.changes", needs_rows=True),
    Page("health", "Health", "ui.health"),
    Page("maintenance", "Maintenance", "ui.maintenance"),
    Page("insights", "Insights", "ui.insights"),
    Page("restore", "Restore", "ui.restore", operator_only=True, needs_rows=True),
    Page("audit", "Audit", "ui.audit", operator_only=True),
]


def visible_pages(settings: Settings) -> list[Page]:
    """The pages to offer: those whose module exists, and operator pages only in operator mode."""
    return [p for p in PAGES if p.available and (settings.operator_mode or not p.operator_only)]
