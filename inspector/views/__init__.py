"""Read-only views of a table computed from its log: history, versions, time travel,
overview, file and metadata diffs, retention and health.

May import ``inspector.delta``, ``inspector.log`` and ``inspector.settings``. Never imports
pyspark: every view here answers without starting the JVM.
"""
