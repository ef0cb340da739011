"""A table: its handle (``handle``: how both front ends open what a user typed), and what
it is and was, read from its log alone: the history, each version's files, time travel, the
overview, insights, engine compatibility and the rows a commit inserted, deleted and updated.

May import ``inspector.log``, ``inspector.catalog`` (only ``handle``: names to
locations, and what a catalog says of a table's commits), ``inspector.storage``,
``inspector.settings`` and ``inspector.delta``.
Never imports pyspark: every answer here comes without a JVM.
"""

from inspector.table.handle import Table, for_commit, open_table

__all__ = ["Table", "for_commit", "open_table"]
