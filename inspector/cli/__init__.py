"""``python -m inspector``: the entry point and error contract (``main``), the command
registry (``registry``), the one renderer (``render``), shared arguments (``args``) and the
commands by subject (``log_commands``, ``rows_commands``, ``health_commands``,
``restore_commands``).

The top layer of the backend: may import everything in ``inspector``; nothing imports it.
"""
