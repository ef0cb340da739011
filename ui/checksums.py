"""The log's own checksums (``.crc``) on the Health and Version pages.

The comparison is the backend's (:mod:`inspector.health.checksum`); these helpers only
show its verdict: a line when the checksum matches or is absent, a warning naming the
fields when it differs or cannot be parsed.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from inspector.delta.errors import InspectorError
from inspector.health import HealthReport
from inspector.health.checksum import version_checksum
from inspector.health.records import ChecksumCheck, ChecksumStatus
from inspector.log.deltalog import DeltaLog
from ui.common import escape_markdown
from ui.context import PageContext


def render_report_checksums(report: HealthReport) -> None:
    """The Health page: how many ``.crc`` files were compared, and each that disagrees."""
    read = [v.checksum for v in report.versions if v.checksum is not None]
    bad = [c for c in read if c.status is not ChecksumStatus.MATCHES]
    for check in bad:
        problem = check.problem
        if problem is not None:
            st.warning(f"Version {check.version}: {escape_markdown(problem.message)}")
    if not read:
        st.caption(
            "No checksum (.crc) was compared: the versions checked have none (Delta writes none "
            "for some commits, such as RESTORE)."
        )
    elif not bad:
        noun = (
            "checksum (.crc) matches" if len(read) == 1 else f"{len(read)} checksums (.crc) match"
        )
        st.caption(
            f"The log's {noun} the replayed state: files, bytes, metadata, protocol, set "
            "transactions and domain metadata."
        )


def render_version_checksum(ctx: PageContext, version: int) -> None:
    """The Version page: this version's ``.crc`` against its replayed state."""
    key = (ctx.log.table_root, ctx.log.generation, version)
    try:
        check = _cached_checksum(key, ctx.log, version)
    except InspectorError:
        return  # the version cannot be replayed: its problems are shown already
    if check is None:
        st.caption(f"Version {version} has no checksum file (.crc): nothing to compare.")
    elif check.problem is not None:
        st.warning(escape_markdown(check.problem.message), icon=":material/warning:")
    else:
        st.caption(
            f"Version {version}'s checksum file (.crc) matches its replayed state (files, bytes, "
            "metadata, protocol, set transactions, domain metadata)."
        )


@st.cache_resource(max_entries=64, show_spinner=False)
def _cached_checksum(key: tuple[Any, ...], _log: DeltaLog, version: int) -> ChecksumCheck | None:
    return version_checksum(_log, version)
