"""Benchmark: this project's CLI against deltalake 1.6.6 on lakehouse-scale tables.

Run from the repository root::

    .venv/bin/python bench/bench_scale.py [--tables c3000,c20000,f300000] [--repeat 5]
        [--dir /tmp/di-bench] [--cases history,snapshot,...]

Tables (generated once by ``bench/tablegen.py`` into ``--dir`` and reused):
``c3000``/``c20000``/``c100000`` (N commits, a checkpoint every 100) and
``f300000``/``f1000000`` (N files in checkpoint 0, then a 6,000-action MERGE, an append
and a DELETE). Every figure is a whole process (interpreter start and imports included),
the median of ``--repeat`` runs with the two sides interleaved: wall time, CPU time (user +
system, the steadier figure on a shared machine) and peak resident memory (``ru_maxrss``
of that child, from ``wait4``). The project's modules are compiled to bytecode first
(:func:`compile_project`), as an installed package's are.

Cases, ours vs theirs:

* ``history``: ``history --json`` vs ``DeltaTable(t).history()``;
* ``history10``: ``history --limit 10 --json`` vs ``DeltaTable(t).history(10)``;
* ``detail``: ``detail --json`` vs opening the table, ``DeltaTable(t)``;
* ``snapshot``: ``DeltaLog.open(t).snapshot()`` + file count vs ``DeltaTable(t).file_uris()``;
* ``files``: ``files --version 1 --json`` vs merely ``DeltaTable(t)``;
* ``diff``: ``diff --from 0 --to 2 --json`` (file level) vs deltalake's file lists of
  versions 0 and 2, compared as Python sets;
* ``check``: ``check --json`` vs a plain recursive walk that stats every file;
  ``check-all``: ``check --all-versions --json`` against the same walk;
* ``restore``: ``restore --to-version 0 --dry-run --json`` (no Spark) vs deltalake's
  whole ``restore(0)`` on a fresh copy of ``_delta_log`` (data folders symlinked).

With ``--baseline DIR`` the other side is not deltalake but this project's CLI in another
checkout (``git worktree add --detach DIR REV``), the same command interleaved with ours:
how a change moved the large questions. With ``--merge`` a run of some cases replaces only
their saved rows (each row keeps its own run's load). Results are saved for the summary table of
``docs/performance.md`` (``bench/results.py``, ``bench/targets.py``): as ``bench_scale``
against deltalake, as ``bench_scale_vs_main`` against a baseline checkout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.results import machine, save  # noqa: E402

PY = sys.executable
_WALK = (
    "import os, sys\nn = 0\nfor d, _, fs in os.walk(sys.argv[1]):\n"
    "    for f in fs:\n        os.stat(os.path.join(d, f)); n += 1\nprint(n)"
)
_DL = "import sys; from deltalake import DeltaTable; "
THEIRS = {
    "history": _DL + "DeltaTable(sys.argv[1]).history()",
    "history10": _DL + "DeltaTable(sys.argv[1]).history(10)",
    "detail": _DL + "DeltaTable(sys.argv[1])",
    "snapshot": _DL + "print(len(DeltaTable(sys.argv[1]).file_uris()))",
    "files": _DL + "DeltaTable(sys.argv[1])",
    "diff": _DL + "a = set(DeltaTable(sys.argv[1], version=0).file_uris()); "
    "b = set(DeltaTable(sys.argv[1], version=2).file_uris()); print(len(a - b), len(b - a))",
    "check": _WALK,
    "check-all": _WALK,
    "restore": _DL + "DeltaTable(sys.argv[1]).restore(0)",
}
OURS_SNAPSHOT = (
    "import sys; from inspector.log.deltalog import DeltaLog; "
    "print(DeltaLog.open(sys.argv[1]).snapshot().num_files)"
)
CASES_COMMITS = ("history", "history10", "detail", "snapshot")
CASES_FILES = ("history", "snapshot", "files", "diff", "check", "check-all", "restore")
THEIR_LABEL = {
    "check": "os.walk + stat of every file",
    "check-all": "os.walk + stat of every file",
    "files": "DeltaTable(t) (open only)",
    "detail": "DeltaTable(t) (open only)",
    "restore": "deltalake restore(0), whole",
}


def ours(case: str, table: str) -> list[str]:
    """The command line of this project for a case."""
    cli = [PY, "-m", "inspector"]
    return {
        "history": [*cli, "history", table, "--json"],
        "history10": [*cli, "history", table, "--limit", "10", "--json"],
        "detail": [*cli, "detail", table, "--json"],
        "snapshot": [PY, "-c", OURS_SNAPSHOT, table],
        "files": [*cli, "files", table, "--version", "1", "--json"],
        "diff": [*cli, "diff", table, "--from", "0", "--to", "2", "--json"],
        "check": [*cli, "check", table, "--json"],
        "check-all": [*cli, "check", table, "--all-versions", "--json"],
        "restore": [*cli, "restore", table, "--to-version", "0", "--dry-run", "--json"],
    }[case]


def compile_project(repo: str) -> None:
    """Compile ``inspector/`` to bytecode once, as ``pip install`` does for a package.

    deltalake's modules in site-packages are compiled; a source tree run with
    ``PYTHONDONTWRITEBYTECODE`` (this VM's default) would compile about 50 modules in every
    process (≈0.1 s CPU), which no installed CLI pays.
    """
    import compileall

    compileall.compile_dir(os.path.join(repo, "inspector"), quiet=1)


def run(argv: list[str], cwd: str = REPO) -> tuple[float, float, float]:
    """Run a whole process in ``cwd``; return (wall seconds, CPU seconds, peak RSS in MB)."""
    began = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 4):  # check exits 4 for an inconsistent latest version
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def ensure_table(folder: str, name: str) -> str:
    """Generate table ``name`` (``c3000``, ``f300000``, ...) under ``folder`` once."""
    root = os.path.join(folder, name)
    done = root + ".done"
    if os.path.exists(done):
        return root
    shutil.rmtree(root, ignore_errors=True)
    # Imported here: the measuring parent stays small, because a child's ru_maxrss
    # starts from its parent's size (fork + exec carry the high-water mark).
    from bench.tablegen import make_commits_table, make_files_table

    began = time.perf_counter()
    count = int(name[1:])
    if name[0] == "c":
        make_commits_table(root, count)
    else:
        make_files_table(root, count)
    open(done, "w").close()
    print(f"generated {name} in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return root


def restore_copy(table: str) -> str:
    """A fresh table whose ``_delta_log`` is a copy and whose data folders are symlinks."""
    copy = tempfile.mkdtemp(prefix="restore-", dir=os.path.dirname(table))
    shutil.copytree(os.path.join(table, "_delta_log"), os.path.join(copy, "_delta_log"))
    for entry in os.scandir(table):
        if entry.is_dir() and entry.name != "_delta_log":
            os.symlink(entry.path, os.path.join(copy, entry.name))
    return copy


def measure(case: str, table: str, repeat: int, baseline: str | None = None) -> dict:
    """Median wall time and peak memory of both sides, interleaved.

    ``baseline`` is another checkout of this project whose CLI is the other side.
    """
    mine, theirs = [], []
    for _ in range(repeat):
        if baseline:
            theirs.append(run(ours(case, table), cwd=baseline))
        elif case == "restore":
            copy = restore_copy(table)
            try:
                theirs.append(run([PY, "-c", THEIRS[case], copy]))
            finally:
                shutil.rmtree(copy)
        else:
            theirs.append(run([PY, "-c", THEIRS[case], table]))
        mine.append(run(ours(case, table)))
    return figures(mine, theirs)


def figures(mine: list[tuple[float, float, float]], theirs: list[tuple[float, float, float]]):
    """A row's figures from interleaved (wall, CPU, peak MB) runs: medians, and peak memory."""
    return {
        "ours_s": statistics.median(w for w, _, _ in mine),
        "ours_cpu": statistics.median(c for _, c, _ in mine),
        "ours_mb": max(m for _, _, m in mine),
        "theirs_s": statistics.median(w for w, _, _ in theirs),
        "theirs_cpu": statistics.median(c for _, c, _ in theirs),
        "theirs_mb": max(m for _, _, m in theirs),
        "runs": len(mine),
    }


def main(argv: list[str] | None = None) -> int:
    """Generate the tables that are missing, measure, print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="c3000,c20000,f300000")
    parser.add_argument("--cases", default=",".join(dict.fromkeys(CASES_COMMITS + CASES_FILES)))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "di-bench"))
    parser.add_argument("--baseline", help="another checkout of this project to compare with")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the saved rows of the cases not run (each row keeps its own run's load)",
    )
    args = parser.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    # A first read: the log index (on for local tables too since #35) neither read nor
    # filled, so that a repeat never reads what the one before kept (bench_index.py
    # measures filling it and reading from it).
    os.environ["DELTA_INSPECTOR_LOG_INDEX"] = "false"
    compile_project(REPO)
    if args.baseline:
        compile_project(args.baseline)
    wanted = args.cases.split(",")
    started, rows = machine(), []
    print(
        "| table | case | this project | deltalake 1.6.6 (or baseline) | ratio "
        "| CPU ours | CPU theirs | CPU ratio | peak MB ours | peak MB theirs | runs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.tables.split(","):
        table = ensure_table(args.dir, name)
        cases = CASES_COMMITS if name[0] == "c" else CASES_FILES
        for case in (c for c in cases if c in wanted):
            f = measure(case, table, args.repeat, args.baseline)
            rows.append({"table": name, "case": case, **f})
            label = f"(CLI in {args.baseline})" if args.baseline else THEIR_LABEL.get(case, "")
            print(
                f"| {name} | {case} | {f['ours_s']:.2f} s | {f['theirs_s']:.2f} s {label} "
                f"| {f['ours_s'] / f['theirs_s']:.2f} | {f['ours_cpu']:.2f} s "
                f"| {f['theirs_cpu']:.2f} s | {f['ours_cpu'] / max(f['theirs_cpu'], 0.01):.2f} "
                f"| {f['ours_mb']:.0f} | {f['theirs_mb']:.0f} | {f['runs']} |",
                flush=True,
            )
    bench = "bench_scale_vs_main" if args.baseline else "bench_scale"
    print(f"saved {save(bench, rows, started=started, merge=args.merge)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
