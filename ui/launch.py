"""The app's own command line: ``streamlit run app.py -- [TABLE] [--table TABLE] [--operator]``.

``./dev.sh app`` passes its arguments here unchanged, so ``--operator`` may come
before or after the table. Parsing never exits the process: a bad argument becomes
:attr:`LaunchOptions.error`, which ``app.py`` prints once to the terminal and shows
on the page (a ``sys.exit`` inside a Streamlit script leaves a blank page).

This module imports no Streamlit, so ``python -m ui.launch ARGS`` (what
``./dev.sh app --check-args ARGS`` runs) answers at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

USAGE = "./dev.sh app [TABLE] [--operator]  (or: streamlit run app.py -- [TABLE] [--operator])"
_reported: set[str] = set()  # errors already printed by this process (app.py runs per rerun)


@dataclass(frozen=True, kw_only=True)
class LaunchOptions:
    """What the app was started with.

    Attributes:
        table: The table to open when the URL names none (None: the demo table).
        operator: Start in operator mode (the Restore page is shown).
        error: What was wrong with the arguments, or None when they were fine.
    """

    table: str | None = None
    operator: bool = False
    error: str | None = None


class _ArgumentError(Exception):
    """Raised instead of argparse's exit, so a Streamlit script keeps running."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # argparse's is NoReturn
        raise _ArgumentError(message)


def parse_launch(argv: Sequence[str]) -> LaunchOptions:
    """Parse the app's arguments, in any order.

    Args:
        argv: The arguments after ``--`` (``TABLE``, ``--table TABLE``, ``--operator``).

    Returns:
        The options; ``error`` says what is wrong when the arguments cannot be used.
    """
    parser = _Parser(prog="app.py", add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("table_pos", nargs="?", default=None)
    parser.add_argument("--table", default=None)
    parser.add_argument("--operator", action="store_true")
    try:
        known, extra = parser.parse_known_args(list(argv))
    except (_ArgumentError, argparse.ArgumentError) as exc:
        return LaunchOptions(error=_sentence(str(exc)))
    if extra:
        what = "argument" if len(extra) == 1 else "arguments"
        return LaunchOptions(error=f"Unknown {what}: {' '.join(extra)}.")
    if known.table_pos and known.table and known.table_pos != known.table:
        return LaunchOptions(
            error=f"Two tables given ({known.table_pos} and --table {known.table}); give one."
        )
    return LaunchOptions(table=known.table or known.table_pos, operator=known.operator)


def _sentence(message: str) -> str:
    text = message.replace("argument --table: ", "--table: ")
    return f"{text[:1].upper()}{text[1:]}."


def launch_options(argv: Sequence[str] | None = None) -> LaunchOptions:
    """The options of this run of the app.

    Args:
        argv: Explicit arguments; by default ``sys.argv[1:]`` when the running script is
            ``app.py`` (``streamlit run`` sets that), and none otherwise (e.g. under pytest,
            whose own arguments are not the app's).

    Returns:
        The parsed options (see :func:`parse_launch`).
    """
    if argv is None:
        argv = sys.argv[1:] if Path(sys.argv[0] if sys.argv else "").name == "app.py" else []
    return parse_launch(argv)


def report_once(error: str) -> None:
    """Print a launch error to the terminal once per process, however often the app reruns."""
    if error not in _reported:
        _reported.add(error)
        print(terminal_line(error), file=sys.stderr, flush=True)


def terminal_line(error: str) -> str:
    """The one line a launch error prints in the terminal: what is wrong and the usage."""
    return f"Delta Inspector: {error} Usage: {USAGE}"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ui.launch ARGS``: check the app's arguments without starting it.

    Prints ``table=... operator=...`` and returns 0, or prints the one-line error and
    returns 2.
    """
    options = parse_launch(sys.argv[1:] if argv is None else argv)
    if options.error:
        print(terminal_line(options.error), file=sys.stderr)
        return 2
    print(f"table={options.table or '(demo)'} operator={str(options.operator).lower()}")
    return 0


def serve(argv: Sequence[str] | None = None) -> int:
    """Console script ``delta-inspector-app [TABLE] [--operator]``: start the app.

    The arguments go to the app unchanged, as ``./dev.sh app`` passes them; a bad one is
    reported by the app (one terminal line and the page). ``--check-args`` only checks.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--check-args"]:
        return main(args[1:])
    app = str(Path(__file__).resolve().parent.parent / "app.py")
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", "run", app, "--", *args])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
