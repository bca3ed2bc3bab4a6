"""Every box shows the choice the page uses, in Chromium as a student meets it: the quiz on a phone and a desktop
(their own sentence after a guess, Reveal pressed at once, a visit to another page and back), and the other boxes
that offer a sentence's words (Word order's swap, the word followed through the layers) after a new sentence.

Uses the run's server and browser (tests/conftest.py; skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.test_browser import screenshot, wait_for_rerun
from ui.lessons.catalogue import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SISTER = "My sister gave her old bike to a friend who needed it"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def _box(page: object, label: str) -> object:
    return page.locator("[data-testid='stSelectbox']").filter(has_text=label)


def _shown(page: object, label: str) -> str:
    """The choice a selectbox shows ("" while it shows its placeholder)."""
    return _box(page, label).locator("input").input_value()


def _pick(page: object, label: str, word: str) -> None:
    """Open the selectbox by its label, type the word and take the option named exactly so."""
    _box(page, label).locator("input").click()
    page.keyboard.type(word)
    page.get_by_role("option", name=word, exact=True).click()


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_a_students_own_sentence_after_a_guess_keeps_the_quiz_whole(server: str, browser: object, device: str) -> None:
    """Issue 23: the quiz link of "It: the animal or the street? (1)", a guess (animal), then the student's own
    sentence. The row box still shows it and the question asks about it; the guess the sentence lacks is gone from
    its box; Reveal says to pick first. A new guess and Reveal pressed at once, without waiting, reveal."""
    lesson = next(lesson for lesson in LESSONS if lesson.title == "It: the animal or the street? (1)")
    context = browser.new_context(**(PHONE if device == "phone" else DESKTOP), locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/{lesson.page}?{urlencode(lesson.quiz_query())}")
    page.get_by_text("The heatmaps below stay hidden until you reveal.").wait_for(timeout=90_000)
    _pick(page, "The word it attends to most", "animal")
    wait_for_rerun(page)
    page.get_by_text("About this page: its sentence and settings").click()  # a quiz folds the sentence box away
    box = page.get_by_label("Your sentence (any language; Arabic reads right to left)")
    box.fill(SISTER)
    box.press("Enter")
    page.get_by_text("Which word does “it” attend to most?").wait_for(timeout=30_000)
    wait_for_rerun(page)
    assert _shown(page, "Row word") == "it"
    assert _shown(page, "The word it attends to most") == ""  # animal is not in the sentence: the box is empty
    page.get_by_role("button", name="Reveal", exact=True).click()
    page.get_by_text("Pick the word you think it attends to most, then press Reveal.").wait_for(timeout=30_000)
    assert page.locator(".js-plotly-plot").count() == 0
    _pick(page, "The word it attends to most", "friend")
    page.get_by_role("button", name="Reveal", exact=True).click()  # at once: the first tap must count
    page.locator("[class*='st-key-heads_quiz_map'] .js-plotly-plot").wait_for(timeout=60_000)
    page.get_by_text("Outlined: row").wait_for(timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, f"quiz-own-sentence-{device}")
    context.close()


def test_a_revealed_answer_waits_with_its_guess_after_a_visit_to_another_page(server: str, browser: object) -> None:
    context = browser.new_context(**DESKTOP, locale="en-US")
    page = context.new_page()
    query = {"similarity_sentence": "the dog bit the man", "similarity_quiz": "true"}
    page.goto(f"{server}/similarity?{urlencode(query)}")
    page.get_by_text("The heatmaps below stay hidden until you reveal.").wait_for(timeout=90_000)
    _pick(page, "The word it attends to most", "man")
    page.get_by_role("button", name="Reveal", exact=True).click()
    page.locator("[class*='st-key-similarity_quiz_map'] .js-plotly-plot").wait_for(timeout=60_000)
    page.locator("[data-testid='stSidebarNav'] a", has_text="The idea").click()
    page.get_by_role("heading", name="What attention really is").wait_for(timeout=60_000)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Similarity").click()
    page.locator("[class*='st-key-similarity_quiz_map'] .js-plotly-plot").wait_for(timeout=60_000)
    assert _shown(page, "The word it attends to most") == "man"
    assert page.get_by_text("The heatmaps below stay hidden until you reveal.").count() == 0
    context.close()


def test_boxes_of_words_show_the_new_sentences_words_after_a_new_sentence(server: str, browser: object) -> None:
    """A box whose word the new sentence lacks shows its default, the word the page then uses (it kept showing
    dog and man while the page swapped cat and mat)."""
    context = browser.new_context(**DESKTOP, locale="en-US")
    page = context.new_page()
    query = {"word_order_sentence": "the dog bit the man", "word_order_how": "swapping two words"}
    page.goto(f"{server}/word_order?{urlencode(query | {'word_order_swap_a': 'dog', 'word_order_swap_b': 'man'})}")
    page.wait_for_selector(".js-plotly-plot", timeout=90_000)
    wait_for_rerun(page)
    assert (_shown(page, "Swap this word"), _shown(page, "with this one")) == ("dog", "man")
    box = page.get_by_label("Your sentence (any language; Arabic reads right to left)")
    box.fill("a cat sat on a mat")
    box.press("Enter")
    page.get_by_text("The same words, reordered: cat ↔ mat").wait_for(timeout=30_000)
    assert (_shown(page, "Swap this word"), _shown(page, "with this one")) == ("cat", "mat")
    flow = {"heads_view": "Follow a word through the layers", "heads_flow_word": "man"}
    page.goto(f"{server}/heads?{urlencode({'heads_sentence': 'the dog bit the man'} | flow)}")
    page.wait_for_selector(".js-plotly-plot", timeout=90_000)
    wait_for_rerun(page)
    assert _shown(page, "Word to follow") == "man"
    box.fill("a cat sat on a mat")
    box.press("Enter")
    page.locator(".js-plotly-plot .ytick text", has_text="mat").first.wait_for(timeout=30_000)
    wait_for_rerun(page)
    assert _shown(page, "Word to follow") == "a ·1"  # the first word, as the page draws the river for
    context.close()
