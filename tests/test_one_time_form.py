"""One time form in text and ISO 8601 in JSON, in every command's output.

A moment is shown to people as ``2026-11-24 10:39:41.191 UTC`` (``format_time``) and
given to scripts as ``2026-11-24T10:39:41.191Z``. Before, ``detail`` and ``audit`` printed
ISO times in their text while ``history`` printed the text form. This scans every
log-only command's text and JSON on a copied deletion-vector table, a copied MERGE and
the demo table for any other form of a moment (the Spark commands are scanned in
``tests/test_one_truth_spark.py``); and every page of the app (AppTest) on the same tables.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from inspector.demo import write_demo_table
from tests.conftest import copy_corpus_table, run_main

# Anything that looks like a moment: a date and a time of day, with whatever follows.
MOMENT = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC| ?GMT)?"
)
TEXT_FORM = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC")
ISO_FORM = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z")
# Copied verbatim from the log: what the writer recorded, in its own form.
WRITERS_OWN = {"operationParameters", "operationMetrics", "userMetadata", "tags"}

TABLES = ["delta-spark/table-with-dv-small", "delta-golden/basic-with-inserts-merge"]


def _commands(table: str, latest: int, replica: str) -> list[list[str]]:
    return [
        ["history", table],
        ["history", table, "--limit", "2"],
        ["detail", table],
        ["detail", table, "--whole-log"],
        ["files", table, "--version", str(latest)],
        ["diff", table, "--from", "0", "--to", str(latest)],
        ["insights", table],
        ["check", table, "--all-versions"],
        ["vacuum-plan", table],
        ["replica", table, replica],
        ["restore", table, "--to-version", "0", "--dry-run"],
        ["restore", table, "--to-version", "99", "--dry-run"],
        ["audit", table],
    ]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> str:
    return write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders"))


def _tables(corpus_copy: Path, demo: str) -> list[str]:
    return [demo, *(str(copy_corpus_table(t, corpus_copy / t.replace("/", "_"))) for t in TABLES)]


def _text_moments(text: str) -> list[str]:
    return [m.group(0) for m in MOMENT.finditer(text)]


def _json_strings(value: Any, key: str = "") -> list[tuple[str, str]]:
    """Every string in a JSON document with the key it is under, skipping the writer's own."""
    if key in WRITERS_OWN:
        return []
    if isinstance(value, str):
        return [(key, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _json_strings(v, k)]
    if isinstance(value, list):
        return [s for v in value for s in _json_strings(v, key)]
    return []


def test_every_log_command_shows_a_moment_in_one_text_form_and_iso_in_json(
    demo, tmp_path, capsys, audit
):
    seen_text = seen_json = 0
    for table in _tables(tmp_path, demo):
        code, out, _ = run_main(capsys, "history", table, "--limit", "1", "--json")
        latest = json.loads(out)[0]["version"]
        replica = tmp_path / f"replica-{Path(table).name}"
        shutil.copytree(table, replica)
        for args in _commands(table, latest, str(replica)):
            code, text, err = run_main(capsys, *args)
            assert code in (0, 3, 4), (args, err)  # refusals and damage are outputs too
            for moment in _text_moments(text + err):
                assert TEXT_FORM.fullmatch(moment), (args, moment)
                seen_text += 1
            _, out, _ = run_main(capsys, *args, "--json")
            for key, value in _json_strings(json.loads(out)):
                for moment in _text_moments(value):
                    # A message meant for people, inside JSON, uses the text form.
                    assert ISO_FORM.fullmatch(moment) or TEXT_FORM.fullmatch(moment), (
                        args,
                        key,
                        moment,
                    )
                    if moment == value:  # a value that is a moment is ISO 8601
                        assert ISO_FORM.fullmatch(value), (args, key, value)
                        seen_json += 1
    assert seen_text > 30 and seen_json > 30  # the scan saw the times it is about


def _shown(at: Any) -> list[str]:
    """Every text a page shows: its elements' values and labels, and the text cells of its
    tables (a datetime column is formatted by the browser with ``TIME_FORMAT``: the UTC
    text form)."""
    texts = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error",
             "success", "subheader", "code", "text") for e in getattr(at, kind)]  # fmt: skip
    texts += [f"{m.label} {m.value}" for m in at.metric]
    texts += [str(e.label) for e in [*at.expander, *at.selectbox, *at.text_input]]
    texts += [str(o) for box in at.selectbox for o in box.options]
    for table in at.dataframe:
        frame = table.value
        for column in frame.columns:
            if frame[column].dtype == object:
                texts += [str(v) for v in frame[column].dropna()]
    return texts


@pytest.mark.parametrize("table", ["delta-spark/table-with-dv-small", "copied MERGE"])
def test_every_page_shows_a_moment_in_the_one_text_form(table, corpus, monkeypatch, tmp_path):
    from tests.conftest import run_app
    from ui.registry import PAGES

    if table == "copied MERGE":
        root = str(copy_corpus_table("delta-golden/basic-with-inserts-merge", tmp_path / "t"))
    else:
        root = str(corpus / table)
    others = {}
    for page in PAGES:
        at = run_app(monkeypatch, tmp_path, operator=True, errors_shown=True, table=root,
                     view=page.key, version="1")  # fmt: skip
        for text in _shown(at):
            found = [m for m in MOMENT.findall(text) if not TEXT_FORM.fullmatch(m)]
            if found:
                others.setdefault(page.key, []).append(text[:200])

    assert others == {}
