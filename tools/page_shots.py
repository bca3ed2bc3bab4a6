"""Screenshots of every page at the three screen sizes a class uses, in English and Arabic, and a comparison of two
such sets: the check that a change of structure left what users see unchanged (issue 36).

    python -m tools.page_shots shoot OUT_DIR [--root DIR] [--port 8641]
    python -m tools.page_shots compare BEFORE_DIR AFTER_DIR

`shoot` starts `streamlit run app.py` in --root (default: this checkout), opens every page of the app's page
registry (ui/page_registry.py) on a 390 × 844 phone, a 1280 × 720 projector in presentation mode and a 1400 × 900
desktop (bench/figure_overlaps.SIZES), once in English and once with `?lang=ar`, waits until the page has settled
(no script running, every chart laid out, the DOM quiet), and writes PAGE-SIZE-LANG.png (the whole page: the window
is made as tall as it) and PAGE-SIZE-LANG.txt (the page's visible text). `compare` prints, per shot, whether the
texts are equal and the share of pixels that differ, and exits 1 when a text differs or a shot is missing.
"""

from __future__ import annotations

import argparse
import sys
import urllib.parse
from pathlib import Path

from bench.app_server import (
    MAX_HEIGHT,
    free_port,
    launch_chromium,
    page_height,
    settle,
    start_server,
    stop_server,
    wait_until_healthy,
)
from bench.figure_overlaps import SIZES, Size, size_context, switch_presentation_on
from ui.page_registry import PAGES

LANGUAGES = ("en", "ar")


def shoot_page(browser: object, base: str, path: str, size: Size, language: str, out: Path) -> None:
    """One page at one size in one language: its screenshot and its visible text."""
    context = size_context(browser, size)
    page = context.new_page()
    query = urllib.parse.urlencode({"lang": "ar"} if language == "ar" else {})
    page.goto(f"{base}/{path}" + (f"?{query}" if query else ""))
    page.wait_for_selector("[data-testid=stSidebar]", state="attached", timeout=120_000)
    settle(page)
    if size.presentation:
        switch_presentation_on(page, language)
    # The whole page, not the window: Streamlit scrolls inside its main area, so the window is made as tall as it.
    # A taller window can lay the page out again (charts fitted to it, a phone's first picture replaced), so the
    # height is measured again until it holds.
    height = 0
    for _ in range(4):
        measured = min(page_height(page) + 100, MAX_HEIGHT)
        if measured == height:
            break
        height = measured
        page.set_viewport_size({"width": size.width, "height": height})
        settle(page)
    name = f"{path or 'start'}-{size.name}-{language}"
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)
    (out / f"{name}.txt").write_text(page.locator("[data-testid=stMain]").inner_text(), encoding="utf-8")
    context.close()


def shoot(out: Path, root: Path, port: int) -> int:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    server = start_server(port, root=root)
    try:
        wait_until_healthy(port, server)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = launch_chromium(p)
            for page in PAGES:
                for size in SIZES:
                    for language in LANGUAGES:
                        shoot_page(browser, base, page.url_path, size, language, out)
                        print(f"{page.url_path or 'start':12} {size.name:9} {language}", flush=True)
            browser.close()
    finally:
        stop_server(server)
    return 0


def differing_share(before: Path, after: Path) -> float:
    """The share of pixels that differ between two screenshots (1.0 when their sizes differ)."""
    from PIL import Image, ImageChops

    with Image.open(before) as a, Image.open(after) as b:
        if a.size != b.size:
            return 1.0
        difference = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
        changed = sum(difference.point(lambda v: 255 if v > 16 else 0).histogram()[255:])
        return changed / (a.size[0] * a.size[1])


def compare(before: Path, after: Path) -> int:
    failed = 0
    for shot in sorted(before.glob("*.png")):
        other = after / shot.name
        if not other.exists():
            print(f"{shot.stem:34} missing after")
            failed += 1
            continue
        same_text = shot.with_suffix(".txt").read_text(encoding="utf-8") == other.with_suffix(".txt").read_text(
            encoding="utf-8"
        )
        share = differing_share(shot, other)
        failed += not same_text
        print(f"{shot.stem:34} text {'same' if same_text else 'DIFFERS'}  pixels differing {share:7.3%}")
    print(f"{failed} shot(s) with a different text or missing")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    shoot_args = commands.add_parser("shoot")
    shoot_args.add_argument("out", type=Path)
    shoot_args.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout whose app.py is run")
    shoot_args.add_argument("--port", type=int, default=0, help="a free port (default: the system's pick)")
    compare_args = commands.add_parser("compare")
    compare_args.add_argument("before", type=Path)
    compare_args.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "shoot":
        return shoot(args.out, args.root.resolve(), args.port or free_port())
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
