"""The guided tour walked in Chromium as a newcomer walks it (issue 35): from the home page's "Take the tour", each
step's own action on the real control, to the end; on a phone in an Arabic-locale browser too. The last step's
action (Rank every head) runs in a page fragment, which only a real browser reruns alone. Uses the run's server and
browser (tests/conftest.py; skipped, or failed under REQUIRE_BROWSER=1, without Chromium)."""

from __future__ import annotations

import pytest

from tools.tour_walk import walk_tour
from ui.tour.guide import STEPS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(("phone", "lang"), [(False, "en"), (True, "ar")], ids=["desktop-en", "phone-ar"])
def test_a_newcomer_walks_the_whole_tour_and_no_step_is_stuck(
    server: str, browser: object, phone: bool, lang: str
) -> None:
    walked = walk_tour(browser, server, phone=phone, lang=lang)
    assert [step.name for step in walked] == [step.name for step in STEPS]  # each action opened the next step
    assert all(step.words > 20 for step in walked)  # each card said its step, whole
