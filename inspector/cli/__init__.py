"""``python -m inspector``: the command registry, the commands and the error contract.

The top layer of the backend: may import everything in ``inspector``; nothing imports it.
"""
