"""The Delta protocol's vocabulary: errors, paths, actions, schemas, table properties, features.

Owns every Delta rule that is written down once: what an action looks like, how a
property is parsed, which table features exist. Imports nothing else of ``inspector``.
"""
