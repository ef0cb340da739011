"""A table's data files as stored: the walk of its folder (``tablefiles``), the one
"present with the right size" rule (``filecheck``: health, restore and the reader's
pre-check all use it), and which files a filter can skip from the log (``predicate``,
``pruning``: data skipping).

May import ``inspector.log``, ``inspector.storage``, ``inspector.settings`` and
``inspector.delta``. Independent of ``inspector.table``.
"""
