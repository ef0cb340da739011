"""The transaction log: listing, commits, checkpoints, replay into snapshots, the commit writer.

Owns reading (and the one atomic write of) ``_delta_log``. May import ``inspector.delta``
and ``inspector.settings``; never ``table``, ``files``, ``diff``, ``health``, ``rows``, ``restore``, ``present`` or ``cli``.
"""
