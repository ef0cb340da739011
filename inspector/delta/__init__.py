"""The Delta protocol's vocabulary, and every Delta rule written down once.

``errors`` (the one error hierarchy), ``paths``, ``actions`` (typed action records),
``parse`` and ``fields`` (JSON to records, every field type-checked), ``schema``,
``properties`` (every ``delta.*`` table property: key, default, the boolean reader,
Delta's interval grammar), ``protocol`` (the one table of table features: readable,
restorable or refused; legacy features; the protocol merge), ``engines`` (which engines
read and write which features), ``text`` (times, counts, version ranges, partition labels)
and ``jsonvalue`` (data values as JSON). Imports nothing else of ``inspector``.
"""
