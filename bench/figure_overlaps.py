"""Count the texts that run into each other on the app's figures, as Chromium draws them: tick labels, panel and
figure titles, and the numbers in heatmap cells, on the pages issue 25 names, at a phone's 390 × 844, a 1280 × 720
projector in presentation mode and a 1400 × 900 desktop, in English and Arabic.

    python -m bench.figure_overlaps [--port 8631] [--out docs/runs/figure_overlaps.txt] [--shots DIR]

Each text is the rectangle Chromium lays it out in (its SVG bounding box) turned as the text is turned (a column
label at −60° is a slanted rectangle, not the larger upright box around it), and two texts overlap when their
rectangles share more than half a pixel each way (a separating-axis test). tests/test_browser_fit.py asserts that
every count is 0. The projector is the desktop's page, measured, then resized and switched to presentation mode (as
a teacher's laptop plugged into one): one page load for both (walk_sizes).
"""

from __future__ import annotations

import argparse
import contextlib
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.app_server import launch_chromium, settle, start_server, stop_server, wait_until_healthy
from bench.script_runs import watch_runs
from bench.warm_browser import WarmBrowser

# Every text of every Plotly chart on the page, as a rotated rectangle (its four corners on screen), by kind:
# "label" (tick labels, panel titles, the figure's title: none may touch another) and "number" (cell numbers: none
# may touch another number or a label). Returns one entry per chart: its index and each overlapping pair's texts.
OVERLAPS_JS = """
() => {
  const corners = (el) => {
    let box;
    try { box = el.getBBox(); } catch (e) { return null; }
    if (!box || box.width < 0.5 || box.height < 0.5 || !el.textContent.trim()) return null;
    const m = el.getScreenCTM();
    if (!m) return null;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return null;
    const p = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    const pts = [p(box.x, box.y), p(box.x + box.width, box.y), p(box.x + box.width, box.y + box.height),
                 p(box.x, box.y + box.height)];
    const xs = pts.map(q => q[0]), ys = pts.map(q => q[1]);
    return {pts, x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys),
            text: el.textContent};
  };
  const axes = (a) => {
    const out = [];
    for (let i = 0; i < 2; i++) {
      const [x0, y0] = a.pts[i], [x1, y1] = a.pts[i + 1];
      const len = Math.hypot(x1 - x0, y1 - y0) || 1;
      out.push([-(y1 - y0) / len, (x1 - x0) / len]);
    }
    return out;
  };
  const meet = (a, b) => {
    if (a.x1 - b.x0 < 0.5 || b.x1 - a.x0 < 0.5 || a.y1 - b.y0 < 0.5 || b.y1 - a.y0 < 0.5) return false;
    for (const [ax, ay] of [...axes(a), ...axes(b)]) {
      const pa = a.pts.map(q => q[0] * ax + q[1] * ay), pb = b.pts.map(q => q[0] * ax + q[1] * ay);
      if (Math.min(Math.max(...pa) - Math.min(...pb), Math.max(...pb) - Math.min(...pa)) < 0.5) return false;
    }
    return true;
  };
  const LABELS = '.xtick text, .ytick text, .annotation-text, .g-gtitle text, .g-xtitle text, .g-ytitle text';
  const NUMBERS = '.hm text, .heatmaplayer text, .textpoint text';
  return [...document.querySelectorAll('.js-plotly-plot')].map((plot, chart) => {
    const labels = [...plot.querySelectorAll(LABELS)].map(corners).filter(Boolean);
    const numbers = [...plot.querySelectorAll(NUMBERS)].map(corners).filter(Boolean);
    const pairs = [];
    const check = (list, others, same) => {
      for (let i = 0; i < list.length; i++) {
        for (let j = same ? i + 1 : 0; j < others.length; j++) {
          if (meet(list[i], others[j])) pairs.push([list[i].text, others[j].text]);
        }
      }
    };
    check(labels, labels, true);
    check(numbers, numbers, true);
    check(numbers, labels, false);
    const holder = plot.closest('[class*="st-key-"]');
    const key = holder ? [...holder.classList].find(c => c.startsWith('st-key-')).slice(7) : String(chart);
    // Every text inside the chart's own box (half a pixel spare): none cut at its edge.
    const edge = plot.getBoundingClientRect();
    const off = [...labels, ...numbers].filter(t => t.x0 < edge.left - 0.5 || t.x1 > edge.right + 0.5 ||
                                                     t.y0 < edge.top - 0.5 || t.y1 > edge.bottom + 0.5)
                                        .map(t => t.text);
    // The word columns (and rows) a heatmap or a bar chart over words draws, against those it labels: its x (y)
    // values less a grid's blank gaps (named from U+2060), where its axis shows labels and is not a long text's.
    // Columns that are a vector's dimensions (meta.columns, figures.heatmaps.heatmap) are numbered, not words.
    const wanted = (name) => {
      const axis = (plot.layout || {})[name + 'axis'] || {};
      const traces = (plot.data || []).filter(t => t.type === 'heatmap' || t.type === 'bar');
      if (!traces.length || axis.showticklabels === false) return null;
      if (name === 'x' && ((plot.layout || {}).meta || {}).columns === 'dimensions') return null;
      if (traces.every(t => t.type === 'bar') && name === 'y') return null;
      const values = new Set();
      for (const t of traces) for (const v of (t[name] || [])) if (!String(v).startsWith('\u2060')) values.add(v);
      return values.size && values.size <= 40 ? values.size : null;
    };
    const drawn = (selector) => [...plot.querySelectorAll(selector)].filter(t => t.textContent.trim()).length;
    const columns = wanted('x'), rows = wanted('y');
    // A table of words (the logit lens: each cell its guess and probability) writes every cell: the cells with text
    // in its first heatmap, against the cell texts drawn; and whether one is white (on a dark cell).
    const table = (plot.data || []).find(t => t.type === 'heatmap' && Array.isArray(t.text));
    const texts = table ? table.text.flat().filter(t => String(t).trim()).length : null;
    const white = [...plot.querySelectorAll(NUMBERS)].some(t => /255, 255, 255|#fff/i.test(t.style.fill || ''));
    return {chart, key, labels: labels.length, numbers: numbers.length,
            width: plot.getBoundingClientRect().width, pairs, off,
            columns: columns === null ? null : [drawn('.xtick text'), columns],
            rows: rows === null ? null : [drawn('.ytick text'), rows],
            texts: texts === null ? null : [numbers.length, texts], white};
  });
}
"""


