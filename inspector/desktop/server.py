"""The app's server for one desktop window: ``streamlit run app.py`` on loopback, tied to its launcher.

The server listens on 127.0.0.1 only, on a port chosen for this launch, and serves pages
only to URLs that carry this launch's random token (``ui.desktop_guard`` checks it), so
other local users cannot guess their way in. It dies with its launcher, even a killed one
(Linux: the parent-death signal).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode

from inspector.delta.errors import DesktopUnavailable

#: The app's entry point, next to the ``inspector`` package.
APP_SCRIPT = Path(__file__).resolve().parent.parent.parent / "app.py"
#: The environment variable that carries the launch token to the server.
TOKEN_ENV = "DELTA_INSPECTOR_DESKTOP_TOKEN"
#: Optional: a file the app appends the rendered page's key to (a hook for tests).
RENDERED_ENV = "DELTA_INSPECTOR_DESKTOP_RENDERED"
_START_TIMEOUT_S = 90.0
_PORT_ATTEMPTS = 3
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True, kw_only=True)
class Server:
    """The app's server process for one window."""

    process: subprocess.Popen[bytes]
    port: int
    token: str
    #: Where the server's stderr goes (a file, not a pipe: a chatty server must never
    #: block on a full pipe); ``Popen.stderr`` is None for a file.
    errors: IO[bytes]

    def ended(self) -> str:
        """How the server ended: its exit code and its last line on stderr (waits for it)."""
        code = self.process.wait()
        self.errors.seek(0)
        text = self.errors.read()[-4000:].decode("utf-8", "replace")
        last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
        return f"exit code {code}" + (f" ({last})" if last else "")

    def url(self, table: str | None) -> str:
        """The address the window opens: loopback, this launch's token, the table."""
        query = {"token": self.token}
        if table:
            query["table"] = table
        return f"http://127.0.0.1:{self.port}/?{urlencode(query)}"


def free_port() -> int:
    """A port that was free a moment ago (the server may still lose it; we then retry)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(port: int, table: str | None, *, operator: bool) -> list[str]:
    """The ``streamlit run`` command line for one launch (loopback only, headless)."""
    app_args = (["--table", table] if table else []) + (["--operator"] if operator else [])
    return [
        sys.executable, "-m", "streamlit", "run", str(APP_SCRIPT),
        "--server.address", "127.0.0.1", "--server.port", str(port),
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
        "--", *app_args,
    ]  # fmt: skip


def start_server(table: str | None, *, operator: bool, env: dict[str, str]) -> Server:
    """Start the app's server and wait until it answers on its port.

    Raises:
        DesktopUnavailable: If the server exits before it listens, or never listens.
    """
    # The server is our child: the same environment, minus anything that would point its
    # browser-opening logic at a display.
    env = {k: v for k, v in env.items() if k != "BROWSER"}
    for _ in range(_PORT_ATTEMPTS):
        port, token = free_port(), secrets.token_urlsafe(24)
        errors = tempfile.TemporaryFile()
        process = subprocess.Popen(
            server_command(port, table, operator=operator),
            env={**env, TOKEN_ENV: token},
            preexec_fn=_die_with_parent(),  # noqa: PLW1509 - before any thread starts
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        if wait_listening(process, port):
            return Server(process=process, port=port, token=token, errors=errors)
        errors.close()
        if process.poll() is None:
            stop_process(process)
            break
        # Exited before listening: most often someone took the port; try another.
    raise DesktopUnavailable(
        "The app's server did not start.",
        "Run ./dev.sh app to see its output, and check that streamlit is installed.",
    )


def _die_with_parent() -> Callable[[], None] | None:
    """What the server runs before it starts: die with the launcher, however it ends.

    Linux's parent-death signal reaches the server even when the launcher is killed
    with SIGKILL (no ``finally`` runs then). Elsewhere there is no such signal.
    """
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it
    launcher = os.getpid()

    def tie() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != launcher:  # the launcher died before the signal was set
            os.kill(os.getpid(), signal.SIGTERM)

    return tie


def wait_listening(
    process: subprocess.Popen[Any], port: int, *, seconds: float = _START_TIMEOUT_S
) -> bool:
    """Whether ``process`` listens on 127.0.0.1:``port`` within ``seconds`` (False once it exits).

    The server offers no readiness signal, so the port is polled; the wait between polls
    is a wait on the process, which ends at once if it exits.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with socket.socket() as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.1)
    return False


def stop_process(process: subprocess.Popen[Any], *, timeout: float = 10) -> None:
    """Stop a child process: terminate, and kill it if it is still there after ``timeout`` s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
