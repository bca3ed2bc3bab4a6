"""WCAG 2.1 AA in Chromium (issue 25; docs/accessibility.md): axe-core's A and AA rules on every page, whole, in
English and in Arabic (an Arabic browser and ?lang=ar); <html lang dir>; the captions' contrast from their computed
styles (axe skips some Arabic-script nodes); a text alternative for every heatmap and CSV buttons with distinct
names; a visible focus on every control and two Tab stops per chart; focus on the answer after Reveal, on the
lesson's line after "Open this lesson" and on the run's progress after Start; /idea found.

Uses the run's server and browser (tests/conftest.py; skipped, or failed under REQUIRE_BROWSER=1, without Chromium);
the measuring is tools/accessibility_audit.py's, which prints the same numbers for every page.
"""

from __future__ import annotations

import contextlib
import re
from urllib.parse import urlencode

import pytest

from bench.app_server import redrawn
from tests.test_browser import screenshot, start_pasted_run, stop_run, wait_for_rerun
from tests.test_live_training import LINES as ANIMAL_LINES
from tools.accessibility_audit import (
    CAPTION_CONTRAST_JS,
    PAGES,
    SERIOUS,
    as_tall_as_the_page,
    context_options,
    run_axe,
    tab_stops_per_chart,
    tab_walk,
    url,
    wait_for_page,
)
from ui.lessons.catalogue import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open(browser: object, server: str, path: str, language: str = "en") -> tuple[object, object]:
    context = browser.new_context(**context_options(language))
    page = context.new_page()
    page.goto(url(server, path, language))
    wait_for_page(page)
    return context, page


def test_idea_has_its_own_address_and_the_root_still_opens_it(server: str, browser: object) -> None:
    """/idea said "Page not found" (the default page is served at /, and Streamlit reserved its name)."""
    for path in ("idea", ""):
        context, page = _open(browser, server, path)
        assert page.get_by_text("Page not found").count() == 0, path
        assert page.get_by_role("heading", name="What attention really is").count() == 1, path
        context.close()


def test_every_page_of_the_menu_is_audited(server: str, browser: object) -> None:
    context, page = _open(browser, server, "lessons")
    links = page.locator("[data-testid='stSidebarNav'] a").evaluate_all("links => links.map(a => a.pathname)")
    assert [link.strip("/") for link in links] == list(PAGES)
    context.close()


