"""Guarded RESTORE: plan, guards, warnings, the commit, Delta's own command, verify, audit.

Owns every restore decision (refusals included) and every audit entry; the CLI and the
app only collect input (:class:`RestoreIntent`, :class:`RestoreRequest`) and render.
May import every lower layer (``delta``, ``log``, ``table``, ``files``, ``diff``, ``health``, ``rows``, ``settings``).
The path of a restore through it is in docs/architecture.md.
"""

from inspector.restore.execute import RestoreResult, execute_restore, plan_undo
from inspector.restore.guards import Override
from inspector.restore.plan import plan_restore
from inspector.restore.planrecord import RestorePlan
from inspector.restore.request import RestoreIntent, RestoreRequest, check_intent, request_refusals

__all__ = [
    "Override",
    "RestoreIntent",
    "RestorePlan",
    "RestoreRequest",
    "RestoreResult",
    "check_intent",
    "execute_restore",
    "plan_restore",
    "plan_undo",
    "request_refusals",
]
