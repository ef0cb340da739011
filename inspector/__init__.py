"""Delta Inspector: inspect Delta Lake tables and repair them safely.

The backend never imports streamlit. Data flows one way:
log (``log``, ``listing``, ``commit``, ``checkpoint``) -> snapshot (``snapshot``)
-> rows on Spark -> diff / restore.
"""

__version__ = "0.1.0"
