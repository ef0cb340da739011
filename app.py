"""Delta Inspector, the app: ``streamlit run app.py [-- --table PATH] [-- --operator]``.

This file only wires things together: the sidebar (``ui.navigation``) decides the
table, page and version; the page's module renders them. It is the one place that
catches errors around a page, so a failing page never takes the app down.
"""

from __future__ import annotations

import importlib

import streamlit as st

from inspector.delta.errors import InspectorError
from ui.common import render_error, render_unexpected
from ui.context import PageContext
from ui.desktop_guard import admitted, note_rendered
from ui.navigation import launch_options, render_header, render_sidebar, run_settings
from ui.registry import Page

st.set_page_config(
    page_title="Delta Inspector",
    page_icon=":material/change_history:",
    layout="wide",
    initial_sidebar_state="expanded",
)


def render_page(page: Page, ctx: PageContext) -> None:
    """Import the page's module and render it; errors become messages, never tracebacks."""
    try:
        importlib.import_module(page.module).render(ctx)
    except InspectorError as exc:
        render_error(exc)
    except Exception as exc:  # one page's bug must not hide the sidebar or the other pages
        render_unexpected(exc, f"the {page.title} page")


def main() -> None:
    """Run one pass of the app."""
    if not admitted():
        return
    launch = launch_options()
    try:
        settings = run_settings(launch)
    except InspectorError as exc:
        render_error(exc)
        return
    notices = st.container()
    chosen = render_sidebar(settings, launch, notices)
    if chosen is None:
        return
    ctx, page = chosen
    render_header(ctx)
    render_page(page, ctx)
    note_rendered(page.key)


main()
