"""What an operator types and asks for, and every reason the backend refuses it (before any write).

:func:`check_intent` refuses what needs no plan; :func:`request_refusals` lists what stands in
a confirmed request's way (the app's Commit button and ``execute_restore`` use the same list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from inspector.delta.errors import RefusalReason, RefusedPlan, RestoreRefused
from inspector.log.deltalog import DeltaLog
from inspector.restore.audit import Attempt, AttemptStatus, record_attempt
from inspector.restore.guards import GuardName, GuardResult, Overridden, Override
from inspector.restore.planrecord import RestorePlan
from inspector.settings import Settings
from inspector.table import Table
from inspector.table.versions import parse_version

_VERSION_WORDS = frozenset({"latest", "current"})


class NameSource(StrEnum):
    """Where the table name typed to confirm a restore comes from."""

    CATALOG = "the table's full name in its catalog"
    METADATA = "the table's name in its metadata"
    FOLDER = "the table's folder name (the table has no name in its metadata)"


def parse_target(text: str, log: DeltaLog) -> int | str:
    """A restore target as typed (``12``, ``latest``, ``-1``): a version of ``log``, or else the
    stripped text of a timestamp, which ``plan_restore`` parses.

    Raises:
        InvalidInput: If the text looks like a version that is not valid.
    """
    raw = (text or "").strip()
    if raw.lstrip("-").isdigit() or raw.lower() in _VERSION_WORDS:
        return parse_version(raw, log)
    return raw


def table_name_source(
    table_name: str, table_root: str, *, catalog_name: str | None = None
) -> NameSource:
    """Where a restore's ``table_name`` for the table at ``table_root`` comes from
    (``catalog_name``: its name in a catalog, when it was opened by name)."""
    if catalog_name:
        return NameSource.CATALOG
    folder = table_root.rstrip("/").rsplit("/", 1)[-1]
    return NameSource.FOLDER if table_name == folder else NameSource.METADATA


def describe_name_source(plan: RestorePlan) -> str:
    """Where the name to type comes from, in words (with the catalog name when there is one)."""
    source = table_name_source(plan.table_name, plan.table_root, catalog_name=plan.catalog_name)
    return f"{source} ({plan.catalog_name})" if source is NameSource.CATALOG else str(source)


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """One reason a restore cannot go ahead, in plain words."""

    reason: RefusalReason
    message: str


_NO_REASON = Refusal(
    reason=RefusalReason.NO_REASON,
    message="A reason is required for every restore (it is recorded in the commit and "
    "the audit log).",
)


@dataclass(frozen=True, kw_only=True)
class RestoreIntent:
    """A restore asked for, before its plan is made (nothing costly done yet).

    Attributes:
        interactive: A person can type the confirmation and the reason after seeing the plan.
        confirmed_in_advance: Confirmed without typing (the CLI's ``--yes``).
        expected_version: Refuse unless the table is at this version.
        operator: Who asks (default: the OS user).
    """

    table: Table
    current_version: int
    target: int | str
    reason: str = ""
    interactive: bool = False
    confirmed_in_advance: bool = False
    dry_run: bool = False
    expected_version: int | None = None
    operator: str | None = None


@dataclass(frozen=True, kw_only=True)
class RestoreRequest(Overridden):
    """A restore the operator confirmed for one plan: the typed name and version must equal
    the plan's; ``overrides`` are the failed guards the operator explicitly accepts."""

    plan: RestorePlan
    typed_table_name: str
    typed_version: str
    reason: str
    overrides: frozenset[Override] = frozenset()
    expected_version: int | None = None
    operator: str | None = None


def check_intent(intent: RestoreIntent, *, settings: Settings) -> None:
    """Refuse, before any plan, what no plan can change; audit the refusal.

    Raises:
        RestoreRefused: Naming all at once: no way to confirm, no reason, not at the
            expected version.
    """
    refusals = []
    if intent.expected_version is not None and intent.expected_version != intent.current_version:
        refusals.append(_unexpected(intent.current_version, intent.expected_version))
    needs_now = not intent.dry_run and not intent.interactive
    if needs_now and not intent.confirmed_in_advance:
        message = "There is no terminal to type the confirmation on."
        refusals.append(Refusal(reason=RefusalReason.NO_CONFIRMATION, message=message))
    unasked = needs_now or (intent.confirmed_in_advance and not intent.dry_run)  # commits now
    if unasked and not intent.reason.strip():
        refusals.append(_NO_REASON)
    if refusals:
        attempt = Attempt(
            table=intent.table.root,
            name=intent.table.name,
            from_version=intent.current_version,
            to_version=intent.target if isinstance(intent.target, int) else None,
            reason=intent.reason,
            operator=intent.operator,
        )
        refuse(refusals, attempt, settings=settings, secrets=intent.table.storage_options)


def request_refusals(request: RestoreRequest) -> tuple[Refusal, ...]:
    """Everything that stands in the way of a request, guards first (empty: it may go ahead).

    A plan that the guards or the expected version refuse is refused for that alone;
    otherwise a missing confirmation and a missing reason are both named. Pure.
    """
    plan, refusals = request.plan, []
    blocking = plan.blocking_guards(request.overrides)
    if blocking:
        message = "The restore was refused: " + " ".join(g.message for g in blocking)
        refusals.append(Refusal(reason=RefusalReason.GUARDS, message=message))
    expected = request.expected_version
    if expected is not None and expected != plan.read_version:
        refusals.append(_unexpected(plan.read_version, expected))
    if refusals:  # a refused plan cannot be confirmed: asking for that would only be noise
        return tuple(refusals)
    typed = (request.typed_table_name.strip(), request.typed_version.strip())
    if typed != (plan.table_name, str(plan.target_version)):
        message = (
            f"The restore was not confirmed: type the table name ({plan.table_name}) "
            f"and the target version ({plan.target_version})."
        )
        refusals.append(Refusal(reason=RefusalReason.NOT_CONFIRMED, message=message))
    if not request.reason.strip():
        refusals.append(_NO_REASON)
    return tuple(refusals)


def refuse(
    refusals: Sequence[Refusal],
    attempt: Attempt,
    *,
    settings: Settings,
    secrets: Mapping[str, str],
    plan: RefusedPlan | None = None,
    blocking: Sequence[GuardResult] = (),
) -> None:
    """Audit a refusal and raise it.

    Raises:
        RestoreRefused: Always; its message names every refusal.
    """
    message = " ".join(r.message for r in refusals) + " Nothing was written."
    reasons = [r.reason for r in refusals]
    audit_refusal(attempt, message, reasons, settings=settings, secrets=secrets)
    raise RestoreRefused(message, refusal_hint(reasons, blocking), reasons=reasons, plan=plan)


def audit_refusal(
    attempt: Attempt,
    message: str,
    reasons: Sequence[RefusalReason],
    *,
    settings: Settings,
    secrets: Mapping[str, str],
) -> None:
    """Record a refused attempt (``secrets``: the table's storage options, masked)."""
    record_attempt(
        settings.audit_log,
        attempt,
        outcome=AttemptStatus.REFUSED,
        error=message,
        details={"refusedBecause": [str(r) for r in reasons]},
        secrets=secrets,
    )


def refusal_hint(reasons: Sequence[RefusalReason], blocking: Sequence[GuardResult] = ()) -> str:
    """What to do about the first reason (the others are named in the message)."""
    first = reasons[0] if reasons else None
    if first is RefusalReason.GUARDS:
        names = {g.name for g in blocking}
        if GuardName.TABLE_UNCHANGED in names:
            return "Make a new plan on the table's latest version."
        if names == {GuardName.FILES_AVAILABLE}:
            return (
                "Restore the missing files from a backup, pick another version, or accept a "
                "partial table with allow_missing_files (--allow-missing-files)."
            )
        return "Resolve the problems above or pick another version."
    if first is RefusalReason.UNEXPECTED_VERSION:
        return "Look at what changed (history), then plan again with the new version."
    if first in (RefusalReason.NO_CONFIRMATION, RefusalReason.NO_REASON):
        return (
            "On the command line pass --yes to confirm non-interactively (scripts) or run it "
            "on a terminal, and give --reason 'why'."
        )
    if first is RefusalReason.NOT_CONFIRMED:
        return "Confirm by typing the table name and the target version exactly."
    return "Make a new plan to see the table as it is now."


def _unexpected(version: int, expected: int) -> Refusal:
    return Refusal(
        reason=RefusalReason.UNEXPECTED_VERSION,
        message=f"The table is at version {version}, not at version {expected} as expected "
        "(--expect-version).",
    )
