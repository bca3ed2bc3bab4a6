"""The app in a real browser (Debian's Chromium driven by Playwright): what a user actually sees.

Skips, saying why, when Chromium or Playwright is missing; `.ci/run` installs both and sets REQUIRE_BROWSER=1,
which turns a skip into a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from attention_core.figures import UNKNOWN_MARK

ROOT = Path(__file__).parents[1]
OUTPUT = ROOT / "test-output" / "browser"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]  # fmt: skip
ARABIC = "ذهب الطالب إلى المدرسة"

pytestmark = pytest.mark.browser


def _missing_browser() -> str | None:
    if not shutil.which("chromium"):
        return "Chromium is not installed (apt-get install chromium fonts-noto-core)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -r requirements-dev.txt)"
    return None


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    reason = _missing_browser()
    if reason:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", "--server.address=127.0.0.1",
         f"--server.port={port}", "--browser.gatherUsageStats=false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(base + "/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.25)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True, args=FLAGS)
        yield chromium
        chromium.close()


def tick_labels(page: object, axis: str, chart: int) -> list[tuple[float, str]]:
    """(x position on screen, text) of the tick labels of one Plotly chart, sorted left to right; the mark of
    words outside the trained model's vocabulary is dropped."""
    texts = page.locator(".js-plotly-plot").nth(chart).locator(f".{axis}tick text")
    return sorted((t.bounding_box()["x"], t.text_content().removesuffix(UNKNOWN_MARK)) for t in texts.all())


def wait_for_charts(page: object) -> None:
    page.wait_for_selector(".js-plotly-plot", timeout=90_000)
    page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=30_000)
    time.sleep(1.0)


def type_sentence(page: object, text: str) -> None:
    box = page.get_by_label("Your sentence (any language; Arabic reads right to left)")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(
        "t => [...document.querySelectorAll('.js-plotly-plot .ytick text')].some(e => e.textContent === t)",
        arg=text.split()[0], timeout=30_000,
    )  # fmt: skip
    wait_for_charts(page)


@pytest.mark.parametrize("path", ["trainable", "similarity", ""])
def test_page_opened_from_its_own_link_is_framed_by_the_app(server: str, browser: object, path: str) -> None:
    """A fresh server's first visit straight to a page URL still gets the app's navigation (see ui/navigation)."""
    page = browser.new_page(viewport={"width": 1400, "height": 2400})
    page.goto(f"{server}/{path}")
    wait_for_charts(page)
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert "Trainable attention" in nav and "app" not in nav.split()
    assert page.get_by_text("Page not found").count() == 0
    if path:  # the first thing typed on a fresh server's first page must stick
        type_sentence(page, ARABIC)
        assert sorted(text for _, text in tick_labels(page, "y", 0)) == sorted(ARABIC.split())
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()


@pytest.mark.parametrize("path", ["similarity", "trainable"])
def test_arabic_sentence_reads_right_to_left(server: str, browser: object, path: str) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 3000})
    page.goto(f"{server}/{path}")
    wait_for_charts(page)
    type_sentence(page, ARABIC)
    words = ARABIC.split()
    chart = 1 if path == "similarity" else 0  # the first word × word heatmap of the page
    columns = [text for _, text in tick_labels(page, "x", chart)]
    assert columns == words[::-1], "the first word must be the right-most column"
    if path == "trainable":
        cells_before = page.locator(".js-plotly-plot").nth(0).locator(".heatmap-text, text").all_text_contents()
        page.get_by_text("W1 (query)", exact=True).click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.katex-mathml annotation')]"
            ".some(a => a.textContent.includes('(VI)'))",
            timeout=30_000,
        )
        wait_for_charts(page)
        assert [text for _, text in tick_labels(page, "x", 0)] == words[::-1]
        cells_after = page.locator(".js-plotly-plot").nth(0).locator(".heatmap-text, text").all_text_contents()
        assert cells_after != cells_before, "switching W1 to the identity must change the scores"
    assert page.locator("[data-testid='stException']").count() == 0
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{path}-arabic.png"), full_page=True)
    page.close()


def test_english_sentence_reads_left_to_right(server: str, browser: object) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 3000})
    page.goto(f"{server}/similarity")
    wait_for_charts(page)
    type_sentence(page, "Students read the book")
    assert [text for _, text in tick_labels(page, "x", 1)] == ["Students", "read", "the", "book"]
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "similarity-english.png"), full_page=True)
    page.close()


def test_the_url_carries_the_sentence_and_toggles(server: str, browser: object) -> None:
    """A teacher's link reopens the same view: sentence and toggles live in the URL."""
    page = browser.new_page(viewport={"width": 1400, "height": 2400})
    page.goto(f"{server}/trainable")
    wait_for_charts(page)
    type_sentence(page, ARABIC)
    page.get_by_text("W1 (query)", exact=True).click()
    page.wait_for_function("() => location.search.includes('trainable_W1')", timeout=30_000)
    link = page.url
    assert "trainable_sentence=" in link
    page.close()
    shared = browser.new_page(viewport={"width": 1400, "height": 2400})
    shared.goto(link)
    wait_for_charts(shared)
    assert [text for _, text in tick_labels(shared, "x", 0)] == ARABIC.split()[::-1]
    annotations = shared.locator(".katex-mathml annotation").all_text_contents()
    assert any("(VI)" in a for a in annotations), "W1 must reopen switched off"
    shared.close()
