"""Rows, read by Delta Lake on Spark: the session, Delta's reads, preview, row diff, change feed.

The only package that imports pyspark (enforced by import-linter). May import ``delta``,
``storage``, ``log``, ``table``, ``files``, ``diff``, ``health`` and ``settings``. Library code
never starts Spark from the environment: ``get_spark(settings)`` takes the caller's settings.
Delta Lake reads every row (``delta_engine``): local files directly, object stores through
Hadoop's connectors (``connectors``); see docs/spark.md.
"""
