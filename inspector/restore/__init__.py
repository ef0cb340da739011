"""Guarded RESTORE: plan, guards, warnings, the commit, Delta's own command, verify, audit.

Owns every restore decision (refusals included) and every audit entry; the CLI and the
app only collect input and render. May import every lower layer (``delta``, ``log``,
``views``, ``rows``, ``settings``).
"""
