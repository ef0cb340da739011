"""Take the docs' screenshots (docs/img/): the Timeline, the Diff's changed rows, the Audit view.

Writes the demo table at a neutral path (``/tmp/demo/orders``, so no long temporary path
shows), starts the app in operator mode on a free loopback port and saves each page from
Debian's headless Chromium (through Playwright), 1400x900. After the Timeline, the table is
restored once to an older version after one refused attempt, so the Audit view has rows::

    .venv/bin/python docs/screenshot.py [OUTPUT_DIR]
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
CHROMIUM = "/usr/bin/chromium"
URL = re.compile(rb"URL: (http://127\.0\.0\.1:\d+)")
WORKDIR = Path("/tmp/demo")
TABLE = WORKDIR / "orders"
AUDIT_LOG = WORKDIR / "audit.jsonl"
TIMEOUT = 240_000  # a first Spark start on a busy machine


def restore_attempts() -> None:
    """Restore the demo table once to before the GDPR delete, after one refused attempt."""
    from inspector.delta.errors import RestoreRefused
    from inspector.restore import execute_restore
    from inspector.restore.plan import plan_restore
    from inspector.restore.request import RestoreRequest
    from inspector.settings import Settings
    from inspector.table import open_table

    settings = Settings(audit_log=str(AUDIT_LOG))
    table = open_table(str(TABLE), Settings())
    plan = plan_restore(table, table.log.latest_version - 2, settings=settings)

    def attempt(name: str, reason: str) -> None:
        request = RestoreRequest(
            plan=plan, typed_table_name=name, typed_version=str(plan.target_version), reason=reason
        )
        execute_restore(request, settings=settings)

    try:
        attempt("orderz", "a typo in the table name")
    except RestoreRefused:
        pass  # recorded in the audit log: that is the point
    attempt(plan.table_name, "the GDPR delete removed the wrong customers")


def start_app() -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` in operator mode, on a port the OS picks."""
    env = dict(
        os.environ,
        DELTA_INSPECTOR_RECENT_TABLES_FILE=str(WORKDIR / "recent.json"),
        DELTA_INSPECTOR_OPERATOR_MODE="true",
        DELTA_INSPECTOR_AUDIT_LOG=str(AUDIT_LOG),
        DELTA_INSPECTOR_SAMPLE_ROWS="4",  # the Diff's samples: the changed rows fit in the shot
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


def take_shots(page: object, url: str, out: Path) -> None:
    """Each page as a reader of the docs sees it."""
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    table = f"{url}/?table={quote(str(TABLE))}"
    main = page.locator("[data-testid=stMain]")

    page.goto(f"{table}&view=timeline")
    expect(main.locator(".js-plotly-plot").first).to_be_visible()
    time.sleep(2)  # let the chart's entry transition finish before the shot
    page.screenshot(path=str(out / "timeline.png"))

    restore_attempts()  # after the Timeline shot: the restore is dated today, the demo in 2024

    page.goto(f"{table}&view=diff&version=5")  # the MERGE: updates and inserts
    main.get_by_role("tab", name="Rows").click()
    main.get_by_role("button", name="Compare rows").click()
    changed = main.get_by_text("Changed", exact=True)
    expect(changed).to_be_visible()
    page.mouse.move(0, 0)  # no tooltip over the key columns
    # From the key columns down to the changed rows (the samples are short: SAMPLE_ROWS)
    main.get_by_text("Key columns (optional)").evaluate(
        "e => { e.style.scrollMarginTop = '70px'; e.scrollIntoView(); }"  # below the top bar
    )
    time.sleep(1)
    page.screenshot(path=str(out / "diff-rows.png"))

    page.goto(f"{table}&view=audit")
    expect(main.get_by_text(re.compile(r"\d+ of \d+ attempts shown"))).to_be_visible()
    time.sleep(1)
    page.screenshot(path=str(out / "audit.png"))


def main(out: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from inspector.demo import write_demo_table

    shutil.rmtree(WORKDIR, ignore_errors=True)
    write_demo_table(str(TABLE))
    proc, url = start_app()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(TIMEOUT)
            expect.set_options(timeout=TIMEOUT)
            take_shots(page, url, out)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(WORKDIR, ignore_errors=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "img")
