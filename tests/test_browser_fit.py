"""Figures that fit the screen they are drawn on, measured in Chromium (issue 25): on the pages the issue names, no
tick label, panel title or cell number overlaps another, on a 390 × 844 phone, a 1280 × 720 projector in
presentation mode and a 1400 × 900 desktop, in English and in Arabic. The boxes are Chromium's own (SVG bounding
boxes, turned as the text is turned), counted by bench/figure_overlaps.py, which prints the same counts.

Uses the server and browser of tests/test_browser.py (skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

import pytest

from bench.figure_overlaps import SIZES, WALKS, Size, Walk, close_page, open_page, overlaps
from tests import test_browser

server, browser = test_browser.server, test_browser.browser  # the same pytest fixtures (one server per module)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _overlapping(browser: object, server: str, walk: Walk, size: Size) -> dict[str, list[object]]:
    """{"en: chart key": its overlapping pairs, …} for the walk's page in both languages."""
    found: dict[str, list[object]] = {}
    for language in ("en", "ar"):
        page = open_page(browser, server, walk, size, language)
        try:
            charts = overlaps(page)
            assert charts, f"{walk.name}: no chart drawn"
            found |= {f"{language}: {chart['key']}": chart["pairs"][:5] for chart in charts if chart["pairs"]}
        finally:
            close_page(page, walk)
    return found


@pytest.mark.parametrize("walk", WALKS, ids=[walk.name for walk in WALKS])
def test_nothing_overlaps_on_a_phone(server: str, browser: object, walk: Walk) -> None:
    assert _overlapping(browser, server, walk, SIZES[0]) == {}


@pytest.mark.parametrize("walk", WALKS, ids=[walk.name for walk in WALKS])
def test_nothing_overlaps_on_a_projector_in_presentation_mode(server: str, browser: object, walk: Walk) -> None:
    assert _overlapping(browser, server, walk, SIZES[1]) == {}


@pytest.mark.parametrize("walk", WALKS, ids=[walk.name for walk in WALKS])
def test_nothing_overlaps_on_a_desktop(server: str, browser: object, walk: Walk) -> None:
    assert _overlapping(browser, server, walk, SIZES[2]) == {}
