"""What a table is and was, read from its log alone: the history, each version's files,
time travel (a version or a timestamp to a version), the overview, insights, engine
compatibility and the rows a commit inserted, deleted and updated.

May import ``inspector.log``, ``inspector.storage``, ``inspector.settings`` and
``inspector.delta``. Never imports pyspark: every answer here comes without a JVM.
"""
