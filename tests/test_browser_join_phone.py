"""A student's phone finds the Join form uncovered (issue 33): the sidebar's menu, opened on a 390 × 844 phone, closes
when a page is picked in it (another page, or the Join page it is on) and when the page beside it is tapped, so the
Join form is the first thing under the student's thumb.

Streamlit closes its menu after a pick only when the browser's user agent names a phone; a phone browser asking for
the desktop site, a tablet, or a narrow window does not, and the menu (300 px of 390) stayed over the form. Both
kinds of browser are tried here. Uses the run's server and browser (tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.app_server import settle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Mobile "
    "Safari/537.36"
)
# The sidebar's right edge on the screen: 0 or less when it is closed (it slides off to the left)
SIDEBAR_RIGHT = "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().right"
# Whether the Join button is what a tap at its centre reaches (nothing lies over it)
JOIN_ON_TOP = """() => {
  const button = [...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'Join');
  if (!button) return false;
  const r = button.getBoundingClientRect();
  const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return button.contains(hit);
}"""


@pytest.fixture(params=["desktop-site user agent", "phone user agent"])
def phone(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    extra = {"user_agent": PHONE_UA} if request.param == "phone user agent" else {}
    context = browser.new_context(  # type: ignore[attr-defined]
        viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True, **extra
    )
    yield context.new_page()
    context.close()


def _open_menu(page: object, server: str, path: str) -> None:
    page.goto(server + path)  # type: ignore[attr-defined]
    opener = page.locator("[data-testid=stExpandSidebarButton]")  # type: ignore[attr-defined]
    opener.wait_for(timeout=90_000)
    page.get_by_role("heading").first.wait_for(timeout=90_000)  # type: ignore[attr-defined]
    settle(page)  # the first paint settled
    opener.tap()
    page.wait_for_function(f"() => ({SIDEBAR_RIGHT})() >= 290", timeout=10_000)  # type: ignore[attr-defined]


def _closed_over_join(page: object) -> None:
    page.get_by_role("button", name="Join").wait_for(timeout=90_000)  # type: ignore[attr-defined]
    page.wait_for_function(f"() => ({SIDEBAR_RIGHT})() <= 0", timeout=5_000)  # type: ignore[attr-defined]
    page.wait_for_function(JOIN_ON_TOP, timeout=5_000)  # type: ignore[attr-defined]


def test_picking_join_in_the_phone_menu_closes_it_over_the_form(phone: object, server: str) -> None:
    _open_menu(phone, server, "/")
    phone.locator("[data-testid=stSidebarNavLink]", has_text="Join a live class").tap()  # type: ignore[attr-defined]
    phone.wait_for_url("**/join**", timeout=30_000)  # type: ignore[attr-defined]
    _closed_over_join(phone)


def test_picking_the_page_it_is_on_closes_the_menu(phone: object, server: str) -> None:
    _open_menu(phone, server, "/join?code=ACDEF")
    phone.locator("[data-testid=stSidebarNavLink]", has_text="Join a live class").tap()  # type: ignore[attr-defined]
    _closed_over_join(phone)
    assert phone.get_by_label("Class code").input_value() == "ACDEF"  # type: ignore[attr-defined]


def test_tapping_beside_the_menu_closes_it(phone: object, server: str) -> None:
    _open_menu(phone, server, "/join?code=ACDEF")
    phone.touchscreen.tap(350, 300)  # type: ignore[attr-defined]  # the page beside the menu's 300 px
    _closed_over_join(phone)
