"""Rows, read by Spark: the session, the snapshot reader, preview, row diff, restore file lists.

The only package that imports pyspark (enforced by import-linter). May import ``delta``,
``log``, ``views`` and ``settings``. Library code never starts Spark from the
environment: ``get_spark(settings)`` takes the caller's settings.
"""