@dataclass(frozen=True)
class Size:
    """A screen a class uses: its window, whether it is a phone, and presentation mode (switched on in the
    sidebar, as a teacher does)."""

    name: str
    width: int
    height: int
    phone: bool = False
    presentation: bool = False


SIZES = (
    Size("phone", 390, 844, phone=True),
    Size("projector", 1280, 720, presentation=True),
    Size("desktop", 1400, 900),
)


@dataclass(frozen=True)
class Walk:
    """One offender of issue 25: the page, its URL parameters, and what to press before its figures are looked at
    (the quiz's Reveal; a view's segmented control)."""

    name: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    reveal: bool = False
    start: bool = False  # press the Train page's Start (its default live demo) and wait for the probe's grid


ANIMAL = "The animal didn't cross the street because it was too tired"
WALKS = (
    Walk(
        "quiz head map",
        "heads",
        {
            "lesson": "it-the-animal-or-the-street-1",
            "heads_sentence": ANIMAL,
            "heads_layer": "4",
            "heads_head": "2",
            "heads_quiz": "true",
            "heads_quiz_row": "it",
            "heads_quiz_head": "L4 H2",
        },
        reveal=True,
    ),
    Walk("every layer and head", "heads", {"heads_sentence": ANIMAL}),
    Walk("heads knock-out", "heads", {"heads_view": "Knock heads out", "heads_knock_out": "L1 H1"}),
    Walk("idea", "idea", {}),
    Walk("similarity 10 words", "similarity", {"similarity_sentence": "the cat sat on the mat and the dog ran off"}),
    Walk("trainable", "trainable", {}),
    Walk("abstraction", "abstraction", {}),
    # A hidden word: the lens gets its column ("#1,163<br>0.000070"), and قدير a dark cell.
    Walk("where the blank looked", "fill_blank", {"fill_blank_sentence": "إن الله على كل شيء قدير"}),
    Walk("knock-out before | after", "fill_blank", {"fill_blank_knock_out": "L1 H1"}),
    Walk("minimal pairs A | B", "pairs", {}),
    Walk("word order", "word_order", {}),
    Walk("train probe grid", "train", {}, start=True),
)


