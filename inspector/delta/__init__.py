"""The Delta protocol's vocabulary, and every Delta rule written down once.

Its modules are listed in ``docs/architecture.md``. Imports nothing else of ``inspector``.
"""
