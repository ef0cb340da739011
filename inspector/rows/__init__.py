"""Rows, read by Spark: the session, the snapshot reader, preview and row diff.

The only package that imports pyspark. May import ``delta``, ``log``, ``views`` and
``settings``.
"""
