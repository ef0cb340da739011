"""Which page is shown, and the URL as a mirror of what is on screen.

The app uses Streamlit's own multipage navigation (``st.navigation`` / ``st.Page``): the
page is the URL's path and the table, the version and the page's own state are query
parameters, e.g. ``/diff?table=PATH&version=5&from=3&to=5``.

Free of races by construction: the query string is read once, on a session's first run
(a link opened, a reload), and from then on the session state is the truth and the URL
only mirrors it. A browser may send a query string this session wrote a few runs ago (a
click during a run, before the newer URL reached it); nothing reads it, so it cannot undo
a choice. The one parameter read on every run is ``view=KEY``, the page of links written
before the app had page paths: the app never writes it, so it is always a link, and it is
redirected to the page's path with the link's other parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.navigation.page import StreamlitPage

from inspector.delta.errors import InvalidInput
from ui.common import render_error
from ui.registry import DEFAULT_PAGE, PAGE_PARAMS, PAGES, SHARED_PARAMS, Page

_LINK = "_link_params"  # the query string of the session's first run, until a page used it
_PENDING_PAGE = "_pending_page"  # a page asked for from a widget callback
_PENDING_PARAMS = "_pending_page_params"
OLD_PAGE_PARAM = "view"


def read_link_once() -> None:
    """Keep the query string of the session's first run, for the sidebar and the page to adopt."""
    if _LINK not in st.session_state:
        st.session_state[_LINK] = st.query_params.to_dict()


def link_params() -> Mapping[str, str]:
    """The parameters of the link that opened this session, until the first page has used them."""
    link = st.session_state.get(_LINK)
    return link if isinstance(link, dict) else {}


def link_used() -> None:
    """Forget the link: it has been applied (a later run must not apply it again)."""
    st.session_state[_LINK] = {}


def navigation(
    pages: list[Page], run: Callable[[Page], None], notices: DeltaGenerator
) -> tuple[StreamlitPage, Page]:
    """Register the pages with Streamlit's navigation and return the one to show.

    A ``?view=KEY`` link is redirected here to the page's own path (this ends the run).

    Args:
        pages: The pages this session may show, in display order.
        run: Renders a page (called by the returned ``StreamlitPage.run()``).
        notices: A main-area container for an error about the link.

    Returns:
        Streamlit's page (call its ``run()``) and our record of it.
    """
    built = {p.key: _st_page(p, run) for p in pages}
    first = next(p for p in pages if p.key == _default_key(pages))
    # Streamlit serves its default page at "" and answers that page's own path with "Page
    # not found": the default is a hidden page that shows the first page at the root, so
    # every page keeps its documented address (/timeline as much as /diff).
    root = st.Page(
        lambda: run(first),
        title=first.title,
        icon=first.icon,
        url_path="home",
        default=True,
        visibility="hidden",
    )
    chosen = st.navigation([root, *built.values()], position="sidebar")
    _redirect_old_link(pages, built, notices)
    _switch_if_asked(built)
    page = next((p for p in pages if p.key == chosen.url_path), first)  # the root: the first
    write_url(dict.fromkeys(PAGE_PARAMS - set(page.params)))  # another page's state
    return chosen, page


def _default_key(pages: list[Page]) -> str:
    keys = [p.key for p in pages]
    return DEFAULT_PAGE if DEFAULT_PAGE in keys else keys[0]


def _st_page(page: Page, run: Callable[[Page], None]) -> StreamlitPage:
    return st.Page(
        lambda: run(page),
        title=page.title,
        icon=page.icon,
        url_path=page.key,
    )


def _redirect_old_link(
    pages: list[Page], built: dict[str, StreamlitPage], notices: DeltaGenerator
) -> None:
    key = st.query_params.get(OLD_PAGE_PARAM)
    if key is None:
        return
    rest = {k: v for k, v in st.query_params.to_dict().items() if k != OLD_PAGE_PARAM}
    if key in built:
        st.session_state[_LINK] = {**link_params(), **rest}  # for the page to adopt
        st.switch_page(built[key], query_params=rest)
    del st.query_params[OLD_PAGE_PARAM]
    with notices:
        render_error(_unknown_page(key, pages))


def _unknown_page(key: str, pages: list[Page]) -> InvalidInput:
    hidden = next((p for p in PAGES if p.key == key and p.operator_only), None)
    if hidden is not None:
        return InvalidInput(
            f"The {hidden.title} page is only available in operator mode.",
            "Start the app with `streamlit run app.py -- --operator` or set "
            "`DELTA_INSPECTOR_OPERATOR_MODE=true`.",
        )
    return InvalidInput(
        f"The link asks for a page '{key}' that does not exist.",
        f"Pick one of: {', '.join(p.title for p in pages)}.",
    )


def go_to(key: str, params: Mapping[str, str] | None = None) -> None:
    """Show another page (from a page's body), with its state in the URL; ends this run.

    Args:
        key: A page key from ``ui.registry.PAGES``.
        params: The query parameters of the new page, besides the table and version.
    """
    page = next(p for p in PAGES if p.key == key)
    st.session_state[_LINK] = dict(params or {})  # the new page adopts them as from a link
    query = {**_kept_params(), **(params or {})}
    st.switch_page(_st_page(page, lambda _page: None), query_params=query)


def ask_for_page(key: str, params: Mapping[str, str] | None = None) -> None:
    """Show another page after this callback (``st.switch_page`` cannot run in a callback).

    Args:
        key: A page key from ``ui.registry.PAGES``.
        params: The query parameters of the new page, besides the table and version.
    """
    st.session_state[_PENDING_PAGE] = key
    st.session_state[_PENDING_PARAMS] = dict(params or {})


def _switch_if_asked(built: dict[str, StreamlitPage]) -> None:
    key = st.session_state.pop(_PENDING_PAGE, None)
    params = st.session_state.pop(_PENDING_PARAMS, None) or {}
    if key in built:
        st.session_state[_LINK] = dict(params)  # the new page adopts them as from a link
        st.switch_page(built[key], query_params={**_kept_params(), **params})


def _kept_params() -> dict[str, str]:
    """The parameters every page shares (table, version): a page switch keeps them."""
    return {k: v for k, v in st.query_params.to_dict().items() if k in SHARED_PARAMS}


def write_url(params: Mapping[str, str | None]) -> None:
    """Set (or, with None, remove) query parameters, touching only those that change."""
    for name, value in params.items():
        current = st.query_params.get(name)
        if value is None and current is not None:
            del st.query_params[name]
        elif value is not None and current != value:
            st.query_params[name] = value