PRESENTATION_SWITCH = {"en": "Presentation mode", "ar": "وضع العرض"}  # the sidebar's switch, as each language names it


def size_context(browser: object, size: Size) -> object:
    """A browser context with `size`'s window; a phone's with its touch, mobile layout and 3× pixels."""
    phone = {"device_scale_factor": 3, "is_mobile": True, "has_touch": True} if size.phone else {}
    return browser.new_context(viewport={"width": size.width, "height": size.height}, **phone)


def switch_presentation_on(page: object, language: str) -> None:
    """Presentation mode switched on in the sidebar, as a teacher does on the projector."""
    page.locator("[data-testid=stSidebar]").get_by_text(PRESENTATION_SWITCH[language]).click()
    settle(page)


def open_page(browser: object, base: str, walk: Walk, size: Size, language: str) -> object:
    """A page of `walk` at `size` in `language`, its charts drawn (presentation mode switched on in the sidebar
    first, where the size asks for it)."""
    page = size_context(browser, size).new_page()
    watch_runs(page)  # before it connects: resize_page counts its runs
    query = walk.query | ({"lang": "ar"} if language == "ar" else {})
    page.goto(f"{base}/{walk.path}?{urllib.parse.urlencode(query)}")
    wait_for_charts(page, walk, language)
    if size.presentation:
        switch_presentation_on(page, language)
    if walk.reveal:
        page.locator(f".st-key-{walk.path}_quiz_pick input").click()  # a guess first: the first word offered
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        settle(page)
        page.locator(f".st-key-{walk.path}_quiz_reveal button").click()
        settle(page)
        page.wait_for_selector(".js-plotly-plot", timeout=90_000)
        settle(page)
    return page


def resize_page(page: object, size: Size, language: str) -> None:
    """The page's window made `size` (from another size of the same kind: a desktop's window turned into a
    projector's, as a teacher's laptop plugged into one), the app's rerun for it awaited (the width moved by more
    than a twentieth: ui/screen.py reports it, and the run that follows lays the figures out again), presentation
    mode switched on where the size asks for it."""
    runs = watch_runs(page)
    before = runs.now()
    page.set_viewport_size({"width": size.width, "height": size.height})
    runs.wait_for(before + 1)
    settle(page)
    if size.presentation:
        switch_presentation_on(page, language)


def size_runs(sizes: tuple[Size, ...]) -> list[tuple[Size, ...]]:
    """The sizes in the page loads that show them: a phone's page of its own (a touch screen, three pixels to the
    point: another browser context), the projector on the desktop's page once it is measured (one load, not two)."""
    phones = [(size,) for size in sizes if size.phone]
    wide = tuple(sorted((size for size in sizes if not size.phone), key=lambda size: size.presentation))
    return phones + ([wide] if wide else [])


def walk_sizes(
    browser: object, base: str, walk: Walk, sizes: tuple[Size, ...], language: str
) -> Iterator[tuple[Size, object]]:
    """(size, its page with the walk's charts drawn) for each of `sizes`, in the page loads size_runs makes;
    each page is closed once its last size is measured."""
    for run in size_runs(sizes):
        page = open_page(browser, base, walk, run[0], language)
        try:
            for k, size in enumerate(run):
                if k:
                    resize_page(page, size, language)
                yield size, page
        finally:
            close_page(page, walk)


def wait_for_charts(page: object, walk: Walk, language: str = "en") -> None:
    selector = "[data-testid=stButton]" if walk.reveal or walk.start else ".js-plotly-plot"
    page.wait_for_selector(selector, timeout=120_000)
    settle(page)
    if walk.start:
        start = "Start a new run" if language == "en" else "ابدأ تدريبًا جديدًا"
        page.locator(".st-key-train_start").get_by_role("button", name=start).click()
        page.wait_for_selector(".st-key-train_live .js-plotly-plot", timeout=180_000)
        settle(page)


