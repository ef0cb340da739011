"""Issue #33's line count: the lines of ``inspector/`` before and after round 4's new features.

#33 asks that what existed at the start of round 4 (26,285 lines in ``inspector/`` at
7bfba94, ``ui/`` and tests not counted) take at least 20% fewer lines (at most 21,030) before
the new features of the round add to it, and that both counts be said. The new features'
modules are named in :data:`NEW_FEATURES`; a line they added to an older module counts as
pre-existing, so the pre-existing figure is an upper bound.

Run from the repository root to count the tree and save the figures (with the commit
counted) as ``bench/results/linecount.json``; ``docs/performance.md`` renders the saved
figures (:func:`summary_markdown`, cog), so a code change does not make the page stale::

    .venv/bin/python bench/linecount.py && .venv/bin/python -m cogapp -r docs/performance.md
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import load, machine, save  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BEFORE = 26_285  # inspector/ at 7bfba94, main before round 4
LIMIT = 21_030  # BEFORE less 20%

#: The modules of round 4's new features: row history (blame), the files a filter reads
#: (explain, pruning, predicate), checksums, history filters, and the log index (#35).
NEW_FEATURES = (
    "inspector/rows/blame.py",
    "inspector/rows/blame_records.py",
    "inspector/rows/explain.py",
    "inspector/files/pruning.py",
    "inspector/files/predicate.py",
    "inspector/health/checksum.py",
    "inspector/table/history_filter.py",
    "inspector/table/history_store.py",
    "inspector/log/relist.py",
    "inspector/log/columnlisting.py",
    "inspector/log/index/*.py",
    "inspector/cli/answers_commands.py",
    "inspector/present/text/answers.py",
)


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def counts(repo: Path = REPO) -> tuple[int, int]:
    """Lines of every module of ``inspector/``, and of the new features' modules."""
    new = {p for pattern in NEW_FEATURES for p in repo.glob(pattern)}
    every = sum(_lines(p) for p in repo.glob("inspector/**/*.py"))
    return every, sum(_lines(p) for p in new)


def summary_markdown() -> str:
    """The saved count as a small table, with #33's target judged."""
    saved = load("linecount")
    if saved is None:
        return "Not counted yet: run `bench/linecount.py`."
    row = saved["rows"][0]
    every, new, commit = row["all"], row["new"], row["commit"]
    before = every - new
    status = "met" if before <= LIMIT else "**not met**"
    return "\n".join(
        (
            f"Counted at {commit}, {saved['ended']['when']}.",
            "",
            "| what | lines |",
            "|---|---|",
            f"| `inspector/` at the start of round 4 (7bfba94) | {BEFORE:,} |",
            f"| what existed then, now (target ≤ {LIMIT:,}: {status}) | {before:,} |",
            f"| round 4's new features (the modules of `NEW_FEATURES`) | {new:,} |",
            f"| `inspector/` now, with them | {every:,} |",
        )
    )


def main() -> None:
    every, new = counts()
    head = ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(head, capture_output=True, text=True, check=True).stdout.strip()
    dirty = ["git", "-C", str(REPO), "status", "--porcelain", "--", "inspector"]
    if subprocess.run(dirty, capture_output=True, text=True, check=True).stdout.strip():
        commit += " with uncommitted changes"
    started = machine()
    save("linecount", [{"all": every, "new": new, "commit": commit}], started=started)
    print(f"inspector/ {every:,} lines; new features {new:,}; what existed {every - new:,}")


if __name__ == "__main__":
    main()
