"""Delta Inspector: inspect Delta Lake tables and repair them safely.

The backend never imports streamlit; its packages and the one way data flows through them
are drawn in ``docs/architecture.md`` (import-linter keeps them so).
"""

__version__ = "0.1.0"
