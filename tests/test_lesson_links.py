"""Issue 23, point 7: every lesson link carries each parameter once, in the English and the Arabic interface, with
presentation mode on (a page link opened on ?presentation=true&…&presentation=true)."""

from __future__ import annotations

import re
import urllib.parse

import pytest

from tests import test_browser
from tests.conftest import assert_clean, open_framed_link
from tests.test_browser import wait_for_charts
from ui.examples import LESSONS
from ui.links import CARRIED_ON_PAGE_CHANGE

server, browser = test_browser.server, test_browser.browser  # the same pytest fixtures (one server per module)


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


def what_a_click_opens(link_query: str, current_url: dict[str, str]) -> str:
    """The query a click on st.page_link opens: the link's own, then (Streamlit's frontend on a page change) every
    parameter of the current URL that a widget binds, with nothing removed; ui/links.CARRIED_ON_PAGE_CHANGE names
    those the Lessons page binds (the browser test below watches the real frontend do it)."""
    carried = {key: value for key, value in current_url.items() if key in CARRIED_ON_PAGE_CHANGE}
    return "&".join(part for part in (link_query, urllib.parse.urlencode(carried)) if part)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_lesson_link_carries_each_parameter_once_in_presentation_mode(lang: str) -> None:
    at = open_framed_link("lessons", lang=lang, presentation="true")
    assert_clean(at)
    assert at.sidebar.toggle(key="presentation").value is True
    url = {"lang": lang, "presentation": "true"}
    opened = [what_a_click_opens(link.proto.query_string, url) for link in at.get("page_link")]
    links = [m for text in (md.value for md in at.markdown) for m in re.findall(r"\]\(([a-z_]+\?[^)]*)\)", text)]
    shared = [link.split("?", 1)[1] for link in links]
    quizzes = sum(lesson.quiz_query() is not None for lesson in LESSONS)
    assert len(opened) == len(LESSONS) and len(shared) == len(LESSONS) + quizzes
    for query in opened + shared:
        assert_each_parameter_once(query)
        named = dict(_parameters(query))
        assert named["presentation"] == "true"  # the projector's view, once
        assert named.get("lang") == (lang if lang != "en" else None)  # the page's language (English: the default)


@pytest.mark.browser
@pytest.mark.slow
def test_opening_a_lesson_in_presentation_mode_names_each_parameter_once(server: str, browser: object) -> None:
    """In Chromium, at a projector's 1280 × 720, in the Arabic interface: the address bar after a click on "Open this
    lesson" (a page link, which Streamlit's frontend extends) and a shared link both name presentation once."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/lessons?presentation=true&lang=ar")
    page.wait_for_selector("[data-testid=stPageLink] a", timeout=90_000)
    first = next(lesson for lesson in LESSONS if lesson.page == "heads")
    page.locator(f"[data-testid=stPageLink] a[href*='lesson={urllib.parse.quote_plus(first.slug)}&']").click()
    page.wait_for_url(re.compile(r"/heads\?"), timeout=60_000)
    wait_for_charts(page)
    query = urllib.parse.urlsplit(page.url).query
    assert_each_parameter_once(query)
    assert dict(_parameters(query))["lesson"] == first.slug and "presentation=true" in query
    page.close()
