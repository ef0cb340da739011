"""The desktop window's access check: pages only for the launch that started this server.

``python -m inspector desktop`` starts the server with a random per-launch token in its
environment and opens the window at ``?token=...``. A session that presents the token
once is remembered; anyone else on the machine who finds the port gets a refusal, not
the table. Without a token in the environment (``./dev.sh app``) nothing is checked.
"""

from __future__ import annotations

import hmac
import os

import streamlit as st

from inspector.desktop.server import RENDERED_ENV, TOKEN_ENV

_ADMITTED = "_desktop_admitted"


def admitted() -> bool:
    """True when this browser session may see the app; otherwise say why and stop."""
    token = os.environ.get(TOKEN_ENV)
    if not token or st.session_state.get(_ADMITTED):
        return True
    offered = st.query_params.get("token") or ""
    if hmac.compare_digest(offered.encode(), token.encode()):
        st.session_state[_ADMITTED] = True
        return True
    st.error(
        "This Delta Inspector server belongs to a desktop window and answers only to it. "
        "Start your own with `python -m inspector desktop` or `./dev.sh app`."
    )
    return False


def note_rendered(view: str) -> None:
    """Append the page just drawn to the launcher's hook file (tests wait on it)."""
    path = os.environ.get(RENDERED_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(view + "\n")
