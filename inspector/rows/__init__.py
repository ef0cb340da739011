"""Rows, read by Spark: the session, the snapshot reader, preview, row diff.

The only package that imports pyspark (enforced by import-linter). May import ``delta``,
``storage``, ``log``, ``table``, ``files``, ``diff``, ``health`` and ``settings``. Library code never starts Spark from the
environment: ``get_spark(settings)`` takes the caller's settings. Spark reads local files
(and object stores with Hadoop's connector) itself, and other object stores through our
Python data source (``datasource``), which the executors run; see docs/spark.md.
"""
