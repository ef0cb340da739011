"""Rows, read by Spark: the session, the snapshot reader, preview and row diff.

The only package that imports pyspark. May import ``delta``, ``storage``, ``log``,
``views`` and ``settings``. Spark reads local files (and object stores with Hadoop's
connector) itself, and other object stores through our Python data source
(``datasource``), which the executors run; see docs/spark.md.
"""
