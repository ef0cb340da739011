"""What changed between two versions, from the log: the file diff, the metadata diff
(schema, properties, protocol), pages of file lists, and a row diff's records and key
suggestion (the row diff itself runs on Spark in ``inspector.rows``).

May import ``inspector.table``, ``inspector.files``, ``inspector.log``,
``inspector.settings`` and ``inspector.delta``. Independent of ``inspector.health``.
"""
