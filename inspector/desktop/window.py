"""The desktop window: the app's server (``server``) shown by pywebview with Qt.

One launch is one server process and one window, tied together:

- before anything starts, a child process checks that Qt can open a window here (a
  missing system library makes Qt abort the whole process, so it must not be the
  launcher that finds out);
- closing the window stops the server and ends the launcher, even while the page
  loads; the server dying closes the window, and the reason is printed; the server
  also dies with its launcher, even a killed one (Linux: the parent-death signal);
- the window remembers its size between launches (``desktop_state_file`` setting).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import webbrowser
from contextlib import suppress
from pathlib import Path
from typing import Any

from inspector.delta.errors import DesktopUnavailable
from inspector.desktop.server import Server, start_server, stop_process
from inspector.settings import Settings

DEFAULT_SIZE = (1400, 900)
_PROBE_TIMEOUT_S = 60.0
#: The Debian packages Qt's xcb platform and Qt WebEngine need (``./dev.sh desktop``
#: installs the same list, its ``QT_DEBS``; a test keeps the two equal).
QT_DEBS = (
    "libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 "
    "libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libnss3 "
    "libegl1 libgl1 libxcomposite1 libxdamage1 libxrandr2 libxtst6 libasound2 libdbus-1-3"
).split()
#: Starts Qt's GUI application as pywebview will, and nothing else.
_QT_PROBE = "from qtpy.QtWidgets import QApplication; QApplication(['delta-inspector-probe'])"


def require_display(environ: os._Environ[str] | dict[str, str]) -> None:
    """Refuse early, in one line, when there is no screen to open a window on.

    Raises:
        DesktopUnavailable: If neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set.
    """
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        raise DesktopUnavailable(
            "There is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset).",
            "Use the browser instead: ./dev.sh app [TABLE] (then open http://127.0.0.1:8501).",
        )


def require_qt_platform(environ: dict[str, str]) -> None:
    """Refuse, in one line, when Qt cannot open a window here; start nothing.

    Qt aborts the process that fails to load its platform plugin (a missing system
    library, an X server that does not answer), so the check runs in a child.
    """
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _QT_PROBE],
            env=environ,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise DesktopUnavailable(
            f"Qt did not start a window within {_PROBE_TIMEOUT_S:.0f} s.",
            f"Check that DISPLAY ({environ.get('DISPLAY', '')}) names a running X server.",
        ) from None
    if probe.returncode == 0:
        return
    why = _qt_failure(probe.stderr.decode("utf-8", "replace")) or f"exit {probe.returncode}"
    raise DesktopUnavailable(
        f"Qt cannot open a window here: {why}.",
        "Install the system libraries Qt needs (./dev.sh desktop does it): sudo apt-get "
        f"install {' '.join(QT_DEBS)}; and check that DISPLAY names a running X server. "
        "Or use the browser: ./dev.sh app.",
    )


def _qt_failure(stderr: str) -> str:
    """The most specific line of Qt's complaint, without its logging category."""
    lines = [line.split(": ", 1)[-1].strip() for line in stderr.splitlines() if line.strip()]
    for clue in ("could not connect to display", "is needed to load", "Could not load", "qt"):
        found = next((line for line in lines if clue in line), None)
        if found:
            return found.rstrip(".")
    return lines[-1].rstrip(".") if lines else ""


def window_title(table: str | None) -> str:
    """``Delta Inspector — orders``: the table's folder name, or ``demo`` without one."""
    name = Path(table.rstrip("/")).name if table else "demo"
    return f"Delta Inspector — {name or table}"


def load_size(state_file: str) -> tuple[int, int]:
    """The window size saved by the last launch, or the default."""
    try:
        saved = json.loads(Path(state_file).read_text(encoding="utf-8"))
        width, height = int(saved["width"]), int(saved["height"])
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_SIZE
    return (width, height) if width >= 400 and height >= 300 else DEFAULT_SIZE


def save_size(state_file: str, width: int, height: int) -> None:
    """Remember the window size for the next launch (best effort: a window must close)."""
    with suppress(OSError):
        Path(state_file).parent.mkdir(parents=True, exist_ok=True)
        Path(state_file).write_text(json.dumps({"width": width, "height": height}), "utf-8")


