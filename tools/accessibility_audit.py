"""Every page of the app checked with axe-core's WCAG 2.1 A/AA rules, in English and in Arabic, whole pages.

    .venv/bin/python -m tools.accessibility_audit                 # starts the app on a free port, prints a table
    .venv/bin/python -m tools.accessibility_audit --json out.json # and writes every violation found

axe checks only what is inside Streamlit's scrolling area, so each page is opened in a window as tall as the page.
Arabic pages are opened as an Arabic reader opens them: a browser whose language is Arabic (ar-EG) and ?lang=ar.
axe skips some Arabic-script captions in its colour-contrast rule, so the captions' contrast is also computed here
from their computed styles (colour, opacity, background). tests/test_browser_accessibility.py asserts the same
numbers; docs/accessibility.md reports them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.app_server import MAX_HEIGHT, page_height, settle
from ui.page_registry import PAGES as APP_PAGES

ROOT = Path(__file__).resolve().parents[1]
PAGES = tuple(page.url_path for page in APP_PAGES)  # every page of the menu (ui/page_registry.py)
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")
WIDTH = 1400

# The contrast of every caption, from computed styles: the text colour with its own alpha and every ancestor's
# opacity, over the first opaque background up the tree (white when none is set).
CAPTION_CONTRAST_JS = """
() => {
  const parse = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  const background = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) return c;
    }
    return [255, 255, 255, 1];
  };
  return [...document.querySelectorAll('[data-testid="stCaptionContainer"]')].filter(e => e.offsetParent !== null
      && e.innerText.trim()).map(e => {
    const leaf = e.querySelector('p') || e;
    let [r, g, b, a] = parse(getComputedStyle(leaf).color);
    for (let p = leaf; p; p = p.parentElement) a *= parseFloat(getComputedStyle(p).opacity);
    const bg = background(e);
    const fg = [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a)];
    const [l1, l2] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return {text: e.innerText.slice(0, 60), ratio: (l1 + 0.05) / (l2 + 0.05)};
  });
}
"""


# Where focus is, and how visible: the focused element's ring (its outline, else a box-shadow, else nothing) and
# the contrast of the ring's colour against the background it lies on (the first opaque one up the tree); whether it
# sits in a Plotly chart (and which).
FOCUS_JS = """
() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const parse = c => { const m = (c.match(/[\\d.]+/g) || [0, 0, 0, 0]).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const behind = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const c = parse(getComputedStyle(p).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const ringed = [e, e.closest('label'), e.closest('[data-baseweb="select"] > div'),
    e.closest('[data-baseweb="input"]'), e.closest('[data-testid="stTextAreaRootElement"]'),
    e.type === 'range' ? e.parentElement.parentElement : null].filter(Boolean);
  let best = 1.0, how = 'none';
  for (const r of ringed) {
    const s = getComputedStyle(r), bg = behind(r);
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1) {
      const c = parse(s.outlineColor);
      if (c[3] > 0 && ratio(c, bg) > best) { best = ratio(c, bg); how = 'outline ' + s.outlineColor; }
    }
    const shadow = s.boxShadow.match(/rgba?\\([^)]*\\)/);
    if (s.boxShadow !== 'none' && shadow) {
      const c = parse(shadow[0]);
      if (c[3] > 0.5 && ratio(c, bg) > best) { best = ratio(c, bg); how = 'shadow ' + shadow[0]; }
    }
  }
  const chart = e.closest('[data-testid="stPlotlyChart"]');
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  const name = (e.getAttribute('aria-label') || e.innerText || e.getAttribute('data-title') || e.tagName).trim();
  return {name: name.slice(0, 50), tag: e.tagName, role: e.getAttribute('role'), contrast: best, how,
          chart: chart ? charts.indexOf(chart) : -1};
}
"""


PATH_JS = """() => { const path = [];
  for (let x = document.activeElement; x; x = x.parentElement)
    path.push(x.tagName + [...(x.parentElement ? x.parentElement.children : [])].indexOf(x));
  return path.join('/'); }"""


def tab_walk(page: Any, presses: int = 400) -> list[dict[str, Any]]:
    """Every stop of the Tab key from the top of the page, until focus comes round again (or `presses` run out)."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.mouse.click(2, 2)  # the page itself, so the first Tab starts at its top
    stops: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _ in range(presses):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUS_JS)
        if stop is None:
            continue
        here = page.evaluate(PATH_JS)
        if here in seen:
            break
        seen.add(here)
        stops.append(stop)
    return stops


