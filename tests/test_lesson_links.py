"""Issue 23, point 7: every lesson link carries each parameter once, in the English and the Arabic interface.
Issue 25, point 2: presentation mode is the projector's setting, never a link's: no link names it, a link that
names it (shared before) does not turn it on, and it stays on while the teacher moves between pages."""

from __future__ import annotations

import re
import urllib.parse

import pytest

from tests.conftest import APP, assert_clean, open_framed_link
from tests.test_browser import wait_for_charts
from ui.lessons.catalogue import LESSONS


def _parameters(query: str) -> list[tuple[str, str]]:
    return urllib.parse.parse_qsl(query, keep_blank_values=True)


def assert_each_parameter_once(query: str) -> None:
    """Each parameter once; a multiselect's (fill_blank_knock_out=L1 H1&fill_blank_knock_out=L1 H2) once per value,
    as its lesson lists it."""
    pairs = _parameters(query)
    assert len(set(pairs)) == len(pairs), query  # no parameter and value twice
    lists = {key for lesson in LESSONS for key, value in lesson.settings.items() if isinstance(value, list)}
    names = [key for key, _ in pairs if key not in lists]
    assert len(set(names)) == len(names), query


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_no_lesson_link_names_presentation_mode_and_each_names_its_parameters_once(lang: str) -> None:
    """An old link that names presentation mode opens without it and loses the parameter; with the switch turned on
    by hand, every lesson link (a page link and the links to share) still leaves it out."""
    at = open_framed_link("lessons", lang=lang, presentation="true")
    assert_clean(at)
    assert at.sidebar.toggle(key="presentation").value is False  # a link does not turn it on
    assert "presentation" not in at.query_params  # and the address bar no longer names it
    at.sidebar.toggle(key="presentation").set_value(True).run()
    opened = [link.proto.query_string for link in at.get("page_link")]
    links = [m for text in (md.value for md in at.markdown) for m in re.findall(r"\]\(([a-z_]+\?[^)]*)\)", text)]
    shared = [link.split("?", 1)[1] for link in links]
    quizzes = sum(lesson.quiz_query() is not None for lesson in LESSONS)
    assert len(opened) == len(LESSONS) and len(shared) == len(LESSONS) + quizzes
    for query in opened + shared:
        assert_each_parameter_once(query)
        named = dict(_parameters(query))
        assert "presentation" not in named
        assert named.get("lang") == (lang if lang != "en" else None)  # the page's language (English: the default)


def test_presentation_mode_stays_on_from_page_to_page_without_entering_the_url() -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.toggle(key="presentation").set_value(True).run()
    assert "presentation" not in at.query_params
    for page in ("similarity", "lessons", "heads"):
        at.switch_page(f"pages/{page}.py").run()
        assert_clean(at)
        assert at.sidebar.toggle(key="presentation").value is True, page
        assert "presentation" not in at.query_params, page


@pytest.mark.browser
@pytest.mark.slow
def test_presentation_mode_stays_on_when_a_lesson_opens_and_no_address_names_it(server: str, browser: object) -> None:
    """In Chromium, at a projector's 1280 × 720, in the Arabic interface: an old link's presentation=true is dropped
    from the address bar and leaves the type at its normal size; the switch turned on enlarges it; a click on "Open
    this lesson" (a page link) opens the lesson with the type still enlarged, each parameter once, and no
    presentation in the address bar."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/lessons?presentation=true&lang=ar")
    page.wait_for_selector("[data-testid=stPageLink] a", timeout=90_000)
    page.wait_for_url(lambda url: "presentation" not in url, timeout=30_000)
    root_px = "() => parseFloat(getComputedStyle(document.documentElement).fontSize)"
    assert page.evaluate(root_px) < 20  # the link did not turn presentation mode on
    page.locator("[data-testid=stSidebar] [data-testid=stCheckbox] label").filter(has_text="وضع العرض").click()
    page.wait_for_function(f"({root_px})() >= 20", timeout=30_000)
    first = next(lesson for lesson in LESSONS if lesson.page == "heads")
    page.locator(f"[data-testid=stPageLink] a[href*='lesson={urllib.parse.quote_plus(first.slug)}&']").click()
    page.wait_for_url(re.compile(r"/heads\?"), timeout=60_000)
    wait_for_charts(page)
    query = urllib.parse.urlsplit(page.url).query
    assert_each_parameter_once(query)
    assert dict(_parameters(query))["lesson"] == first.slug and "presentation" not in query
    assert page.evaluate(root_px) >= 20  # still on
    page.close()
