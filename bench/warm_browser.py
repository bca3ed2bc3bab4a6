"""Chromium whose browser contexts are reused, emptied, from one user to the next: what the browser tests and the
walks that open many pages (bench/figure_overlaps.py, tools/accessibility_audit.py) open their pages in.

Each page of a new context starts a new renderer process, which compiles the app's JavaScript (Streamlit's and
Plotly's, about 5 MB) again: half of a page load's CPU (measured, 8 page loads: 40 CPU-seconds in new contexts, 25 in
warm ones). So a context handed back is kept, emptied, with one page left open on the app's health URL: Chromium
(launched with --process-per-site, bench/app_server.FLAGS) puts the next page of the same site in that page's
process, whose code is compiled already. Emptied: every other page closed (their app sessions end), cookies,
localStorage and IndexedDB cleared (set_storage_state): the app meets a new visitor, whose browser has the app's
files cached as any returning visitor's has. A test sets a page's own things (init scripts, routes) on the page,
never on the context, so nothing of it outlives the page. The benchmarks of a first visit (bench/phone_speed.py and
the like) launch their own cold contexts.

    warm = WarmBrowser(launch_chromium(playwright))
    context = warm.new_context(viewport=…, locale="ar")   # as Browser.new_context; context.close() hands it back
    page = warm.new_page(viewport=…)                       # as Browser.new_page; handed back by release()
    warm.release()                                         # every context lent since, handed back
"""

from __future__ import annotations

import contextlib
import json
import urllib.parse
from typing import Any

from bench.script_runs import watch_runs

EMPTY_STORAGE: dict[str, list[Any]] = {"cookies": [], "origins": []}
KEEPER_PATH = "/_stcore/health"  # the page kept open in an idle context: the app's smallest (the text "ok")
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}  # Playwright's, for a context opened without one


class LentContext:
    """A context of the pool, as Playwright's BrowserContext (every other attribute is the context's own): its pages
    open at the viewport it was asked for, and close() hands it back to the pool instead of destroying it."""

    def __init__(self, pool: WarmBrowser, key: str, context: Any, viewport: dict[str, int], keeper: Any) -> None:
        self._pool, self._key, self._context, self._viewport = pool, key, context, viewport
        self._keeper = keeper  # the page kept open between lendings (None until the first hand-back)
        self._origin: str | None = None  # the first site its pages opened: where the kept page goes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def new_page(self) -> Any:
        page = self._context.new_page()
        page.set_viewport_size(self._viewport)
        watch_runs(page)  # from its creation: bench.app_server.redrawn counts its runs
        page.on("framenavigated", lambda frame: self._note_origin(frame.url))
        return page

    @property
    def pages(self) -> list[Any]:
        return [page for page in self._context.pages if page is not self._keeper]

    def close(self) -> None:
        self._pool.hand_back(self)

    def _note_origin(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("http", "https") and self._origin is None:
            self._origin = f"{parts.scheme}://{parts.netloc}"

    def empty(self) -> bool:
        """Kept warm and emptied (see the module's docstring); False when the context was closed meanwhile."""
        try:
            if (self._keeper is None or self._keeper.is_closed()) and self._origin is not None:
                self._keeper = self._context.new_page()  # opened first: the process lives on
                self._keeper.goto(self._origin + KEEPER_PATH)
            for page in self.pages:
                page.close()
            self._context.set_storage_state(EMPTY_STORAGE)
        except Exception:  # the context (or the whole browser) is gone: nothing to keep
            return False
        return True


class WarmBrowser:
    """Chromium with a pool of contexts by their options but the viewport (locale, touch, pixel ratio…; a page's
    viewport is the page's own): new_context and new_page as Playwright's Browser has them, from the pool when it
    holds a context with the same options."""

    def __init__(self, chromium: Any, keep: int = 12) -> None:
        self.chromium = chromium
        self._keep = keep  # idle contexts kept per set of options (ten sessions at once need ten)
        self._idle: dict[str, list[tuple[Any, Any]]] = {}  # options → [(context, its kept page)]
        self._lent: list[LentContext] = []

    def new_context(self, **options: Any) -> LentContext:
        viewport = options.pop("viewport", None) or DEFAULT_VIEWPORT
        key = json.dumps(options, sort_keys=True, default=str)
        idle = self._idle.setdefault(key, [])
        context, keeper = idle.pop() if idle else (self.chromium.new_context(viewport=viewport, **options), None)
        lent = LentContext(self, key, context, viewport, keeper)
        self._lent.append(lent)
        return lent

    def new_page(self, **options: Any) -> Any:
        """A page in a context of its own (as Browser.new_page); after page.close() the context stays lent until
        release()."""
        return self.new_context(**options).new_page()

    def hand_back(self, lent: LentContext) -> None:
        if lent not in self._lent:  # handed back already (closed by its test, then released)
            return
        self._lent.remove(lent)
        idle = self._idle.setdefault(lent._key, [])
        if lent.empty() and len(idle) < self._keep:
            idle.append((lent._context, lent._keeper))
        else:
            with contextlib.suppress(Exception):  # closed already, with the browser perhaps
                lent._context.close()

    def release(self) -> None:
        """Every context lent since the last release handed back (a test's end: tests/conftest.py)."""
        for lent in list(self._lent):
            self.hand_back(lent)

    def close(self) -> None:
        self.release()
        self.chromium.close()