def overlaps(page: object) -> list[dict[str, object]]:
    return page.evaluate(OVERLAPS_JS)


def problems(charts: list[dict[str, object]], kind: str) -> list[str]:
    """The charts (by key) with a fault of `kind`: "unlabelled", a word column (or row) without its label
    ("heads_raw 12/39 columns"); "off", a text beyond the chart's edge; "unwritten", a table of words (the logit lens)
    that writes fewer cells than it has."""
    found = []
    for chart in charts:
        if kind == "unlabelled":
            found += [
                f"{chart['key']} {drawn}/{wanted} {name}"
                for name in ("columns", "rows")
                if chart[name] and (drawn := chart[name][0]) != (wanted := chart[name][1])
            ]
        elif kind == "off" and chart["off"]:
            found.append(f"{chart['key']} {chart['off'][:2]}")
        elif kind == "unwritten" and chart["texts"] and str(chart["key"]).endswith("_lens"):
            drawn, wanted = chart["texts"]
            if drawn != wanted:
                found.append(f"{chart['key']} {drawn}/{wanted} cells")
    return found


def close_page(page: object, walk: Walk) -> None:
    """Close the page (its context is handed back by WarmBrowser.release); a training run started for it is stopped
    first and seen to end (Start is enabled again): the server runs two at a time, and a run outlives its tab."""
    if walk.start:
        with contextlib.suppress(Exception):
            page.locator(".st-key-train_stop button").first.click(timeout=10_000)
            page.locator(".st-key-train_start button:enabled").first.wait_for(state="attached", timeout=150_000)
    page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8631, help="a free port for the app's server")
    parser.add_argument("--base", default="", help="an app already running (e.g. http://127.0.0.1:8611)")
    parser.add_argument("--shots", default="", help="a folder for a screenshot of every page at every size")
    parser.add_argument("--only", default="", help="only the walks whose name contains this")
    args = parser.parse_args()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    server = None
    base = args.base
    if not base:
        server = start_server(args.port)
        base = f"http://127.0.0.1:{args.port}"
        wait_until_healthy(args.port, server)
    total = 0
    totals = {"unlabelled": 0, "off": 0, "unwritten": 0}
    try:
        with sync_playwright() as p:
            browser = WarmBrowser(launch_chromium(p))
            for walk in WALKS:
                if args.only and args.only not in walk.name:
                    continue
                for language in ("en", "ar"):
                    for size, page in walk_sizes(browser, base, walk, SIZES, language):
                        charts = overlaps(page)
                        count = sum(len(chart["pairs"]) for chart in charts)
                        total += count
                        faults = {name: problems(charts, name) for name in ("unlabelled", "off", "unwritten")}
                        for name, found in faults.items():
                            totals[name] += len(found)
                        worst = [c for c in charts if c["pairs"]]
                        example = "  " + ", ".join(
                            f"{c['key']} {len(c['pairs'])} {c['pairs'][0]} ({c['width']:.0f} px)" for c in worst
                        )
                        counts = "  ".join(f"{len(found)} {name}" for name, found in faults.items())
                        named = "".join(f"  {name}: {', '.join(found)}" for name, found in faults.items() if found)
                        print(
                            f"{walk.name:26} {size.name:9} {language}  {count:3} overlaps  {counts}{example}{named}",
                            flush=True,
                        )
                        if args.shots:
                            out = Path(args.shots)
                            out.mkdir(parents=True, exist_ok=True)
                            slug = walk.name.replace(" ", "-").replace("|", "").replace("--", "-")
                            for k, chart in enumerate(page.locator(".js-plotly-plot").all()[:4]):
                                with contextlib.suppress(PlaywrightError):  # a live chart may be redrawn meanwhile
                                    chart.screenshot(path=str(out / f"{slug}-{size.name}-{language}-{k}.png"))
                    browser.release()
            browser.close()
    finally:
        if server is not None:
            stop_server(server)
    print(f"total {total} overlaps, " + ", ".join(f"{n} {name}" for name, n in totals.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
