"""The command registry: ``@command``/``@arguments`` and the explicit list of command modules.

A command module registers its handlers on import; a handler returns a
:class:`inspector.cli.render.Result`. This module imports no command module at import
time, so nothing imports in a circle.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.settings import Settings

#: The modules that register commands, and the commands each registers. A run imports only
#: the module of the command it runs (importing them all costs about 0.3 s of start-up);
#: a test checks that each command is registered by the module named here.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "inspector.cli.log_commands": ("demo", "detail", "files", "history"),
    "inspector.cli.rows_commands": ("changes", "diff", "show"),
    "inspector.cli.health_commands": ("check", "replica", "vacuum-plan"),
    "inspector.cli.restore_commands": ("audit", "restore"),
    "inspector.cli.desktop": ("desktop",),
    "inspector.cli.answers_commands": ("blame", "explain", "insights"),
}

Handler = Callable[[argparse.Namespace, Settings], Any]
AddArguments = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True, kw_only=True)
class Command:
    """One subcommand."""

    name: str
    help: str
    add_arguments: AddArguments
    handler: Handler


_COMMANDS: dict[str, Command] = {}


def command(name: str, help: str) -> Callable[[Handler], Handler]:
    """Register a subcommand: decorate ``handler(args, settings) -> result``; its options
    are added by the function :func:`arguments` (applied first) attached."""

    def register(handler: Handler) -> Handler:
        add = getattr(handler, "arguments", lambda parser: None)  # no options of its own
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
    """The registered commands, by name, after importing their modules: only the one
    ``only`` names, else every command (argparse then lists them in its error)."""
    modules = [m for m, names in COMMAND_MODULES.items() if only in names]
    for module in modules or COMMAND_MODULES:
        importlib.import_module(module)
    if modules and only in _COMMANDS:
        return [_COMMANDS[only]]
    return sorted(_COMMANDS.values(), key=lambda c: c.name)
