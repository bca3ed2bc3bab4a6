"""The app in Chromium as a class meets it: an Arabic-locale browser, presentation mode on a projector.

Uses the run's server and browser (tests/conftest.py; skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.test_browser import goto, screenshot, wait_for_charts

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARABIC_BLANK = "ذهب الولد إلى [MASK] في الصباح"


def test_a_slider_in_an_arabic_locale_browser_sets_the_value_its_label_shows(server: str, browser: object) -> None:
    """react-aria mirrors a slider's thumb in a right-to-left locale; clicking next to the "10" label must set 10."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="ar")
    page = context.new_page()
    page.goto(f"{server}/fill_blank?fill_blank_sentence={urllib.parse.quote(ARABIC_BLANK)}")
    wait_for_charts(page)
    ten = page.locator("[data-testid=stSliderTickBar]").first.locator("p", has_text="10").bounding_box()
    track = page.locator("[data-testid=stSlider] [data-orientation=horizontal] > div").first.bounding_box()
    page.mouse.click(ten["x"] + ten["width"] / 2, track["y"] + track["height"] / 2)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stSliderThumbValue]').innerText.trim() === '10'", timeout=15_000
    )
    context.close()


def test_the_character_counter_sits_below_the_sentence_not_over_its_first_arabic_word(
    server: str, browser: object
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{server}/similarity?similarity_sentence={urllib.parse.quote('ذهب الولد إلى المدرسة في الصباح')}")
    wait_for_charts(page)
    field = page.locator("[data-testid=stTextInputField]").first
    field.click()
    page.keyboard.press("End")
    page.keyboard.type(" ")
    counter = page.locator("[data-testid=InputInstructions]").first
    counter.wait_for(timeout=10_000)
    field_box, counter_box = field.bounding_box(), counter.bounding_box()
    assert counter_box["y"] >= field_box["y"] + field_box["height"] - 1, (field_box, counter_box)
    page.close()


def test_presentation_mode_keeps_every_label_whole_and_shows_no_developer_toolbar(server: str, browser: object) -> None:
    """Page names in the sidebar and the W switches of Multi-head are whole at 1400 × 900 (no "train…"), and
    Streamlit's Deploy button is not there to distract a class."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    goto(page, f"{server}/heads?presentation=true")
    wait_for_charts(page)
    screenshot(page, "presentation-heads")
    cut = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=stSidebarNavLink] p, [data-testid=stWidgetLabel] p')]
                 .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"""
    )
    assert cut == [], f"labels cut short: {cut}"
    assert page.get_by_text("trained W1", exact=True).is_visible()
    assert page.locator("[data-testid=stAppDeployButton]").count() == 0
    page.close()


def test_presentation_mode_draws_tick_labels_and_cell_numbers_readable_from_the_back(
    server: str, browser: object
) -> None:
    """At least 18 px: the Similarity heatmap's word labels and numbers, and the Multi-head grid's labels."""
    page = browser.new_page(viewport={"width": 1400, "height": 2400})
    goto(page, f"{server}/similarity?presentation=true")
    wait_for_charts(page)
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => ({
                 ticks: [...p.querySelectorAll('.ytick text')].map(t => parseFloat(getComputedStyle(t).fontSize)),
                 numbers: [...p.querySelectorAll('.heatmaplayer text')]
                            .map(t => parseFloat(getComputedStyle(t).fontSize))}))"""
    )
    word_charts = [s for s in sizes if s["numbers"]]
    assert word_charts, "no heatmap with numbers in its cells"
    assert min(min(s["ticks"]) for s in sizes if s["ticks"]) >= 18
    assert min(min(s["numbers"]) for s in word_charts) >= 18
    page.close()
