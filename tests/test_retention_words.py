"""Retention in words and the copied-table signature, on records and real tables."""

from __future__ import annotations

from inspector.health.retention import RetentionState, VersionRetention, retention_status
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import looks_copied
from tests.conftest import CORPUS, sales_table

DAY = 86_400_000
NOW = 1_780_000_000_000  # 2026-05-28


def _version(state: RetentionState, expires_at: int | None) -> VersionRetention:
    return VersionRetention(
        version=3,
        state=state,
        timestamp=NOW - 10 * DAY,
        expires_at=expires_at,
        expires_by="log retention" if expires_at else None,
        reason="",
    )


def test_restorable_versions_say_until_when_or_since_when_at_risk():
    restorable = RetentionState.RESTORABLE
    assert (
        retention_status(_version(restorable, NOW + 2 * DAY), NOW) == "restorable until 2026-05-30"
    )
    assert retention_status(_version(restorable, NOW - 2 * DAY), NOW) == "at risk since 2026-05-26"
    assert retention_status(_version(restorable, None), NOW) == "restorable"
    assert retention_status(_version(RetentionState.DATA_VACUUMED, None), NOW) == "data vacuumed"


def test_a_checked_out_corpus_table_looks_copied_and_a_fresh_one_does_not(tmp_path):
    copied = DeltaLog.open(str(CORPUS / "delta-kernel-java" / "basic-with-checkpoint"))
    fresh = DeltaLog.open(sales_table(tmp_path / "sales"))

    assert looks_copied(build_history(copied, Settings()))
    assert not looks_copied(build_history(fresh, Settings()))
    # the fresh table has versions enough for the signature to be judged, not too few
    assert len(build_history(fresh, Settings())) >= 2
