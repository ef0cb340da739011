"""What changed between two versions, from the log: the file diff, the metadata diff, pages
of file lists, and a row diff's records and key (the row diff runs on Spark in ``rows``).

May import ``inspector.table``, ``inspector.files``, ``inspector.log``,
``inspector.settings`` and ``inspector.delta``. Independent of ``inspector.health``.
"""