def tab_stops_per_chart(stops: list[dict[str, Any]]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for stop in stops:
        if stop["chart"] >= 0:
            counts[stop["chart"]] = counts.get(stop["chart"], 0) + 1
    return counts


@dataclass(frozen=True)
class PageAudit:
    """One page in one language: axe's serious and critical violations (rule id → node count) and the lowest caption
    contrast the page shows."""

    path: str
    language: str
    violations: dict[str, int]
    all_violations: dict[str, int]
    lowest_caption_contrast: float
    captions: int
    html: str  # <html lang dir> as the page declares them, e.g. "ar rtl"
    nodes: list[dict[str, Any]]


def url(base: str, path: str, language: str) -> str:
    return f"{base}/{path}" + ("?lang=ar" if language == "ar" else "")


def context_options(language: str) -> dict[str, Any]:
    """A browser context as an English or an Arabic reader has it (the Arabic one's locale is ar-EG)."""
    return {"viewport": {"width": WIDTH, "height": 1000}, "locale": "ar-EG" if language == "ar" else "en-US"}


def wait_for_page(page: Any, timeout_s: float = 180) -> None:
    """Until the page has drawn its title and its script has finished, every chart drawn and nothing changing
    (bench.app_server.settle: elements arrive in bursts while a page runs, Fill the blank's title came 3 s before its
    style and charts)."""
    page.wait_for_selector("[data-testid='stMainBlockContainer'] h1, .js-plotly-plot", timeout=int(timeout_s * 1000))
    settle(page, timeout_ms=int(timeout_s * 1000))


def as_tall_as_the_page(page: Any) -> None:
    """The window grown to the height of Streamlit's scrolling area, so that axe sees the whole page."""
    page.set_viewport_size({"width": WIDTH, "height": min(page_height(page) + 200, MAX_HEIGHT)})
    settle(page)  # the page may run again for its new height


def run_axe(page: Any) -> dict[str, Any]:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    return Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_21_AA}}).response


def audit_page(browser: Any, base: str, path: str, language: str) -> PageAudit:
    context = browser.new_context(**context_options(language))
    page = context.new_page()
    try:
        page.goto(url(base, path, language))
        wait_for_page(page)
        as_tall_as_the_page(page)
        response = run_axe(page)
        captions = page.evaluate(CAPTION_CONTRAST_JS)
        html = page.evaluate("() => `${document.documentElement.lang} ${document.documentElement.dir || '-'}`")
    finally:
        context.close()
    found = response["violations"]
    return PageAudit(
        path=path or "idea",
        language=language,
        violations={v["id"]: len(v["nodes"]) for v in found if v["impact"] in SERIOUS},
        all_violations={f"{v['id']} ({v['impact']})": len(v["nodes"]) for v in found},
        lowest_caption_contrast=min((c["ratio"] for c in captions), default=21.0),
        captions=len(captions),
        html=html,
        nodes=[
            {"rule": v["id"], "impact": v["impact"], "target": n["target"], "summary": n.get("failureSummary", "")}
            for v in found
            for n in v["nodes"]
        ],
    )


@contextmanager
def app_and_browser(port: int | None, running: str = "") -> Iterator[tuple[str, Any]]:
    """The app (started here on `port`, a free one if None, or the one `running` at that address) and Chromium."""
    from playwright.sync_api import sync_playwright

    from bench.app_server import free_port, launch_chromium, start_server, stop_server, wait_until_healthy
    from bench.warm_browser import WarmBrowser

    port = port or free_port()
    server = None if running else start_server(port)
    try:
        if server is not None:
            wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = WarmBrowser(launch_chromium(p))  # contexts reused, emptied: the app's JavaScript stays cached
            yield running or f"http://127.0.0.1:{port}", browser
            browser.close()
    finally:
        if server is not None:
            stop_server(server)


def axe_version() -> str:
    import re

    import axe_playwright_python  # type: ignore[import-untyped]

    script = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
    found = re.search(r'axe.version="([^"]+)"', script)
    return found.group(1) if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="the app's port (default: a free one)")
    parser.add_argument("--url", default="", help="audit an app already running there (e.g. an older version)")
    parser.add_argument("--json", type=Path, help="also write every violation found to this JSON file")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), help="URL paths ('' is the idea page)")
    parser.add_argument("--keyboard", action="store_true", help="walk each page with Tab instead of running axe")
    args = parser.parse_args()
    if args.keyboard:
        keyboard(args)
        return
    audits = []
    with app_and_browser(args.port, args.url) as (base, browser):
        for language in ("en", "ar"):
            for path in args.pages:
                audits.append(audit_page(browser, base, path, language))
                a = audits[-1]
                print(
                    f"{a.path:12} {a.language}  <html> {a.html:7} serious/critical: {sum(a.violations.values()):3} "
                    f"{a.violations or ''}  all: {a.all_violations or ''}  captions: {a.captions:2}, lowest "
                    f"contrast {a.lowest_caption_contrast:.2f}",
                    flush=True,
                )
    total = sum(sum(a.violations.values()) for a in audits)
    print(f"axe-core {axe_version()}, rules tagged {', '.join(WCAG_21_AA)}; serious or critical nodes in all: {total}")
    if args.json:
        args.json.write_text(json.dumps([a.__dict__ for a in audits], ensure_ascii=False, indent=1))


def keyboard(args: argparse.Namespace) -> None:
    """Per page (English): its Tab stops, how many fall in each chart, and the focus rings' lowest contrast."""
    with app_and_browser(args.port, args.url) as (base, browser):
        for path in args.pages:
            context = browser.new_context(**context_options("en"))
            page = context.new_page()
            page.goto(url(base, path, "en"))
            wait_for_page(page)
            stops = tab_walk(page)
            context.close()
            weak = sorted((s for s in stops if s["contrast"] < 3), key=lambda s: s["contrast"])
            lowest = min((s["contrast"] for s in stops), default=21.0)
            print(
                f"{path or 'idea':12} Tab stops: {len(stops):3}  per chart: {tab_stops_per_chart(stops)}  "
                f"focus contrast lowest {lowest:.2f}, below 3:1: {len(weak)}",
                flush=True,
            )
            for stop in weak[:12]:
                print(
                    f"    {stop['contrast']:.2f}  {stop['tag']} {stop['role'] or ''} {stop['name']!r}  ({stop['how']})"
                )


if __name__ == "__main__":
    main()
