"""The desktop window: one command, one window, no stray server, no guessable port.

The window tests run the real launcher (`python -m inspector desktop`) on a virtual
screen (Xvfb), find the window by its title with xdotool, look at it, and close it the
way a window manager does (a WM_DELETE_WINDOW message).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.demo import write_demo_table
from inspector.desktop.server import TOKEN_ENV, Server
from inspector.desktop.window import window_title
from tests.conftest import offered_pages, open_app

REPO = Path(__file__).resolve().parent.parent
_TOOLS = ("Xvfb", "xdotool", "import")


def _missing_tools() -> list[str]:
    return [tool for tool in _TOOLS if shutil.which(tool) is None]


needs_screen = pytest.mark.skipif(
    bool(_missing_tools()) and not os.environ.get("CI"),
    reason=f"needs {', '.join(_TOOLS)} (Debian: xvfb, xdotool, imagemagick; .ci/run installs them)",
)


@pytest.fixture(scope="module")
def screen() -> Iterator[str]:
    """A virtual X screen; its number comes from Xvfb itself (-displayfd), never guessed."""
    assert not _missing_tools(), f"missing: {_missing_tools()}"
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as fh:
        number = fh.readline().strip()
    yield f":{number}"
    xvfb.terminate()
    xvfb.wait(timeout=10)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("desktop") / "demo"
    write_demo_table(str(root))
    return root


class Launch:
    """One `python -m inspector desktop` process and what it says about itself."""

    def __init__(self, display: str, table: Path, tmp: Path) -> None:
        self.rendered = tmp / "rendered.txt"
        # stderr to a file: Qt WebEngine is chatty, and an unread pipe would fill up.
        self.errors = tmp / "stderr.txt"
        env = {
            **os.environ,
            "DISPLAY": display,
            "DELTA_INSPECTOR_DESKTOP_RENDERED": str(self.rendered),
            "DELTA_INSPECTOR_DESKTOP_STATE_FILE": str(tmp / "desktop.json"),
            "DELTA_INSPECTOR_RECENT_TABLES_FILE": str(tmp / "recent.json"),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "inspector", "desktop", str(table)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=self.errors.open("w"),
            text=True,
        )
        line = self.process.stdout.readline() if self.process.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:(\d+)/ \(server pid (\d+)\)", line)
        assert found, f"no address announced: {line!r} {self.stderr()}"
        self.port, self.server_pid = int(found.group(1)), int(found.group(2))

    def wait_rendered(self, view: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.rendered.exists() and view in self.rendered.read_text().split():
                return
            assert self.process.poll() is None, self.stderr()
            time.sleep(0.2)
        raise AssertionError(f"the app never drew {view!r}")

    def stderr(self) -> str:
        return self.errors.read_text() if self.errors.exists() else ""


def _windows(display: str, title: str) -> list[str]:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", title],
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
    )
    return found.stdout.split()


def _wait_windows(
    display: str, title: str, count: int, *alive: Launch, timeout: float = 180
) -> list[str]:
    """The ids of ``count`` visible windows titled ``title``, while the ``alive`` launchers run.

    Qt WebEngine's cold start took over 60 s on a loaded 2-core machine (a window that did
    come, late): the wait is generous because a launcher that died fails it at once.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ids = _windows(display, title)
        if len(ids) == count:
            return ids
        for launch in alive:
            assert launch.process.poll() is None, launch.stderr()
        time.sleep(0.05)
    raise AssertionError(f"expected {count} window(s) titled {title!r}, saw {ids}")


def _close_window(display: str, window_id: str) -> None:
    """What a window manager does when the user clicks the close button.

    The round trip before hanging up is what makes the message arrive. An X server that
    finds a client's connection closed drops the requests it had not read yet; a busy
    server (Qt WebEngine starting: the first seconds of a window) often had not, and the
    close was lost about half the time, with the launcher waiting for it in vain. Xlib's
    ``XCloseDisplay`` syncs first; python-xlib's ``close`` does not; a window manager
    keeps its connection open. Recording the server's requests (the RECORD extension)
    showed the lost closes never reached it, and Qt handles every close that does,
    page loading or not.
    """
    from Xlib import X, protocol
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display)
    window = conn.create_resource_object("window", int(window_id))
    wm_protocols = conn.intern_atom("WM_PROTOCOLS")
    delete = conn.intern_atom("WM_DELETE_WINDOW")
    event = protocol.event.ClientMessage(
        window=window, client_type=wm_protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])
    )
    window.send_event(event, event_mask=X.NoEventMask)
    conn.sync()  # the server has read the close (and raised any error) before we hang up
    conn.close()


def _close_and_wait(display: str, window_id: str, launch: Launch, timeout: float = 10) -> int:
    """Close the window once and return the launcher's exit code (within ``timeout`` s)."""
    _close_window(display, window_id)
    try:
        return launch.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the window did not close: {launch.stderr()}") from None


def _screenshot(display: str, path: Path) -> None:
    subprocess.run(
        ["import", "-window", "root", str(path)],
        env={**os.environ, "DISPLAY": display},
        check=True,
    )


def _colours(path: Path) -> int:
    from PIL import Image

    with Image.open(path) as image:
        return len(image.convert("RGB").getcolors(maxcolors=1 << 20) or [])


def _wait_painted(display: str, path: Path, timeout: float = 60) -> int:
    """Screenshots until the Timeline's chart has painted (many colours), or time is up."""
    deadline, colours = time.monotonic() + timeout, 0
    while time.monotonic() < deadline:
        _screenshot(display, path)
        colours = _colours(path)
        if colours > 400:
            return colours
        time.sleep(0.5)
    return colours


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat").read_text().split()
    return stat[2] == "Z"