@pytest.mark.parametrize("language", ["en", "ar"])
@pytest.mark.parametrize("path", PAGES)
def test_no_serious_axe_violation_on_the_whole_page(server: str, browser: object, path: str, language: str) -> None:
    """axe-core's WCAG 2.1 A/AA rules, the window as tall as the page (axe checks only what is in Streamlit's scroll
    area); the page's language and direction on <html>; every caption at 4.5:1 or more, computed here."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context, page = _open(browser, server, path, language)
    with contextlib.suppress(PlaywrightTimeout):  # the app's frame sets them as the page is drawn; today's did not
        page.wait_for_function("() => document.documentElement.dir !== ''", timeout=15_000)
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == (
        ["ar", "rtl"] if language == "ar" else ["en", "ltr"]
    )
    as_tall_as_the_page(page)
    found = run_axe(page)["violations"]
    serious = {v["id"]: [n["target"] for n in v["nodes"]] for v in found if v["impact"] in SERIOUS}
    captions = page.evaluate(CAPTION_CONTRAST_JS)
    context.close()
    assert serious == {}
    assert captions, "every page has captions"
    assert [c for c in captions if c["ratio"] < 4.5] == []


def test_every_heatmap_is_described_in_the_readers_language_and_each_csv_button_has_its_own_name(
    server: str, browser: object
) -> None:
    context, page = _open(browser, server, "similarity", "ar")
    n_heatmaps = page.locator(".js-plotly-plot").count()  # (Similarity draws four heatmaps and nothing else)
    described = page.locator(".a11y-only").all_text_contents()
    assert len(described) == n_heatmaps == 4
    assert all("أكبر قيمة في كل صف" in text or "أبعد قيمة عن الصفر" in text for text in described), described
    assert all(word in described[1] for word in ["The", "cat", "mat"])  # the sentence's words, row by row
    names = [button.inner_text().strip() for button in page.get_by_role("button", name=re.compile("CSV")).all()]
    assert len(names) == 4 and len(set(names)) == 4 and all(name.startswith("ملف CSV: ") for name in names), names
    page.get_by_text("اعرضها جدولًا").first.click()  # "Show as table": the matrix, one row per word
    page.locator("[data-testid='stTable'] table").first.wait_for(timeout=30_000)
    rows = page.locator("[data-testid='stTable'] tbody tr").count()
    assert rows == 6
    screenshot(page, "accessibility-table-arabic")
    context.close()


@pytest.mark.parametrize("path", ["similarity", "trainable"])
def test_focus_is_visible_on_every_control_and_a_chart_takes_two_tab_stops(
    server: str, browser: object, path: str
) -> None:
    """Every Tab stop (sidebar links, radios, switches, pills, selects, sliders, buttons, the charts' toolbars)
    shows a ring of 3:1 or more against the page behind it; Plotly's toolbar keeps PNG and reset (it had 8)."""
    context, page = _open(browser, server, path)
    stops = tab_walk(page)
    context.close()
    assert len(stops) > 30
    assert [s for s in stops if s["contrast"] < 3] == []
    per_chart = tab_stops_per_chart(stops)
    assert per_chart and set(per_chart.values()) == {2}, per_chart


def test_focus_moves_to_the_answer_after_reveal_and_stays_on_a_new_guess(server: str, browser: object) -> None:
    lesson = next(lesson for lesson in LESSONS if lesson.quiz_query() and lesson.page == "similarity")
    context = browser.new_context(**context_options("en"))
    page = context.new_page()
    page.goto(f"{server}/{lesson.page}?{urlencode(lesson.quiz_query(), doseq=True)}")
    page.get_by_text("The heatmaps below stay hidden until you reveal.").wait_for(timeout=90_000)
    box = page.locator("[data-testid='stSelectbox']").filter(has_text="The word it attends to most").locator("input")
    box.click()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait_for_rerun(page)
    page.get_by_role("button", name="Reveal", exact=True).focus()
    page.keyboard.press("Enter")
    page.locator("[class*='st-key-similarity_quiz_map'] .js-plotly-plot").wait_for(timeout=60_000)
    page.wait_for_function("() => document.activeElement && document.activeElement !== document.body", timeout=10_000)
    focused = page.evaluate(
        "() => [document.activeElement.closest('[data-testid=\"stMain\"]') !== null, document.activeElement.innerText]"
    )
    assert focused[0] and re.search(r"Lesson|Hit|Close|Miss|attends", focused[1]), focused
    page.keyboard.press("Tab")  # the keyboard goes on from the answer: the next control after it, not the page's top
    after = page.evaluate("() => document.activeElement.closest('[data-testid=\"stSidebar\"]') === null")
    assert after
    context.close()


def test_focus_moves_to_the_lessons_line_when_a_lesson_is_opened(server: str, browser: object) -> None:
    context, page = _open(browser, server, "lessons")
    page.get_by_role("link", name=re.compile("Open this lesson")).first.click()
    page.get_by_text("Look at:").first.wait_for(timeout=90_000)
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.closest('[data-testid=\"stAlertContainer\"]')",
        timeout=15_000,
    )
    assert "Look at:" in page.evaluate("() => document.activeElement.innerText")
    context.close()


def test_focus_moves_to_the_runs_progress_after_start_and_stays_there(server: str, browser: object) -> None:
    context = browser.new_context(**context_options("en"))
    page = context.new_page()
    page.goto(f"{server}/train")
    start_pasted_run(page, "\n".join(ANIMAL_LINES), 1000)  # long enough to outlast the wait below
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'H3'", timeout=30_000)
    redrawn(page, runs=3)  # the live view reruns every second: focus must not move again
    assert page.evaluate("() => document.activeElement.innerText").startswith("Training: ")
    stop_run(page)
    context.close()
