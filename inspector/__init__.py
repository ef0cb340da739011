"""Delta Inspector: inspect Delta Lake tables and repair them safely.

The backend never imports streamlit. Data flows one way, and the packages say so:

``delta`` (the protocol's vocabulary) -> ``log`` (listing, commits, checkpoints, replay
into a snapshot) -> ``table`` and ``files`` (the table handle, ``open_table``;
history, versions, time travel; stored files) -> ``diff`` and ``health`` (no Spark) -> ``rows``
(Spark: preview, row diff) -> ``restore`` -> ``present`` (JSON, text, Markdown) -> ``cli``.
``settings`` is the one settings registry, passed explicitly to whoever needs it.
"""

__version__ = "0.1.0"
