"""What the log itself says is wrong at a version, or with the table's log folder.

A commit missing or damaged, a checkpoint missing parts, unreadable or disagreeing with
its commits, a ``_last_checkpoint`` hint that names a missing, stale or future checkpoint.
"""

from __future__ import annotations

from inspector.health.records import HealthProblem, ProblemKind
from inspector.log.commit import Commit
from inspector.log.deltalog import DeltaLog, table_problems

COMMIT_MISSING = HealthProblem(
    kind=ProblemKind.COMMIT_MISSING, message="Its commit file is missing from _delta_log."
)


def commit_problem(commit: Commit | None) -> HealthProblem | None:
    """What is wrong with a version's commit file (missing, damaged), or None."""
    if commit is None:
        return COMMIT_MISSING
    if not commit.is_complete:
        message = "Its commit file is damaged: " + " ".join(commit.problems)
        return HealthProblem(kind=ProblemKind.COMMIT_DAMAGED, message=message)
    return None


def log_problems_at(log: DeltaLog, version: int) -> list[HealthProblem]:
    """The checkpoint problems of one version, as the fast check reports them: a newer
    checkpoint than the one its snapshot was read from, found unusable on the way (the
    newest readers start from), then its own, compared with its commits only when the
    newest checkpoint is this version's."""
    skipped = sorted((v, m) for v, found in log.replay_problems().items() for m in found)
    tail = log.tail.from_version
    out = [_checkpoint_problem(m) for v, m in skipped if tail <= v < version]
    listing = log.listing_at(version)
    last = listing.last_checkpoint
    if version not in listing.checkpoints and (last is None or last.version != version):
        return out  # no checkpoint of the log belongs to this version: none is read
    return out + log_problems(log, False).get(version, [])


def log_problems(log: DeltaLog, all_checkpoints: bool) -> dict[int, list[HealthProblem]]:
    """Checkpoint problems that belong to one version (dangling hint, parts missing, unreadable)."""
    listing = log.listing
    found: dict[int, list[HealthProblem]] = {}
    last = listing.last_checkpoint
    if last is not None and last.version is not None and last.version not in listing.checkpoints:
        found.setdefault(last.version, []).append(
            _checkpoint_problem(
                "_last_checkpoint names this version's checkpoint, but the checkpoint file is missing "
                "(not replicated yet, or deleted); readers that trust the hint fail or fall back to listing."
            )
        )
    # Parts missing, unreadable, or disagreeing with the commits (a full check verifies every
    # checkpoint against its commits; the fast one only the newest, the one readers start from).
    for version, problems in log.checkpoint_problems(verify_all=all_checkpoints).items():
        found.setdefault(version, []).extend(map(_checkpoint_problem, problems))
    return found


def _checkpoint_problem(message: str) -> HealthProblem:
    return HealthProblem(kind=ProblemKind.CHECKPOINT, message=message)


def table_level_problems(log: DeltaLog, *, whole: bool) -> list[str]:
    """Problems of the table rather than of a version; ``whole``: of the whole log folder,
    else only of the listing from the newest checkpoint on (what the fast check read)."""
    listing = log.listing if whole else log.tail
    problems = table_problems(log, whole=whole)
    hint = listing.last_checkpoint.version if listing.last_checkpoint is not None else None
    usable = listing.usable_checkpoints()
    if hint is not None and usable and usable[0].version > hint:
        problems.append(
            f"_last_checkpoint names version {hint}, but a newer checkpoint "
            f"({usable[0].version}) exists; readers find it by listing (harmless, but stale)."
        )
    if hint is not None and hint > log.latest_version:
        problems.append(
            f"_last_checkpoint names version {hint}, beyond the newest commit "
            f"({log.latest_version}): commits have not all arrived."
        )
    return problems
