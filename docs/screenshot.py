"""Take the README's screenshot of the Timeline page (docs/img/timeline.png).

Starts the app on the demo table on a free loopback port, opens the Timeline page in
Debian's headless Chromium (through Playwright) and saves the page::

    .venv/bin/python docs/screenshot.py [OUTPUT.png]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
URL = re.compile(rb"URL: (http://127\.0\.0\.1:\d+)")


def start_app(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` on a port the OS picks; returns the process and its URL."""
    env = dict(
        os.environ,
        DELTA_INSPECTOR_DEMO_PATH=str(workdir / "demo" / "orders"),
        DELTA_INSPECTOR_RECENT_TABLES_FILE=str(workdir / "recent.json"),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", "0"]
        + ["--server.address", "127.0.0.1", "--server.headless", "true"]
        + ["--browser.gatherUsageStats", "false"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if match := URL.search(line):
            return proc, match.group(1).decode()
    raise SystemExit(f"streamlit exited with {proc.wait()} before serving")


def main(output: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.set_default_timeout(180_000)
                page.goto(f"{url}/?view=timeline")
                expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=180_000)
                time.sleep(2)  # let the chart's entry transition finish before the shot
                page.screenshot(path=output)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(REPO / "docs" / "img" / "timeline.png"))
