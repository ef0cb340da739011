"""``python -m inspector``: the entry point and error contract (``main``), the command
registry (``registry``: its ``COMMAND_MODULES`` names the module of each command), the one
renderer (``render``), shared arguments (``args``) and the commands by subject (``*_commands``
and ``desktop``). Their text is rendered in :mod:`inspector.present.text`.

The top layer of the backend: may import everything in ``inspector``; nothing imports it.
"""
