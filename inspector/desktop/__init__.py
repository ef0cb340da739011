"""The desktop front end: the app in a native window on this machine (``python -m inspector desktop``).

It starts the app's own server on loopback (``server``) and shows it in a pywebview
window (``window``). It never imports streamlit, and pywebview only when a window opens.

May import ``inspector.settings`` and ``inspector.delta``.
"""
