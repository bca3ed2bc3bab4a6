"""A quiz link on a phone (issue 25): the question is on the first screen, with no scrolling.

A class opens the teacher's quiz link on phones; the page's introduction, sentence box and settings came first, about
two screens of them, and the question and its box below. Uses the server and browser of tests/test_browser.py
(skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests import test_browser
from tests.test_browser import screenshot
from ui.examples import LESSONS

server, browser = test_browser.server, test_browser.browser  # the same pytest fixtures (one server per module)

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
