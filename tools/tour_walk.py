"""The guided tour walked as a newcomer walks it, in headless Chromium: the home page's "Take the tour", then each
step's own action on the real control (typed, clicked, a slider moved with the keyboard), waiting each time for the
next step's card. Prints, per step, how long the app took to open the next step and how long its card takes to read
(its words at 200 a minute), and the totals: the tour's length for a newcomer is the sum of both.

    .venv/bin/python -m tools.tour_walk                      # desktop (1280 × 800) and phone (390 × 844), English
    .venv/bin/python -m tools.tour_walk --lang ar --phone    # a phone in an Arabic-locale browser

tests/test_browser_tour.py walks it the same way (walk_tour) and asserts that no step is stuck.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attention_core.figures.screen import PHONE_PX
from bench.app_server import settle
from ui.tour.guide import STEPS

SENTENCES = {"en": "the dog chased the cat in the garden", "ar": "ذهب الطالب إلى المدرسة في الصباح"}
READING_WORDS_PER_MINUTE = 200
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
SIDEBAR_RIGHT = "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().right"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@dataclass(frozen=True)
class StepWalked:
    name: str
    seconds: float  # from the action to the next step's card (or the end's)
    words: int  # the card's words, as read
    tries: int = 1  # 2: the first action was lost and done again

    @property
    def reading_seconds(self) -> float:
        return self.words / READING_WORDS_PER_MINUTE * 60


def _on_a_phone(page: Any) -> bool:
    """A phone's narrow window (the app's own measure of one): its sidebar is closed, its select boxes open with a
    tap."""
    return page.viewport_size["width"] < PHONE_PX


def _in_sidebar(page: Any, selector: str) -> Any:
    """A control in the sidebar: on a phone the sidebar is closed (off the screen), so it is opened first."""
    if _on_a_phone(page):
        page.locator("[data-testid='stExpandSidebarButton']").first.tap()
        page.wait_for_function(f"() => ({SIDEBAR_RIGHT})() >= 290", timeout=10_000)
    return page.locator(selector)


def _close_sidebar_on_a_phone(page: Any) -> None:
    if _on_a_phone(page):
        page.locator("[data-testid='stSidebarCollapseButton'] button").first.tap()
        page.wait_for_function(f"() => ({SIDEBAR_RIGHT})() <= 0", timeout=10_000)


def _pick(page: Any, key: str, option: str) -> None:
    """A select box's (or a multiselect's) option, picked by its name once its list is open: a phone opens the list
    with a tap (a touch screen's click does not), a desktop with the down arrow on the focused box (a mouse click on
    the box's text field does not open it either: Streamlit's combobox opens on its arrow, a key or typing)."""
    box = page.locator(f".st-key-{key} [role='combobox'], .st-key-{key} input").first
    if _on_a_phone(page):
        box.tap()
    else:
        box.focus()
        box.press("ArrowDown")
    page.get_by_role("option", name=option, exact=True).first.click()


def _slide(page: Any, key: str, presses: int) -> None:
    """A slider moved with the keyboard: focused, then the up arrow."""
    handle = page.locator(f".st-key-{key} input[type='range']")
    handle.focus()
    for _ in range(presses):
        handle.press("ArrowUp")  # up raises it in either direction (right lowers it right to left)


ACTIONS: dict[str, Callable[[Any, str], None]] = {  # (the page, its language)
    "sentence": lambda page, lang: (
        page.locator(".st-key-similarity_sentence input").fill(SENTENCES[lang]),
        page.locator(".st-key-similarity_sentence input").press("Enter"),
    ),
    "positions": lambda page, lang: (
        _in_sidebar(page, ".st-key-similarity_position label").click(),
        _close_sidebar_on_a_phone(page),
    ),
    "cosine": lambda page, lang: page.locator(".st-key-similarity_metric [role='radiogroup'] label").nth(1).click(),
    "softmax": lambda page, lang: page.locator(".st-key-similarity_softmax label").click(),
    "W1": lambda page, lang: page.locator(".st-key-trainable_W1 label").click(),
    "temperature": lambda page, lang: _slide(page, "trainable_temperature", 1),
    "head": lambda page, lang: _pick(page, "heads_head", "2"),
    "knock out": lambda page, lang: _pick(page, "heads_knock_out", "ط1 ر1" if lang == "ar" else "L1 H1"),
    "layer": lambda page, lang: _pick(page, "heads_layer", "2"),
    "depth": lambda page, lang: _slide(page, "abstraction_depth", 1),
    "hide": lambda page, lang: page.locator("[class*='st-key-fill_blank_hidden_'] button").first.click(),
    "rank": lambda page, lang: page.locator(".st-key-fill_blank_rank button").click(),
}


# Set when the focus lands in the tour's card (CARD_FOCUSED_JS, in every document of the page); cleared before each
# action.
CARD_FOCUSED_JS = """document.addEventListener('focusin', (event) => {
  if (event.target.closest && event.target.closest('.st-key-tour_card')) window.__cardFocused = true;
});"""


def _step_shown(page: Any, number: int | str, timeout_s: float = 180) -> float:
    """Until the URL names `number`, the card says it (its progress, or the end's card), the page has settled and
    the card has the focus; returns the time.monotonic() at which the card said it."""
    said = "" if number == "done" else f" {number} "
    page.wait_for_function(
        f"new URLSearchParams(location.search).get('tour') === '{number}' && "
        f"(document.querySelector('.st-key-tour_card')?.innerText || '').includes('{said}')",
        timeout=int(timeout_s * 1000),
    )
    shown = time.monotonic()
    # Settled (bench.app_server.settle: the run over, nothing stale, the page quiet) and the card focused since the
    # action (it takes the focus from a component of its own, ui/accessibility.focus_here, a moment after the run):
    # an action begun before then loses its control's focus, or a select box its open list, to that focus.
    settle(page, timeout_ms=int(timeout_s * 1000))
    page.wait_for_function("window.__cardFocused === true", timeout=int(timeout_s * 1000))
    return shown


def walk_tour(browser: Any, base: str, *, phone: bool = False, lang: str = "en") -> list[StepWalked]:
    """Start the tour from the home page and do each step's action; raises if a step does not open the next."""
    context = browser.new_context(**(PHONE if phone else DESKTOP), locale="ar-EG" if lang == "ar" else "en-US")
    page = context.new_page()
    page.add_init_script(CARD_FOCUSED_JS)
    walked: list[StepWalked] = []
    try:
        page.goto(f"{base}/" + ("?lang=ar" if lang == "ar" else ""))
        start = page.locator(".st-key-idea_tour button:visible").first
        start.wait_for(timeout=120_000)
        settle(page)
        start.click()
        _step_shown(page, 1)
        for number, step in enumerate(STEPS, 1):
            page.locator(".st-key-tour_skip button:visible").first.wait_for(timeout=60_000)  # the card is whole
            words = len(page.locator(".st-key-tour_card").inner_text().split())
            started, following, tries = time.monotonic(), number + 1 if number < len(STEPS) else "done", 1
            page.evaluate("window.__cardFocused = false")
            ACTIONS[step.name](page, lang)
            try:
                shown = _step_shown(page, following, timeout_s=60)
            except (
                Exception
            ):  # the action was lost (a click while the page was still busy): done again, as a user would
                tries += 1
                ACTIONS[step.name](page, lang)
                shown = _step_shown(page, following)
            walked.append(StepWalked(step.name, shown - started, words, tries))
    except Exception as error:
        print("error:", str(error)[:400])
        page.screenshot(path="/tmp/tour_stuck.png")
        status = page.evaluate("document.querySelector('[data-testid=\"stStatusWidget\"]')?.innerText")
        card = page.evaluate("document.querySelector('.st-key-tour_card')?.innerText")
        print("stuck:", repr(status), repr(card)[:120])
        raise RuntimeError(f"stuck after {[w.name for w in walked]} at {page.url}") from None
    finally:
        context.close()
    return walked


def main() -> None:
    from tools.accessibility_audit import app_and_browser

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default="en", choices=["en", "ar"])
    parser.add_argument("--phone", action="store_true", help="only the phone (default: desktop, then phone)")
    args = parser.parse_args()
    with app_and_browser(None) as (base, browser):
        for phone in [True] if args.phone else [False, True]:
            walked = walk_tour(browser, base, phone=phone, lang=args.lang)
            screen = "phone 390 × 844" if phone else "desktop 1280 × 800"
            print(f"{screen}, {args.lang}: {len(walked)} steps, none stuck")
            print(f"  {'step':12} {'app (s)':>8} {'words':>6} {'reading (s)':>12} {'tries':>6}")
            for step in walked:
                print(
                    f"  {step.name:12} {step.seconds:8.1f} {step.words:6d} {step.reading_seconds:12.0f} {step.tries:6d}"
                )
            app, reading = sum(s.seconds for s in walked), sum(s.reading_seconds for s in walked)
            print(f"  total: the app {app:.0f} s + reading {reading:.0f} s = {(app + reading) / 60:.1f} minutes")


if __name__ == "__main__":
    main()
