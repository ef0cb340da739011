"""``python -m inspector`` (and the ``delta-inspector`` script): the entry point and error contract.

Exit codes are :class:`inspector.delta.errors.ExitCode`; errors are printed by
:mod:`inspector.cli.render`. This module is the only place the CLI catches errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from inspector import __version__
from inspector.cli.args import connection_settings
from inspector.cli.registry import commands
from inspector.cli.render import plan_context, render, render_error
from inspector.connection import secrets_in
from inspector.delta.errors import ExitCode, InspectorError, InvalidInput, RestoreRefused
from inspector.settings import ENV_PREFIX, Settings

__all__ = ["build_parser", "main"]

PROG = "python -m inspector"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors follow the CLI's error contract."""

    def error(self, message: str) -> NoReturn:  # argparse would print usage and exit
        raise InvalidInput(
            f"{message[0].upper()}{message[1:]}.", f"Run '{self.prog} --help' for usage."
        )


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: only the command ``argv`` runs (start-up time), else every one."""
    parser = _Parser(prog=PROG, description="Inspect Delta Lake tables and repair them safely.")
    parser.add_argument("--version", action="version", version=f"delta-inspector {__version__}")
    subs = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    first = next((a for a in argv or () if not a.startswith("-")), None)
    for cmd in commands(first):
        sub = subs.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(sub)
        sub.add_argument("--json", action="store_true", help="Print machine-readable JSON.")
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help="Neither read nor fill the log index (the on-disk cache of commits read).",
        )
        sub.set_defaults(handler=cmd.handler)
    return parser


def _arrow_allocator() -> None:
    """Arrow's jemalloc allocator where its wheels build it (Linux), before pyarrow is first
    imported, with one arena: it hands freed memory back sooner than the default (mimalloc),
    and Arrow's reader threads reuse the pages the others freed rather than each keeping its
    own (a full history of 300,000 files peaks at about 280 MB, not 310-345). A user's own
    ``ARROW_DEFAULT_MEMORY_POOL`` or ``JE_ARROW_MALLOC_CONF`` wins."""
    if sys.platform == "linux" and "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
        os.environ.setdefault("JE_ARROW_MALLOC_CONF", "narenas:1")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default ``sys.argv[1:]``); the exit code, never raising."""
    argv = sys.argv[1:] if argv is None else argv
    _arrow_allocator()
    as_json = "--json" in argv  # until the arguments are parsed: a usage error's form
    secrets = _secrets(argv)
    try:
        args = build_parser(argv).parse_args(argv)
        as_json = args.json
        settings = connection_settings(args, Settings.from_env())  # flags parsed once, here
        return render(args.handler(args, settings), as_json=as_json)
    except SystemExit as exc:  # --help and --version print and exit 0
        return int(exc.code or 0)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error; silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.OK
    except RestoreRefused as exc:  # --json also shows the plan it refused and its guards
        kind, message, code = exc.kind, str(exc), exc.exit_code
        context = {} if exc.plan is None else plan_context(exc.plan)
    except InspectorError as exc:
        kind, message, code, context = exc.kind, str(exc), exc.exit_code, {}
    except KeyboardInterrupt:
        kind, message = "Interrupted", "Interrupted; nothing was written."
        code, context = ExitCode.INTERRUPTED, {}
    except Exception as exc:  # the contract: one line, exit 1, never a traceback
        kind, code, context = "UnexpectedError", ExitCode.UNEXPECTED, {}
        first = (str(exc).strip().splitlines() or [""])[0]
        message = (
            f"Unexpected failure: {type(exc).__name__}: {first}. "
            "Please report it with the command you ran."
        )
    return render_error(
        kind=kind, message=message, code=code, as_json=as_json, context=context, secrets=secrets
    )


def _secrets(argv: list[str]) -> dict[str, str]:
    """Every storage option this run may use, from the environment and the raw arguments.

    Read before parsing (:func:`inspector.connection.secrets_in` never raises), so that
    even a usage error never echoes a secret.
    """
    texts = [os.environ.get(f"{ENV_PREFIX}STORAGE_OPTIONS", "")]
    for i, arg in enumerate(argv):
        if arg.startswith("--storage-option="):
            texts.append(arg.partition("=")[2])
        elif arg == "--storage-option" and i + 1 < len(argv):
            texts.append(argv[i + 1])
    return {**os.environ, **secrets_in(texts)}
