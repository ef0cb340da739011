"""The Version page's commitInfo: operationMetrics, operationParameters and provenance."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector.log.commit import Commit
from inspector.present.values import text_value
from ui.common import format_ms


def commit_info(commit: Commit) -> None:
    """The commit's commitInfo: its metrics, parameters and provenance, each whole."""
    info = commit.commit_info
    st.markdown("##### commitInfo")
    if not info.raw:
        st.caption("This commit has no commitInfo action (the writer did not record one).")
        return
    provenance = {
        k: v for k, v in info.raw.items() if k not in ("operationParameters", "operationMetrics")
    }
    sections = (
        ("operationMetrics", info.operation_metrics),
        ("operationParameters", info.operation_parameters),
        ("Provenance", provenance),
    )
    # Full width, one section a tab: a third of the page clipped long values ("55" for 550).
    for tab, (_, values) in zip(st.tabs([t for t, _ in sections]), sections, strict=True):
        with tab:
            if values:
                st.table(
                    pd.DataFrame(
                        [{"field": k, "value": _field_text(k, v)} for k, v in values.items()]
                    ),
                    hide_index=True,
                )
            else:
                st.caption("none recorded")


def _field_text(key: str, value: Any) -> str:
    if key in ("timestamp", "inCommitTimestamp") and isinstance(value, int):
        return f"{value} ({format_ms(value)})"
    return text_value(value)
