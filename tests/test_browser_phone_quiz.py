"""A quiz link on a phone (issue 25): the question is on the first screen, with no scrolling.

A class opens the teacher's quiz link on phones; the page's introduction, sentence box and settings came first, about
two screens of them, and the question and its box below. Uses the run's server and browser (tests/conftest.py)
(skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.test_browser import screenshot
from ui.lessons.catalogue import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
QUIZ_LINKS = {
    "similarity": next(lesson for lesson in LESSONS if lesson.title == "One word, two meanings: bank").quiz_query(),
    "heads": next(lesson for lesson in LESSONS if lesson.title == "It: the animal or the street? (1)").quiz_query(),
    "trainable": {"trainable_sentence": "the dog bit the man", "trainable_quiz": "true", "trainable_quiz_row": "dog"},
}


@pytest.mark.parametrize("page_name", list(QUIZ_LINKS))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_quiz_link_on_a_phone_shows_its_question_and_box_on_the_first_screen(
    server: str, browser: object, page_name: str, lang: str
) -> None:
    """The prompt ("Which word does … attend to most?"), the box to answer in and Reveal lie within the first
    844 px of a 390-px phone, without scrolling; the sentence the question is about is shown with it."""
    context = browser.new_context(**PHONE, locale="ar" if lang == "ar" else "en-US")
    page = context.new_page()
    page.goto(f"{server}/{page_name}?{urlencode({**QUIZ_LINKS[page_name], 'lang': lang}, doseq=True)}")
    box = page.locator(f"[class*='st-key-{page_name}_quiz_pick']")
    box.wait_for(timeout=90_000)
    page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=30_000)
    reveal = page.locator(f"[class*='st-key-{page_name}_quiz_reveal']")
    prompt = page.locator("[data-testid=stMarkdownContainer] strong").filter(has_text="؟" if lang == "ar" else "?")
    boxes = {"prompt": prompt.first.bounding_box(), "box": box.bounding_box(), "Reveal": reveal.bounding_box()}
    screenshot(page, f"phone-quiz-{page_name}-{lang}")
    scrolled = page.evaluate("() => document.querySelector('[data-testid=stMain]')?.scrollTop || window.scrollY")
    assert scrolled == 0
    below = {name: round(b["y"] + b["height"]) for name, b in boxes.items() if b is None or b["y"] + b["height"] > 844}
    assert below == {}, f"below the phone's first screen (844 px): {below}"
    sentence = QUIZ_LINKS[page_name][f"{page_name}_sentence"]
    assert page.get_by_text(sentence).first.bounding_box()["y"] < 844  # what the question is about
    context.close()


# A phone's browser names itself (Chrome on Android); the app draws a phone's first view in steps only for it.
PHONE_BROWSER = {
    **PHONE,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36",
}
FIRST_PAINT = "[class*='st-key-first_paint_'] img"
CHART_DRAWN = "document.querySelectorAll('.js-plotly-plot .heatmaplayer').length"
PICTURE_WATCHER = """
new MutationObserver(() => {
  const picture = document.querySelector("[class*='st-key-first_paint_'] img");
  if (!picture || window.__picture) return;
  const note = () => { window.__picture = {width: picture.naturalWidth, alt: picture.alt, charts: CHARTS}; };
  picture.complete ? note() : picture.addEventListener('load', note);
}).observe(document, {childList: true, subtree: true});
""".replace("CHARTS", CHART_DRAWN)


@pytest.mark.parametrize("page_name", ["similarity", "heads"])
def test_a_phones_first_heatmap_is_a_picture_then_the_interactive_chart(
    server: str, browser: object, page_name: str
) -> None:
    """Opened on a phone, the page's first heatmap comes as a picture (no wait for the chart code), named for a
    screen reader; then the whole page follows, the interactive chart in the picture's place."""
    context = browser.new_context(**PHONE_BROWSER, locale="en-US")
    page = context.new_page()
    lesson = {k: v for k, v in QUIZ_LINKS[page_name].items() if not k.startswith(f"{page_name}_quiz")}
    # The picture lives until the page's next run (a second on a fast machine): a watcher notes it when decoded.
    page.add_init_script(PICTURE_WATCHER)
    page.goto(f"{server}/{page_name}?{urlencode(lesson, doseq=True)}")
    page.wait_for_function("window.__picture !== undefined", timeout=90_000)
    picture = page.evaluate("window.__picture")
    assert picture["width"] > 0 and picture["alt"] and picture["charts"] == 0, picture  # before any chart
    page.wait_for_function(f'{CHART_DRAWN} >= 1 && !document.querySelector("{FIRST_PAINT}")', timeout=120_000)
    if page_name == "similarity":  # the steps after the first follow it
        page.wait_for_function(f"{CHART_DRAWN} >= 2", timeout=120_000)
    context.close()


def test_a_laptop_gets_the_interactive_chart_straight_away(server: str, browser: object) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    page = context.new_page()
    lesson = {k: v for k, v in QUIZ_LINKS["similarity"].items() if not k.startswith("similarity_quiz")}
    page.goto(f"{server}/similarity?{urlencode(lesson, doseq=True)}")
    page.wait_for_function(f"{CHART_DRAWN} >= 4", timeout=120_000)
    assert page.locator(FIRST_PAINT).count() == 0
    context.close()