def run_desktop(
    table: str | None, *, operator: bool, settings: Settings, environ: dict[str, str]
) -> int:
    """Open the app in a native window; when it closes, 0 (5 when the server died first).

    Raises:
        DesktopUnavailable: No display, no pywebview/Qt, or the server did not start.
    """
    require_display(environ)
    try:
        import webview
    except ImportError as exc:
        raise DesktopUnavailable(
            f"The desktop window needs pywebview with its Qt backend ({exc}).",
            "Install requirements.txt into the environment (./dev.sh does), or use ./dev.sh app.",
        ) from exc
    if environ.get("PYWEBVIEW_GUI", "qt") == "qt":
        require_qt_platform(environ)
    server = start_server(table, operator=operator, env=environ)
    print(
        f"Delta Inspector is serving this window at http://127.0.0.1:{server.port}/ "
        f"(server pid {server.process.pid})",
        flush=True,
    )
    session = _WindowSession(webview, server, table, settings)
    try:
        return session.run()
    finally:
        stop_process(server.process)


class _WindowSession:
    """One window bound to one server: whichever ends first ends the other."""

    def __init__(self, webview: Any, server: Server, table: str | None, settings: Settings):
        self.webview, self.server, self.settings = webview, server, settings
        self.server_died: str | None = None
        width, height = load_size(settings.desktop_state_file)
        self.menu = [
            webview.menu.Menu(
                "View", [webview.menu.MenuAction("Open in browser", self.open_in_browser)]
            )
        ]
        self.window = webview.create_window(
            window_title(table), server.url(table), width=width, height=height
        )
        self.size = (width, height)
        self.window.events.resized += self._resized
        self.window.events.closed += self._remember_size

    def run(self) -> int:
        watcher = threading.Thread(target=self._watch_server, daemon=True)
        # Qt: the only backend we install; WebKitGTK users may set PYWEBVIEW_GUI=gtk.
        gui = os.environ.get("PYWEBVIEW_GUI", "qt")
        os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", _chromium_flags())
        self.webview.start(watcher.start, gui=gui, menu=self.menu, private_mode=True)
        _release_script_waits(self.window)
        if self.server_died:
            print(f"Delta Inspector: the app's server stopped: {self.server_died}", file=sys.stderr)
            return 5
        return 0

    def open_in_browser(self) -> None:
        """Hand the current view (same table, version and page) to the default browser."""
        webbrowser.open(self.window.get_current_url() or self.server.url(None))

    def _resized(self, width: int, height: int) -> None:
        # Track the size as it changes: asking the window for it while it closes would
        # wait on the GUI thread that is busy closing it.
        self.size = (width, height)

    def _remember_size(self) -> None:
        save_size(self.settings.desktop_state_file, *self.size)

    def _watch_server(self) -> None:
        self.server_died = self.server.ended()
        self.window.destroy()


def _release_script_waits(window: Any) -> None:
    """Let pywebview's helper thread end once the window is gone, so the launcher can exit.

    When a page finishes loading, pywebview (Qt backend) injects its JavaScript bridge
    from a non-daemon thread that waits for each script's answer from the page. A window
    closed at that moment (while the page loads) deletes the page before it answers: the
    wait never ends, and Python waits for that thread at exit, so the launcher outlived
    its closed window (2 of 14 closes sent 1.5 s after the window appeared). The waits
    are the semaphores in the view's ``_js_results`` (pywebview 6.2.1, pinned); released,
    the thread's next call finds no window and returns at once.
    """
    pending = getattr(getattr(window, "native", None), "_js_results", None) or {}
    for result in list(pending.values()):
        result["semaphore"].release()


def _chromium_flags() -> str:
    # Qt WebEngine's Chromium refuses to run as root with its sandbox on; operators on
    # jump hosts often are root in a container. Loopback only, our own page only.
    # Its own logging (GPU probing, D-Bus) is noise in an operator's terminal.
    flags = ["--disable-logging", "--log-level=3"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")
    return " ".join(flags)
