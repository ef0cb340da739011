"""The desktop front end: the app in a native window on this machine (``python -m inspector desktop``).

It starts the app's own server on loopback (``server``) and shows it in a pywebview
window (``window``). It never imports streamlit, and pywebview only when a window opens.

May import ``inspector.settings`` and ``inspector.delta``.
"""

from inspector.desktop.server import (
    RENDERED_ENV,
    TOKEN_ENV,
    free_port,
    stop_process,
    wait_listening,
)
from inspector.desktop.window import QT_DEBS, run_desktop, window_title

__all__ = [
    "QT_DEBS",
    "RENDERED_ENV",
    "TOKEN_ENV",
    "free_port",
    "run_desktop",
    "stop_process",
    "wait_listening",
    "window_title",
]
