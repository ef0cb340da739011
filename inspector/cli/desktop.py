"""``desktop``: the app in a native window on this machine (pywebview, loopback only)."""

from __future__ import annotations

import argparse
import os

from inspector.cli.registry import arguments, command
from inspector.cli.render import Result
from inspector.delta.errors import ExitCode
from inspector.settings import Settings


def _desktop_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "table", nargs="?", help="Table to open (default: the built-in demo table)."
    )
    parser.add_argument(
        "--operator", action="store_true", help="Show the pages that change tables (Restore)."
    )


@command("desktop", "Open the app in a desktop window; closing the window stops its server.")
@arguments(_desktop_args)
def desktop_command(args: argparse.Namespace, settings: Settings) -> Result:
    from inspector.desktop.window import run_desktop  # pywebview only when a window is wanted

    code = run_desktop(
        args.table, operator=args.operator, settings=settings, environ=dict(os.environ)
    )
    return Result(exit_code=ExitCode(code))
