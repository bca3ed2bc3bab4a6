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
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("", "lessons", "similarity", "trainable", "heads", "abstraction", "pairs", "fill_blank", "word_order", "train")
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")
WIDTH = 1400
MAX_HEIGHT = 16_000  # Chromium draws taller windows, but a screenshot past this is rarely useful and slow

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
    nodes: list[dict[str, Any]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def url(base: str, path: str, language: str) -> str:
    return f"{base}/{path}" + ("?lang=ar" if language == "ar" else "")


def context_options(language: str) -> dict[str, Any]:
    """A browser context as an English or an Arabic reader has it (the Arabic one's locale is ar-EG)."""
    return {"viewport": {"width": WIDTH, "height": 1000}, "locale": "ar-EG" if language == "ar" else "en-US"}


def wait_for_page(page: Any) -> None:
    """Until the page has drawn and no element is stale (a rerun's leftovers), and its charts if it has any."""
    page.wait_for_selector("[data-testid='stMainBlockContainer'] h1, .js-plotly-plot", timeout=120_000)
    page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=60_000)
    time.sleep(1.5)
    page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=60_000)


def as_tall_as_the_page(page: Any) -> None:
    """The window grown to the height of Streamlit's scrolling area, so that axe sees the whole page."""
    height = page.evaluate(
        """() => Math.max(document.documentElement.scrollHeight, ...[...document.querySelectorAll(
          '[data-testid="stMain"], [data-testid="stAppScrollToBottomContainer"]')].map(e => e.scrollHeight))"""
    )
    page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 200, MAX_HEIGHT)})
    time.sleep(1.0)
    page.wait_for_function("document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=60_000)


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
        nodes=[
            {"rule": v["id"], "impact": v["impact"], "target": n["target"], "summary": n.get("failureSummary", "")}
            for v in found
            for n in v["nodes"]
        ],
    )


@contextmanager
def app_and_browser(port: int) -> Iterator[tuple[str, Any]]:
    from playwright.sync_api import sync_playwright

    from bench.app_server import FLAGS, start_server, stop_server, wait_until_healthy

    server = start_server(port)
    try:
        wait_until_healthy(port, server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True, args=FLAGS)
            yield f"http://127.0.0.1:{port}", browser
            browser.close()
    finally:
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
    parser.add_argument("--json", type=Path, help="also write every violation found to this JSON file")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), help="URL paths ('' is the idea page)")
    args = parser.parse_args()
    audits = []
    with app_and_browser(args.port or free_port()) as (base, browser):
        for language in ("en", "ar"):
            for path in args.pages:
                audits.append(audit_page(browser, base, path, language))
                a = audits[-1]
                print(
                    f"{a.path:12} {a.language}  serious/critical: {sum(a.violations.values()):3} "
                    f"{a.violations or ''}  all: {a.all_violations or ''}  captions: {a.captions:2}, lowest "
                    f"contrast {a.lowest_caption_contrast:.2f}",
                    flush=True,
                )
    total = sum(sum(a.violations.values()) for a in audits)
    print(f"axe-core {axe_version()}, rules tagged {', '.join(WCAG_21_AA)}; serious or critical nodes in all: {total}")
    if args.json:
        args.json.write_text(json.dumps([a.__dict__ for a in audits], ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
