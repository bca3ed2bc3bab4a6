"""A quiz link on a phone (issue 25): how long a student waits, in Chromium with a phone's profile and a 4× slower CPU.

    .venv/bin/python -m bench.phone_speed                                     # 5 runs of each link (about 10 min)
    .venv/bin/python -m bench.phone_speed --out docs/runs/phone_speed_after.txt

A real server (`streamlit run app.py` from the folder this script sits in: a git worktree of an older commit
measures that commit) and Chromium: a phone (390 × 844, device scale 3, mobile, touch, a phone's User-Agent) whose
page runs under the DevTools protocol's Emulation.setCPUThrottlingRate (rate 4), and a laptop (1400 × 900, no
throttling). Each run is a fresh browser context (a new session, nothing cached), on the quiz links of Similarity,
Trainable attention and Multi-head (ui/lessons/lesson.py builds the lessons' quiz links; Trainable has no lesson, so its
link is written here as the page's "Link to this quiz" writes it). Measured, by the page's own clock
(performance.now(), from the start of navigation):
- question: from opening the quiz link to its choice box ("The word it attends to most") drawn, and where that
  box's bottom edge is (y, CSS px from the top of the page; the phone's first screen is 844 px tall);
- Reveal: from the click on Reveal (after a guess) to the revealed heatmap drawn (its SVG heatmap layer);
- first heatmap: from opening the same link without the quiz (the lesson's own link) to the first heatmap drawn
  (scrolled into view when it lies below the first screen): on a phone's first view, its picture (figures/
  first_paint.py); "first chart", printed beside it, is the interactive chart that replaces it.
Every link is opened once before the runs (not counted: the server loads its models and fills its caches; that
first visit is printed as "cold"). The machine's 2 cores are shared with other work: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Error as PlaywrightError

from bench.app_server import free_port, git_state, launch_chromium, start_server, stop_server, wait_until_healthy
from ui.lessons.catalogue import LESSONS

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    # A phone's browser says so (Chrome on Android); Playwright's mobile emulation alone keeps a desktop one.
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36",
}
LAPTOP = {"viewport": {"width": 1400, "height": 900}}
TARGETS = {"phone first heatmap": 5.0, "phone Reveal": 2.0, "laptop first heatmap": 3.0}
PICK_BOX = "The word it attends to most"
# A heatmap is drawn once Plotly has put its image into the SVG heatmap layer, or once a phone's first heatmap,
# drawn as a picture before Plotly's code has loaded (attention_core/figures/first_paint.py), is decoded. Below the
# first screen it is scrolled into view first (drawn whether or not it is seen; the scroll is what a student does).
DRAWN = """sel => {
    const plot = document.querySelector(sel);
    if (!plot) return false;
    const box = plot.getBoundingClientRect();
    const away = box.top >= innerHeight || box.bottom <= 0;
    if (plot.tagName === 'IMG') {  // a picture is whole once decoded: scrolled to, it shows at once
      if (!plot.complete || plot.naturalWidth === 0) return false;
      if (away) plot.scrollIntoView({block: 'center'});
      return performance.now();
    }
    if (away) { plot.scrollIntoView({block: 'center'}); return false; }
    return plot.querySelector('.heatmaplayer image, .heatmaplayer .hm') ? performance.now() : false;
}"""
FIRST_HEATMAP = "[class*='st-key-first_paint_'] img, .js-plotly-plot"  # the picture or the chart, whichever is first
QUESTION = """label => {
    const box = [...document.querySelectorAll('[data-testid=stSelectbox]')].find(e => e.innerText.includes(label));
    if (!box || box.getBoundingClientRect().height === 0) return false;
    return {t: performance.now(), bottom: box.getBoundingClientRect().bottom + scrollY};
}"""


@dataclass(frozen=True)
class Link:
    name: str
    page: str
    quiz: dict[str, str]  # the quiz link's query
    pick: str  # the student's guess

    def lesson(self) -> dict[str, str]:
        """The same view without the question: the link that opens the page with its heatmaps."""
        return {k: v for k, v in self.quiz.items() if not k.startswith(f"{self.page}_quiz")}


def _lesson_link(title: str, pick: str) -> Link:
    lesson = next(lesson for lesson in LESSONS if lesson.title == title)
    query = lesson.quiz_query()
    assert query is not None, title
    return Link(f"{lesson.page}: {title}", lesson.page, {k: str(v) for k, v in query.items()}, pick)


SENTENCE = "The animal didn't cross the street because it was too tired"
LINKS = [
    _lesson_link("One word, two meanings: bank", "river"),
    Link(
        "trainable: one head, the default W's",
        "trainable",
        {"trainable_sentence": SENTENCE, "trainable_quiz": "true", "trainable_quiz_row": "it"},
        "animal",
    ),
    _lesson_link("It: the animal or the street? (1)", "animal"),
]


@dataclass
class Times:
    question: list[float] = field(default_factory=list)
    question_bottom: list[float] = field(default_factory=list)
    reveal: list[float] = field(default_factory=list)
    first_heatmap: list[float] = field(default_factory=list)
    first_chart: list[float] = field(default_factory=list)  # the first interactive (Plotly) chart


def _open(browser: object, profile: dict, throttle: float) -> tuple[object, object]:
    context = browser.new_context(**profile, locale="en-US")
    page = context.new_page()
    if throttle > 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    return context, page


def _wait(page: object, script: str, arg: object, timeout_s: float = 180) -> object:
    return page.wait_for_function(script, arg=arg, polling=100, timeout=timeout_s * 1000).json_value()


def quiz_run(browser: object, base: str, link: Link, profile: dict, throttle: float, times: Times) -> None:
    """Open the quiz link, wait for the question, guess, press Reveal, wait for the revealed map."""
    context, page = _open(browser, profile, throttle)
    try:
        page.goto(f"{base}/{link.page}?{urlencode(link.quiz)}", wait_until="commit")
        question = _wait(page, QUESTION, PICK_BOX)
        times.question.append(question["t"] / 1000)
        times.question_bottom.append(question["bottom"])
        page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=60_000)
        box = page.locator("[data-testid='stSelectbox']").filter(has_text=PICK_BOX)
        box.locator("input").click()
        page.keyboard.type(link.pick)
        page.get_by_role("option", name=link.pick, exact=True).click()
        page.wait_for_function(
            "l => [...document.querySelectorAll('[data-testid=stSelectbox]')].find(e => e.innerText.includes(l))"
            "?.querySelector('input')?.value",
            arg=PICK_BOX,
            timeout=60_000,
        )
        reveal = page.get_by_role("button", name="Reveal", exact=True)
        reveal.wait_for(timeout=60_000)
        started = page.evaluate("performance.now()")
        reveal.click()
        drawn = _wait(page, DRAWN, f"[class*='st-key-{link.page}_quiz_map'] .js-plotly-plot")
        times.reveal.append((drawn - started) / 1000)
    finally:
        context.close()


def lesson_run(browser: object, base: str, link: Link, profile: dict, throttle: float, times: Times) -> None:
    context, page = _open(browser, profile, throttle)
    try:
        page.goto(f"{base}/{link.page}?{urlencode(link.lesson())}", wait_until="commit")
        times.first_heatmap.append(_wait(page, DRAWN, FIRST_HEATMAP) / 1000)
        times.first_chart.append(_wait(page, DRAWN, ".js-plotly-plot") / 1000)
    finally:
        context.close()


def _summary(values: list[float], unit: str = "s") -> str:
    if not values:
        return "-"
    if unit == "px":
        return f"{statistics.median(values):.0f} px (max {max(values):.0f})"
    return f"{statistics.median(values):.2f} s (max {max(values):.2f})"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def measure(browser: object, base: str, runs: int, say: Callable[[str], None]) -> dict[str, list[float]]:
    everything: dict[str, list[float]] = {
        k: [] for k in ("phone first heatmap", "phone Reveal", "laptop first heatmap")
    }
    for link in LINKS:
        cold = Times()
        started = time.perf_counter()
        quiz_run(browser, base, link, LAPTOP, 1, cold)  # the server loads the model and fills its caches
        lesson_run(browser, base, link, LAPTOP, 1, cold)
        say(
            f"\n{link.name}\n  cold (first visit after the server started, laptop): question "
            f"{cold.question[0]:.2f} s, Reveal {cold.reveal[0]:.2f} s, first heatmap {cold.first_heatmap[0]:.2f} s "
            f"({time.perf_counter() - started:.0f} s in all)"
        )
        phone, laptop = Times(), Times()
        failed: list[str] = []
        for _ in range(runs):
            for run, profile, throttle, times in (
                (quiz_run, PHONE, 4, phone),
                (lesson_run, PHONE, 4, phone),
                (lesson_run, LAPTOP, 1, laptop),
            ):
                try:
                    run(browser, base, link, profile, throttle, times)
                except PlaywrightError as error:  # counted and said, never dropped silently
                    failed.append(f"{run.__name__} {'phone' if throttle > 1 else 'laptop'}: {str(error)[:80]}")
        say(f"  phone, CPU ×4   question       {_summary(phone.question)}")
        say(f"  phone, CPU ×4   question box's bottom edge at {_summary(phone.question_bottom, 'px')}")
        say(f"  phone, CPU ×4   Reveal         {_summary(phone.reveal)}")
        say(f"  phone, CPU ×4   first heatmap  {_summary(phone.first_heatmap)}")
        say(f"  phone, CPU ×4   first chart    {_summary(phone.first_chart)} (interactive: Plotly's)")
        say(f"  laptop          first heatmap  {_summary(laptop.first_heatmap)}")
        say(f"  ({_load()})")
        for failure in failed:
            say(f"  failed (not in the times above): {failure}")
        everything["phone first heatmap"] += phone.first_heatmap
        everything["phone Reveal"] += phone.reveal
        everything["laptop first heatmap"] += laptop.first_heatmap
    return everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="measured runs of each link and profile")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument(
        "--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="print two reports side by side (Markdown)"
    )
    args = parser.parse_args()
    if args.table:
        print(side_by_side(*args.table))
        return
    from playwright.sync_api import sync_playwright

    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    port = args.port or free_port()
    say(f"phone_speed: {git_state()}, {args.runs} runs per link and profile")
    say("phone: 390 × 844, device scale 3, mobile, touch, CPU throttled ×4 (CDP); laptop: 1400 × 900, no throttle")
    say(f"start: {_load()} (the cores are shared with other sessions' work: times vary with it)")
    server = start_server(port)
    try:
        wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                everything = measure(browser, f"http://127.0.0.1:{port}", args.runs, say)
            finally:
                browser.close()
    finally:
        stop_server(server)
    say("\nAll three links together: median (max) against the target")
    for name, values in everything.items():
        target = TARGETS[name]
        verdict = (
            "met in every run"
            if max(values) <= target
            else "met at the median"
            if statistics.median(values) <= target
            else "missed"
        )
        say(f"  {name:<22} {_summary(values)}  target ≤ {TARGETS[name]:g} s: {verdict}")
    say(f"end: {_load()}")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


_MEASURES = "question box's bottom edge at|question|Reveal|first heatmap|first chart"
_ROW = re.compile(rf"^  (phone, CPU ×4|laptop)\s+({_MEASURES})\s+(.+)$")


def side_by_side(before: Path, after: Path) -> str:
    """The two reports' rows as one Markdown table, read from the files as written (no number typed by hand)."""
    rows: dict[tuple[str, str], list[str]] = {}
    for column, path in enumerate((before, after)):
        link = ""
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("  ") and "target ≤" in line:
                name = line.split("  ")[1].strip()
                rows.setdefault(("all three links", name), ["–", "–"])[column] = " ".join(
                    line.split(name, 1)[1].split()
                )
            elif match := _ROW.match(line):
                device, what, value = match.groups()
                device = "phone" if device.startswith("phone") else "laptop"
                rows.setdefault((link, f"{device}: {what.removesuffix(' at')}"), ["–", "–"])[column] = value
            elif line and not line.startswith((" ", "phone", "start", "end", "All three")) and ":" in line:
                link = line
    table = ["| link | measure | before | after |", "|---|---|---|---|"]
    table += [f"| {link} | {what} | {b} | {a} |" for (link, what), (b, a) in rows.items()]
    return "\n".join(table)


if __name__ == "__main__":
    main()
