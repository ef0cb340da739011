"""The Restore page (operator mode only): plan, guards, typed confirmation, commit, verify, undo.

Nothing is written until the operator has seen the plan and every guard, typed the
table's name and the target version, and given a reason. The page only collects
these into a :class:`RestoreRequest`; the backend decides: the Commit button stays
disabled while :func:`request_refusals` names anything (a failed guard no chosen
override covers, a confirmation or reason missing), and :func:`execute_restore`
decides again at commit time and audits every refusal. The result shows the new version, its metrics, the
verification and an Undo: a guarded restore back to the pre-restore version.
The Health page can pre-fill the target and the reason (``restore_prefill``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector.delta.actions import AddFile
from inspector.delta.errors import InspectorError
from inspector.delta.protocol import describe_protocol
from inspector.delta.text import partition_label
from inspector.diff.metadiff import RowKind, metadata_rows
from inspector.restore import (
    Override,
    RestorePlan,
    RestoreRequest,
    execute_restore,
    plan_restore,
    request_refusals,
)
from inspector.restore.request import describe_name_source, parse_target
from ui.common import (
    escape_markdown,
    format_count,
    format_ms,
    metric_row,
    on_spark,
    render_error,
    select_version,
    work_button,
)
from ui.context import PageContext
from ui.pages.restore_result import file_metrics, render_result
from ui.pages.restore_state import (
    ALLOW_DOWNGRADE,
    ALLOW_MISSING,
    CLEAR,
    CONFIRM_TABLE,
    CONFIRM_VERSION,
    OVERRIDE_KEYS,
    PLAN,
    PREFILL,
    REASON,
    RESULT,
    TARGET,
    RestorePrefill,
    plan_request,
)
from ui.state import keep, kept


def render(ctx: PageContext) -> None:
    """The Restore page."""
    st.subheader("Restore", anchor=False)
    st.caption(
        "Operator mode: this page changes the table. A restore is one new commit that makes "
        "an older version's data current again; older versions stay in the history."
    )
    if st.session_state.pop(CLEAR, False):
        for key in (
            PLAN,
            TARGET,
            CONFIRM_TABLE,
            CONFIRM_VERSION,
            REASON,
            *OVERRIDE_KEYS.values(),
        ):
            st.session_state.pop(key, None)
    _apply_prefill(ctx)
    render_result(ctx)
    if TARGET not in st.session_state:
        st.session_state[TARGET] = _default_target(ctx)
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    left.text_input(
        "Restore to version (or a timestamp, e.g. 2024-05-01 12:00:00.000 UTC)", key=TARGET
    )
    if work_button(
        "Plan restore",
        where=right,
        icon=":material/fact_check:",
        key="restore_plan_button",
        help="A dry run: computes what would change and checks every guard. Writes nothing.",
    ):
        _make_plan(ctx, st.session_state.get(TARGET, ""))
    plan = _current_plan(ctx)
    if plan is None:
        st.info(
            "Pick a version and press **Plan restore** to see exactly what a restore would do.",
            icon=":material/info:",
        )
        return
    if plan.is_refusal:  # nothing to add, remove or confirm: the refusal alone
        _render_refusal(plan)
        return
    _render_plan(plan)
    _render_confirmation(ctx, plan)


def _render_refusal(plan: RestorePlan) -> None:
    for guard in plan.guards:
        if not guard.passed:
            st.error(
                f"**No restore to version {plan.target_version}.** {escape_markdown(guard.message)}",
                icon=":material/block:",
            )
    st.caption(f"Engines: {escape_markdown(plan.engines().describe())}")


def _apply_prefill(ctx: PageContext) -> None:
    """Adopt a pre-fill from another page (Health): target and reason; never the confirmation."""
    prefill = st.session_state.pop(PREFILL, None)
    if not isinstance(prefill, RestorePrefill) or prefill.table_root != ctx.log.table_root:
        return
    st.session_state[TARGET] = str(prefill.version)
    st.session_state[REASON] = prefill.reason
    st.session_state.pop(PLAN, None)


def _default_target(ctx: PageContext) -> str:
    if ctx.version < ctx.log.latest_version:
        return str(ctx.version)
    older = [v for v in ctx.versions if v < ctx.log.latest_version]
    return str(older[-1]) if older else ""


def _make_plan(ctx: PageContext, text: str) -> None:
    try:
        target = parse_target(text, ctx.log)
        with st.spinner(
            "Planning: comparing the two versions' files and checking every file…",
            show_time=True,  # no Spark: the file lists are compared in Arrow
        ):
            plan = plan_restore(ctx.table, target, settings=ctx.settings)
    except InspectorError as exc:
        st.session_state.pop(PLAN, None)  # the error replaces the old plan, never sits above it
        render_error(exc)
        return
    keep(PLAN, plan_request(ctx.log), plan)


def _current_plan(ctx: PageContext) -> RestorePlan | None:
    # None also when the table changed since: a stale plan must never be committed.
    return kept(PLAN, plan_request(ctx.log), RestorePlan)


def _render_plan(plan: RestorePlan) -> None:
    when = f" ({format_ms(plan.target_timestamp)})" if plan.target_timestamp else ""
    st.markdown(
        f"##### Plan: version {plan.read_version} → data of version {plan.target_version}{when}"
    )
    cols = metric_row()
    file_metrics(cols, plan.metrics)
    cols.metric("Rows now (stats)", format_count(plan.rows_before))
    lost = plan.rows_in_problem_files
    cols.metric(
        "Rows after (stats)",
        format_count(plan.rows_after),
        f"-{lost:,} rows in missing files" if lost else None,
        help=f"{format_count(plan.effective_rows_after(allow_missing_files=True))} rows if the "
        "missing files are left out"
        if lost
        else None,
    )
    st.caption(f":material/bolt: {escape_markdown(plan.engines().describe())}")
    _render_guards(plan)
    for warning in plan.warnings:
        st.warning(escape_markdown(warning), icon=":material/warning:")
    _render_details(plan)


def _render_guards(plan: RestorePlan) -> None:
    """Failed guards in full; the passed ones folded into one line (details on demand)."""
    st.markdown("##### Guards")
    for guard in plan.guards:
        if not guard.passed:
            override = f"\n\nOverride: `{guard.override}`" if guard.override else ""
            st.error(
                f"**{guard.name}** · {escape_markdown(guard.message)}{override}",
                icon=":material/block:",
            )
    passed = [g for g in plan.guards if g.passed]
    if passed:
        with st.expander(
            f":material/check_circle: {len(passed)} of {len(plan.guards)} guards passed: "
            + ", ".join(g.name for g in passed)
        ):
            for guard in passed:
                st.markdown(f"- **{guard.name}** · {escape_markdown(guard.message)}")


def _render_details(plan: RestorePlan) -> None:
    with st.expander(
        f"Files to re-add ({len(plan.files_to_add)}) and to remove ({len(plan.files_to_remove)})"
    ):
        st.dataframe(_files_frame(plan), hide_index=True, width="stretch")
    if plan.num_file_problems:
        with st.expander(f"Missing or truncated files ({plan.num_file_problems})", expanded=True):
            st.dataframe(
                pd.DataFrame([p.to_json() for p in plan.file_problems]),
                hide_index=True,
                width="stretch",
            )
    diff = plan.metadata_diff
    if diff is not None and not diff.is_empty:
        with st.expander("Schema, property and protocol changes", expanded=True):
            rows = [
                {
                    "change": _RESTORE_CHANGE.get(r.kind, r.kind.value),
                    "what": r.name,
                    "before": "" if r.before is None or r.changes else str(r.before),
                    "after": "; ".join(r.changes) or ("" if r.after is None else str(r.after)),
                }
                for r in metadata_rows(diff)
            ]
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    if plan.merged_protocol is not None:
        st.caption(
            f"Protocol after the restore: {describe_protocol(plan.merged_protocol)} "
            f"(current {describe_protocol(plan.current_protocol)}). "
            f"Partitions touched: {format_count(plan.num_partitions_touched)}."
        )


_RESTORE_CHANGE = {  # a restore brings the target's schema back: say it that way
    RowKind.COLUMN_ADDED: "column comes back",
    RowKind.COLUMN_REMOVED: "column dropped",
}


def _files_frame(plan: RestorePlan) -> pd.DataFrame:
    def row(action: str, add: AddFile) -> dict[str, Any]:
        dv = add.deletion_vector
        return {
            "action": action,
            "path": add.path,
            "size": add.size,
            "rows": add.num_live_records,
            "deletion vector": dv.unique_id if dv else "",
            "partition": partition_label(add.partition_values, unpartitioned=""),
        }

    return pd.DataFrame(
        [row("re-add", a) for a in plan.files_to_add]
        + [row("remove", a) for a in plan.files_to_remove],
        columns=["action", "path", "size", "rows", "deletion vector", "partition"],
    )


def _render_confirmation(ctx: PageContext, plan: RestorePlan) -> None:
    st.markdown("##### Confirm")
    overrides = _render_overrides(plan)
    left, middle = st.columns(2)
    with left:
        typed_table = st.text_input(
            f"Type the table name: **{escape_markdown(plan.table_name)}**", key=CONFIRM_TABLE
        )
        _match_note(typed_table, plan.table_name, describe_name_source(plan))
    with middle:
        typed_version = st.text_input(
            f"Type the target version: **{plan.target_version}**", key=CONFIRM_VERSION
        )
        _match_note(typed_version, str(plan.target_version), "the version planned above")
    reason = st.text_area("Reason (required; recorded in the commit and the audit log)", key=REASON)
    request = RestoreRequest(
        plan=plan,
        typed_table_name=typed_table,
        typed_version=typed_version,
        reason=reason,
        overrides=overrides,
    )
    refusals = request_refusals(request)  # the backend decides; the page only shows it
    for refusal in refusals:
        st.caption(escape_markdown(refusal.message))
    if st.button(
        f"Commit restore to version {plan.target_version}",
        type="primary",
        disabled=bool(refusals),
        icon=":material/restore:",
        key="restore_commit",
    ):
        _commit(ctx, request)


def _match_note(typed: str, expected: str, source: str) -> None:
    """Under a confirmation input: what to type, and whether what is typed matches."""
    typed = (typed or "").strip()
    if not typed:
        st.caption(f"Type `{expected}`: {escape_markdown(source)}.")
    elif typed == expected:
        st.caption(f":material/check: Matches `{expected}`.")
    else:
        st.error(
            f"“{escape_markdown(typed)}” does not match: type exactly `{expected}` "
            f"({escape_markdown(source)}).",
            icon=":material/error:",
        )


def _render_overrides(plan: RestorePlan) -> frozenset[Override]:
    """A checkbox, with a loud warning, for each override that would let the plan go ahead."""
    offered = {Override(g.override) for g in plan.guards if not g.passed and g.override}
    if not offered or plan.blocking_guards(offered):
        return frozenset()  # nothing to override, or a guard no override covers
    chosen = set()
    if Override.ALLOW_MISSING_FILES in offered and st.checkbox(
        "Restore WITHOUT the missing files (a PARTIAL table)", key=ALLOW_MISSING
    ):
        chosen.add(Override.ALLOW_MISSING_FILES)
        st.error(
            f"**The result will be a PARTIAL table**: {plan.num_file_problems} files of version "
            f"{plan.target_version} are missing and will NOT be re-added; their rows are lost. "
            f"The restored table is not version {plan.target_version}.",
            icon=":material/dangerous:",
        )
    if Override.ALLOW_PROTOCOL_DOWNGRADE in offered and st.checkbox(
        "Write the target version's LOWER protocol", key=ALLOW_DOWNGRADE
    ):
        chosen.add(Override.ALLOW_PROTOCOL_DOWNGRADE)
        st.error(
            "**The table's protocol will go down**: readers and writers relying on the current "
            "table features may misread the table.",
            icon=":material/dangerous:",
        )
    return frozenset(chosen)


def _commit(ctx: PageContext, request: RestoreRequest) -> None:
    plan = request.plan
    with st.status(f"Restoring version {plan.target_version}…", expanded=True) as status:
        status.write(
            "Checking again that the table has not moved and the files are all there, "
            "then writing one new commit and verifying it…"
        )
        try:
            with st.spinner(on_spark("Committing through Delta's RESTORE…"), show_time=True):
                result = execute_restore(request, settings=ctx.settings)
        except InspectorError as exc:
            status.update(label="Restore refused: nothing was written", state="error")
            failure: InspectorError | None = exc
        else:
            failure = None
            status.update(label=f"Committed version {result.committed_version}", state="complete")
    if failure is not None:  # open, under the Commit button: the reason and what to do
        render_error(failure)
        return
    st.session_state[CLEAR] = True
    keep(RESULT, ctx.log.table_root, result)
    ctx.log.refresh()
    # Every page moves to the new latest version: sidebar picker, header, URL.
    select_version(result.committed_version)
