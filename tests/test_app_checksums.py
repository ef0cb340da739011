"""The log's own checksums (``.crc``) in the app (AppTest): the Health page says whether the
checksums it read match the replay and names the fields of one that does not; the Version
page says the same of its version."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from inspector.log.deltalog import DeltaLog
from tests.conftest import open_app

CDF_DV = "delta-rs/cdf-table-with-cdc-and-dvs"  # 26 versions, each with a .crc


def _miscount(root: Path, version: int) -> None:
    path = root / "_delta_log" / f"{version:020d}.crc"
    recorded = json.loads(path.read_text())
    recorded["numFiles"] += 1
    path.write_text(json.dumps(recorded))


def _texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.warning, *at.caption, *at.markdown])


def _health(root: Path, monkeypatch, tmp_path) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, operator=False, table=str(root))
    at.query_params["view"] = "health"
    at.run()
    at.button(key="health_run").click().run()
    assert not at.exception
    return at


def _version(root: Path, version: int, monkeypatch, tmp_path) -> AppTest:
    at = open_app(monkeypatch, tmp_path, timeout=60, table=str(root))
    at.query_params.update(version=str(version), view="version")
    at.run()
    assert not at.exception
    return at


def test_the_health_page_says_the_latest_checksum_matches(copy_table, monkeypatch, tmp_path):
    at = _health(copy_table(CDF_DV), monkeypatch, tmp_path)

    assert "The log's checksum (.crc) matches the replayed state" in _texts(at)


def test_the_health_page_names_the_field_a_checksum_disagrees_on(copy_table, monkeypatch, tmp_path):
    root = copy_table(CDF_DV)
    _miscount(root, DeltaLog.open(str(root)).latest_version)

    at = _health(root, monkeypatch, tmp_path)

    (warning,) = [w.value for w in at.warning if "checksum" in w.value]
    assert "Version 25" in warning and "numFiles" in warning


def test_the_version_page_shows_its_checksum(copy_table, monkeypatch, tmp_path):
    root = copy_table(CDF_DV)
    _miscount(root, 4)

    matching = _version(root, 3, monkeypatch, tmp_path)
    differing = _version(root, 4, monkeypatch, tmp_path)

    assert "Version 3's checksum file (.crc) matches its replayed state" in _texts(matching)
    (warning,) = [w.value for w in differing.warning if "checksum" in w.value]
    assert "numFiles" in warning


def test_the_version_page_of_a_version_without_a_checksum_says_so(
    copy_table, monkeypatch, tmp_path
):
    root = copy_table(CDF_DV)
    (root / "_delta_log" / f"{2:020d}.crc").unlink()

    at = _version(root, 2, monkeypatch, tmp_path)

    assert "Version 2 has no checksum file (.crc)" in _texts(at)
