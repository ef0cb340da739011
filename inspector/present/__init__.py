"""Presentation: every command's text (``text``), the diff's JSON contract and Markdown postmortem.

May import every backend layer below it (``restore``, ``rows``' records, ``diff``, ``health``, ``table``, ``files``,
``log``, ``delta``); imports no pyspark itself (row diff records come from
``inspector.diff.rowkeys``).
"""
