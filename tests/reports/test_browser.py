"""The report as a reader sees it: rendered in headless Chromium at 800 pixels wide, with no
console error, no broken image and no horizontal overflow. CI installs Debian's chromium
(.ci/run); elsewhere the test is skipped when no Chromium is found."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from simkit.reports.build import build_report, build_whatif_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="no Chromium on this machine (CI installs Debian's chromium)")


def _check_page(page, path: Path, width: int) -> dict:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    facts = page.evaluate("""() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        images: document.images.length,
        broken: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
                 .map(i => i.alt),
        wide: [...document.querySelectorAll('body *')]
                 .filter(e => e.getBoundingClientRect().right > document.documentElement
                              .clientWidth + 1 && !e.closest('.scroll, pre'))
                 .map(e => e.tagName + '.' + e.className).slice(0, 5),
        verdict: document.querySelector('.verdict') ? document.querySelector('.verdict')
                 .innerText : '',
    })""")
    facts["errors"] = errors
    return facts


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("CI must install chromium (see .ci/run)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.mark.parametrize("width", [800, 1280])
def test_a_report_reads_well_in_a_browser(browser, pig_runs, tmp_path, width):
    out = build_report([pig_runs["base"], pig_runs["p3"]], tmp_path / "report")
    page = browser.new_page()
    facts = _check_page(page, out / "index.html", width)
    page.close()
    assert facts["errors"] == []
    assert facts["images"] >= 6 and facts["broken"] == []
    assert facts["scroll"] <= facts["client"], facts["wide"]
    assert "Verdict" in facts["verdict"] and "players" in facts["verdict"]


def test_a_whatif_report_reads_well_in_a_browser(browser, pig_runs, tmp_path):
    out = build_whatif_report(pig_runs["base"], pig_runs["changed"], tmp_path / "whatif")
    page = browser.new_page()
    facts = _check_page(page, out / "index.html", 800)
    page.close()
    assert facts["errors"] == [] and facts["broken"] == []
    assert facts["scroll"] <= facts["client"], facts["wide"]
    assert "first-player advantage" in facts["verdict"].lower()
