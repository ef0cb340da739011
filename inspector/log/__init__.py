"""The transaction log: listing, commits, checkpoints, replay into snapshots, the commit writer.

Owns reading (and the one atomic write of) ``_delta_log``. Every JSON log file (a commit or
a JSON checkpoint part) is parsed by :func:`~inspector.log.commit.parse_json_actions`; every
Parquet checkpoint and sidecar is read by pyarrow (:mod:`~inspector.log.checkpoint`); file
actions travel as Arrow tables (:mod:`~inspector.log.columnar`), reconciled once per replay.

May import the layers below it (import-linter's ``layers`` contract): ``inspector.storage``,
``inspector.settings``, ``inspector.connection`` and ``inspector.delta``;
never ``catalog`` (its sibling), ``table``, ``files``, ``diff``, ``health``, ``rows``,
``restore``, ``present`` or ``cli``; never pyspark.
"""
