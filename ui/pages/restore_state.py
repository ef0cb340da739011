"""What the Restore page keeps in ``st.session_state``: its widget keys and typed records.

Other pages hand the Restore page a :class:`RestorePrefill` (the Health page's recovery
button); the page keeps its plan and its result as :class:`ui.state.Kept` records, for
the table and log generation they were made for (a stale plan is never committed).
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.log.deltalog import DeltaLog
from inspector.restore import Override

PREFILL = "restore_prefill"  # a RestorePrefill, set by other pages
TARGET = "restore_target"
REASON = "restore_reason"
CONFIRM_TABLE = "restore_confirm_table"
CONFIRM_VERSION = "restore_confirm_version"
ALLOW_MISSING = "restore_allow_missing"
ALLOW_DOWNGRADE = "restore_allow_downgrade"
OVERRIDE_KEYS = {
    Override.ALLOW_MISSING_FILES: ALLOW_MISSING,
    Override.ALLOW_PROTOCOL_DOWNGRADE: ALLOW_DOWNGRADE,
}
PLAN = "_restore_plan"  # Kept[RestorePlan] for (table root, generation)
RESULT = "_restore_result"  # Kept[RestoreResult] for the table root
CLEAR = "_restore_clear"  # set after a commit: empty the form on the next run


@dataclass(frozen=True, kw_only=True)
class RestorePrefill:
    """A restore another page proposes: the form is filled, nothing is planned or confirmed.

    Attributes:
        table_root: The table it is for (ignored when another table is open).
        version: The target version.
        reason: The reason, as the proposing page words it.
    """

    table_root: str
    version: int
    reason: str


def plan_request(log: DeltaLog) -> tuple[str, int]:
    """What a kept plan is valid for: this table, at this generation of its log."""
    return (log.table_root, log.generation)