@needs_screen
def test_the_window_shows_the_timeline_and_closing_it_stops_the_server(
    screen: str, demo: Path, tmp_path: Path
) -> None:
    launch = Launch(screen, demo, tmp_path)
    title = window_title(str(demo))
    assert title == "Delta Inspector — demo"
    (window,) = _wait_windows(screen, title, 1, launch)
    launch.wait_rendered("timeline")
    shot = tmp_path / "desktop-timeline.png"
    assert _wait_painted(screen, shot) > 400, "the window stayed blank"

    assert _close_and_wait(screen, window, launch) == 0, launch.stderr()
    assert _gone(launch.server_pid)
    assert _port_is_free(launch.port)
    assert (tmp_path / "desktop.json").exists(), "the window's size was not remembered"


@needs_screen
def test_two_launches_are_independent_and_a_dead_server_closes_its_window(
    screen: str, demo: Path, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Launch(screen, demo, tmp_path / "a")
    second = Launch(screen, demo, tmp_path / "b")
    assert first.port != second.port
    _wait_windows(screen, window_title(str(demo)), 2, first, second)
    first.wait_rendered("timeline")
    second.wait_rendered("timeline")

    os.kill(first.server_pid, signal.SIGKILL)
    assert first.process.wait(timeout=60) == 5
    assert "the app's server stopped" in first.stderr()
    (survivor,) = _wait_windows(screen, window_title(str(demo)), 1, second)

    assert _close_and_wait(screen, survivor, second) == 0
    assert _port_is_free(first.port) and _port_is_free(second.port)


def test_a_server_that_stopped_is_told_by_its_exit_code_and_last_line_on_stderr(
    tmp_path: Path,
) -> None:
    errors = (tmp_path / "server.err").open("w+b")
    script = "import sys; sys.stderr.write('starting\\nOSError: port taken\\n\\n'); sys.exit(3)"
    process = subprocess.Popen([sys.executable, "-c", script], stderr=errors)
    server = Server(process=process, port=0, token="t", errors=errors)

    assert server.ended() == "exit code 3 (OSError: port taken)"


def test_without_a_display_desktop_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["desktop"]) == 5
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "no display" in err and "./dev.sh app" in err


def test_a_server_started_for_a_window_refuses_other_visitors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, demo: Path
) -> None:
    monkeypatch.setenv(TOKEN_ENV, "s3cret-token")
    stranger = open_app(monkeypatch, tmp_path, table=str(demo))
    stranger.run()
    assert "belongs to a desktop window" in stranger.error[0].value
    assert not offered_pages(stranger)

    window = open_app(monkeypatch, tmp_path, token="s3cret-token", table=str(demo))
    window.run()
    assert not window.exception and not window.error
    assert offered_pages(window)


def _processes_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (the launcher and its server carry it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if marker.encode() in environ and not _gone(int(entry.name)):
            found.append(int(entry.name))
    return found


def _wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.1)
    return _gone(pid)


def test_a_platform_qt_cannot_load_is_one_line_exit_5_and_starts_no_server(
    demo: Path, tmp_path: Path
) -> None:
    marker = f"DELTA_INSPECTOR_DESKTOP_STATE_FILE={tmp_path / 'desktop.json'}"
    # A display no X server answers: Qt's xcb platform plugin cannot load, as without
    # libxcb-cursor0, and Qt aborts the process that tries.
    env = {**os.environ, "DISPLAY": ":65000", marker.split("=")[0]: marker.split("=", 1)[1]}
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "desktop", str(demo)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 5, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: Qt cannot open a window here: could not connect to display")
    assert "sudo apt-get install libxcb-cursor0" in line
    assert done.stdout == ""  # no address announced: no server was started
    assert _processes_with(marker) == []


def test_the_qt_packages_named_are_those_dev_sh_installs() -> None:
    from inspector.desktop.window import QT_DEBS

    script = (REPO / "dev.sh").read_text()
    found = re.search(r"QT_DEBS=\(([^)]*)\)", script)
    assert found and found.group(1).split() == QT_DEBS


@needs_screen
def test_a_launcher_killed_with_sigkill_takes_its_server_with_it(
    screen: str, demo: Path, tmp_path: Path
) -> None:
    launch = Launch(screen, demo, tmp_path)

    launch.process.kill()
    launch.process.wait(timeout=10)

    assert _wait_gone(launch.server_pid, timeout=10), "the server outlived its launcher"


@needs_screen
@pytest.mark.parametrize("after", [0.0, 0.5, 1.5, 3.0])
def test_a_close_sent_at_any_moment_after_the_window_appears_stops_the_launcher_and_its_server(
    screen: str, demo: Path, tmp_path: Path, after: float
) -> None:
    """From the first instant the window is on screen (Qt WebEngine still starting, the page
    loading, pywebview injecting its bridge) to the drawn page, one close is enough."""
    launch = Launch(screen, demo, tmp_path)
    (window,) = _wait_windows(screen, window_title(str(demo)), 1, launch)
    time.sleep(after)  # the moment is the test's subject: no event marks it

    deadline = time.monotonic() + 10
    assert _close_and_wait(screen, window, launch, timeout=10) == 0, launch.stderr()
    assert _wait_gone(launch.server_pid, timeout=max(0.0, deadline - time.monotonic()))
    assert _port_is_free(launch.port)
