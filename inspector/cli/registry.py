"""The command registry: ``@command``/``@arguments`` and the explicit list of command modules.

A command module (``inspector/cli/<subject>.py``) registers its handlers on import::

    @command("history", "Print the table's history.")
    @arguments(_history_args)
    def history_command(args: argparse.Namespace, settings: Settings) -> HistoryResult: ...

A handler returns a result record (``to_json()`` and ``text()``; see
:mod:`inspector.cli.render`), which the one renderer prints as text or JSON; a plain
``int`` is still accepted as an exit code from handlers that print for themselves.
This module imports no command module at import time, so nothing imports in a circle:
``main`` → ``registry`` → (at run time) the modules in :data:`COMMAND_MODULES` → ``registry``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.settings import Settings

#: The modules that register commands, imported when the parser is built. Add a new
#: subject's module here (one line).
COMMAND_MODULES = (
    "inspector.cli.log_commands",
    "inspector.cli.rows_commands",
    "inspector.cli.changes_commands",
    "inspector.cli.health_commands",
    "inspector.cli.restore_commands",
    "inspector.cli.desktop",
    "inspector.cli.operations",
    "inspector.cli.insights_commands",
)

Handler = Callable[[argparse.Namespace, Settings], Any]
AddArguments = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True, kw_only=True)
class Command:
    """One subcommand: its name, help text, argument adder and handler."""

    name: str
    help: str
    add_arguments: AddArguments
    handler: Handler


_COMMANDS: dict[str, Command] = {}


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """A command without options of its own."""


def command(name: str, help: str) -> Callable[[Handler], Handler]:
    """Register a subcommand: decorate ``handler(args, settings) -> result``.

    The handler's ``arguments`` attribute (set by :func:`arguments`, applied first)
    adds its options to the subparser.

    Args:
        name: The subcommand's name.
        help: One line for ``--help``.
    """

    def register(handler: Handler) -> Handler:
        add = getattr(handler, "arguments", _no_arguments)
        _COMMANDS[name] = Command(name=name, help=help, add_arguments=add, handler=handler)
        return handler

    return register


def arguments(add: AddArguments) -> Callable[[Handler], Handler]:
    """Attach an argument-adding function to a command handler."""

    def attach(handler: Handler) -> Handler:
        handler.arguments = add  # type: ignore[attr-defined]
        return handler

    return attach


def commands() -> list[Command]:
    """Every registered command, by name (imports the command modules first)."""
    for module in COMMAND_MODULES:
        importlib.import_module(module)
    return sorted(_COMMANDS.values(), key=lambda c: c.name)
