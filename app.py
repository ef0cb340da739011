"""Delta Inspector, the app: ``streamlit run app.py -- [TABLE] [--operator]`` (any order).

This file only wires things together: Streamlit's navigation (``ui.routing``) decides the
page, the sidebar (``ui.navigation``) the table and version; the page's module renders them. It is the one place that
catches errors around a page, so a failing page never takes the app down.
"""

from __future__ import annotations

import importlib

import streamlit as st

from inspector.delta.errors import InspectorError, InvalidInput
from ui.common import render_error, render_unexpected
from ui.context import PageContext
from ui.desktop_guard import admitted, note_rendered
from ui.launch import USAGE, launch_options, report_once
from ui.log_index import render_log_index
from ui.navigation import (
    render_header,
    render_sidebar,
    render_spark_status,
    run_settings,
    start_warm_up,
)
from ui.registry import Page, visible_pages
from ui.routing import link_used, navigation, read_link_once

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
    if launch.error:  # a blank page would hide it: say it here and in the terminal
        report_once(launch.error)
        st.title("Delta Inspector could not start", anchor=False)
        render_error(
            InvalidInput(
                launch.error,
                f"Start it as `{USAGE}`, then reload this page.",
            )
        )
        return
    try:
        settings = run_settings(launch)
    except InspectorError as exc:
        render_error(exc)
        return
    read_link_once()
    notices = st.container()
    opened: list[PageContext] = []  # the page runs after the sidebar has opened the table
    shown, page = navigation(visible_pages(settings), lambda p: render_page(p, opened[0]), notices)
    ctx = render_sidebar(settings, launch, notices)
    if ctx is not None:
        opened.append(ctx)
        start_warm_up(settings, page)
        render_header(ctx)
        shown.run()
        link_used()
        note_rendered(page.key)
    render_spark_status()
    render_log_index(settings)


main()
