"""The command registry: ``@command``/``@arguments`` and the explicit list of command modules.

A command module (``inspector/cli/<subject>.py``) registers its handlers on import::

    @command("history", "Print the table's history.")
    @arguments(_history_args)
    def history_command(args: argparse.Namespace, settings: Settings) -> HistoryResult: ...

A handler returns a result record (``to_json()`` and ``text()``; see
:mod:`inspector.cli.render`), which the one renderer prints as text or JSON; anything
else (a plain ``int``) is refused with ``TypeError``.
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

#: The modules that register commands, and the commands each registers. A run imports only
#: the module of the command it runs (importing them all costs about 0.3 s of start-up,
#: which counts in every whole-process comparison); ``--help`` and an unknown command
#: import them all. Add a new subject's module here (one line); a test checks that each
#: command is registered by the module named here.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "inspector.cli.log_commands": ("demo", "detail", "files", "history"),
    "inspector.cli.rows_commands": ("diff", "show"),
    "inspector.cli.changes_commands": ("changes",),
    "inspector.cli.health_commands": ("check",),
    "inspector.cli.restore_commands": ("audit", "restore"),
    "inspector.cli.desktop": ("desktop",),
    "inspector.cli.operations": ("replica", "vacuum-plan"),
    "inspector.cli.insights_commands": ("insights",),
    "inspector.cli.answers_commands": ("blame", "explain"),
}

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


def commands(only: str | None = None) -> list[Command]:
    """The registered commands, by name (imports their command modules first).

    Args:
        only: A command's name: import only its module and return only it. Every command
            when None or not a known name (argparse then lists them in its error).
    """
    modules = [m for m, names in COMMAND_MODULES.items() if only in names]
    for module in modules or COMMAND_MODULES:
        importlib.import_module(module)
    if modules and only in _COMMANDS:
        return [_COMMANDS[only]]
    return sorted(_COMMANDS.values(), key=lambda c: c.name)
