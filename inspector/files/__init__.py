"""A table's data files as stored: the walk of its folder, the one "present with the right
size" rule (``filecheck``), and which files a filter can skip from the log (data skipping).

May import ``inspector.log``, ``inspector.storage``, ``inspector.settings`` and
``inspector.delta``. Independent of ``inspector.table``.
"""
