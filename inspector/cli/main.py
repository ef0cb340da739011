"""``python -m inspector``: the operators' and scripts' contract.

Exit codes: 0 success, 1 unexpected failure, 2 bad input, 3 restore refused,
4 health check found the latest version inconsistent. Errors are one line on
stderr; with ``--json`` also ``{"error": {"type": ..., "message": ...}}`` on stdout.
This module is the only place the CLI renders errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from inspector.delta.errors import InspectorError, InvalidInput
from inspector.settings import Settings

Handler = Callable[[argparse.Namespace, Settings], int]
_COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Handler, str]] = {}


def command(name: str, help: str) -> Callable[[Handler], Handler]:
    """Register a subcommand: decorate ``handler(args, settings) -> exit code``.

    The decorated function's ``arguments`` attribute (set by :func:`arguments`)
    adds its options to the subparser.
    """

    def register(handler: Handler) -> Handler:
        _COMMANDS[name] = (getattr(handler, "arguments", lambda p: None), handler, help)
        return handler

    return register


def arguments(add: Callable[[argparse.ArgumentParser], None]) -> Callable[[Handler], Handler]:
    """Attach an argument-adding function to a command handler."""

    def attach(handler: Handler) -> Handler:
        handler.arguments = add  # type: ignore[attr-defined]
        return handler

    return attach


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors follow the CLI's error contract."""

    def error(
        self, message: str
    ) -> NoReturn:  # argparse would print usage and exit; we raise instead
        raise InvalidInput(
            f"{message[0].upper()}{message[1:]}.", f"Run '{self.prog} --help' for usage."
        )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    _load_commands()
    parser = _Parser(
        prog="python -m inspector", description="Inspect Delta Lake tables and repair them safely."
    )
    subs = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (add_args, handler, help_text) in sorted(_COMMANDS.items()):
        sub = subs.add_parser(name, help=help_text, description=help_text)
        add_args(sub)
        sub.add_argument("--json", action="store_true", help="Print machine-readable JSON.")
        sub.set_defaults(handler=handler)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (never raises for user errors)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
    except InvalidInput as exc:
        return _fail(argparse.Namespace(json="--json" in argv), exc.kind, str(exc), exc.exit_code)
    try:
        return args.handler(args, Settings.from_env())
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error; silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except InspectorError as exc:
        return _fail(args, exc.kind, str(exc), exc.exit_code, getattr(exc, "json_context", None))
    except KeyboardInterrupt:
        return _fail(args, "Interrupted", "Interrupted; nothing was written.", 130)
    except Exception as exc:  # the contract: one line, exit 1, never a traceback
        return _fail(
            args,
            "UnexpectedError",
            f"Unexpected failure: {type(exc).__name__}: {exc}. "
            "Please report it with the command you ran.",
            1,
        )


def _fail(
    args: argparse.Namespace, kind: str, message: str, code: int, context: dict | None = None
) -> int:
    print(f"error: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        # A command may attach what it knew before failing (restore: its plan and guards).
        emit_json({**(context or {}), "error": {"type": kind, "message": message}})
    return code


def emit_json(obj: Any) -> None:
    """Print JSON to stdout (the machine-readable contract)."""
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def _load_commands() -> None:
    """Import the modules that register commands (kept lazy so --help is fast)."""
    import inspector.cli.commands  # noqa: F401  (registers on import)
    import inspector.cli.desktop  # noqa: F401
    import inspector.cli.operations  # noqa: F401
