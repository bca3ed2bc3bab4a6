"""A page on a slow phone, drawn in steps: its first heatmap as a picture before the chart code has loaded, the rest
of the page once that picture is painted (the charts then interactive), and a quiz's answer before the page below.

A phone at a quarter of a laptop's speed spends most of a page's wait in the browser, not the server: loading
Plotly's code (a 4.7 MB chunk of Streamlit's frontend, fetched when the first chart is drawn) and drawing every
chart of the run in one go before anything is painted (docs/speed.md, bench/phone_speed.py). Two small scripts
(st.components.v2, run in the app's page; they draw nothing) take that apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import streamlit as st

from ui.screen import phone_browser

# Plotly's chunk, as the frontend names it: importing the same file makes the frontend's own import find it loaded.
_PLOTLY_CHUNK = next((p.name for p in (Path(st.__file__).parent / "static/static/js").glob("PlotlyChart.*.js")), "")
_PRELOAD_JS = r"""
export default function(component) {
  const { data } = component;
  const main = [...document.querySelectorAll('script[type=module][src]')].find(s => /\/index\.[^/]*\.js$/.test(s.src));
  if (!main || !data.chunk) return;
  const load = () => import(new URL(data.chunk, main.src).href).catch(() => {});
  const started = performance.now();
  const ready = () => {  // the element is there and, when a picture, decoded
    const element = document.querySelector(data.after);
    return element && (element.tagName !== 'IMG' || (element.complete && element.naturalWidth > 0));
  };
  const wait = () => {  // after: what to draw first (a quiz's box, a first heatmap's picture), for at most 5 s
    if (!data.after || ready() || performance.now() - started > 5000) {
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(load, 100)));  // once it is painted
    } else requestAnimationFrame(wait);
  };
  wait();
}
"""
_plotly_preloader = st.components.v2.component("attention_plotly_preloader", js=_PRELOAD_JS)

# Once a heatmap matching data.chart has been drawn (or after 3 s), one frame later (it is painted), a trigger.
_DRAWN_JS = """
export default function(component) {
  const { data, setTriggerValue } = component;
  const started = performance.now();
  let frame = 0, fired = false;
  const drawn = () => {  // exact: the element itself, decoded when a picture; else a chart's heatmap layer in it
    const found = document.querySelector(data.exact ? data.chart : `${data.chart} .heatmaplayer`);
    return found !== null && (found.tagName !== 'IMG' || (found.complete && found.naturalWidth > 0));
  };
  const wait = () => {
    if (fired) return;
    if (drawn() || performance.now() - started > 3000) {
      frame = requestAnimationFrame(() => { fired = true; setTriggerValue('drawn', true); });
    } else {
      frame = requestAnimationFrame(wait);
    }
  };
  frame = requestAnimationFrame(wait);
  return () => { fired = true; cancelAnimationFrame(frame); };
}
"""
_when_drawn = st.components.v2.component("attention_when_drawn", js=_DRAWN_JS)


# The first heatmap's picture (figures/first_paint.py) in its container, once the browser has it; or, where no
# picture could be made, the chart itself drawn.
FIRST_PAINT = "[class*='st-key-first_paint_'] img"
_FIRST_PAINT_DRAWN = f"{FIRST_PAINT}, .js-plotly-plot .heatmaplayer"
# The page whose first heatmap is being drawn as a picture in this run, if any (a thread's own: Streamlit runs each
# session's script on a thread of its own).
_painting_first: ContextVar[str | None] = ContextVar("painting_first", default=None)


def preload_charts(page: str, *, after: str = "") -> None:
    """Start loading the browser's chart code now, before the page's first chart asks for it; after: a CSS selector
    of what to draw first (a quiz's box to answer in), which the load waits for. On a phone's first view, the first
    heatmap's picture comes first: evaluating the chart code holds a slow phone's every other drawing for seconds."""
    if not after and _first_view_on_phone(page):
        after = FIRST_PAINT
    if _PLOTLY_CHUNK:
        _plotly_preloader(key=f"{page}_preload_charts", data={"chunk": _PLOTLY_CHUNK, "after": after})


def when_drawn(key: str, chart: str, flag: str, *, exact: bool = False) -> None:
    """Once the browser has drawn the heatmap that the CSS selector `chart` finds (exact: the element `chart` itself
    found), the session's `flag` is set and the script reruns (the fragment's, when mounted in one)."""
    _when_drawn(
        key=key, data={"chart": chart, "exact": exact}, on_drawn_change=lambda: st.session_state.update({flag: True})
    )


def _first_heatmap_drawn(page: str) -> str:
    return f"first_heatmap_drawn_{page}"  # not the page's prefix: a lesson's clean start clears those


def first_heatmap_drawn(page: str) -> None:
    """The page has painted a heatmap already (a quiz's answer): its next run draws the whole page."""
    st.session_state[_first_heatmap_drawn(page)] = True


def _first_view_on_phone(page: str) -> bool:
    return phone_browser() and not st.session_state.get(_first_heatmap_drawn(page))


def painting_first() -> bool:
    """Whether the chart being drawn is a phone's first heatmap of the page, to be drawn as a picture (ui/show.py)."""
    return _painting_first.get() is not None


@contextmanager
def first_heatmap(page: str) -> Iterator[None]:
    """Around the page's first heatmap. On a phone's first view of the page in a session, its charts are drawn as
    pictures (figures/first_paint.py) and the run stops after them; once the browser has painted the picture, the
    page reruns whole, the interactive chart in the picture's place. Elsewhere, or later, the charts as usual."""
    first_view = _first_view_on_phone(page)
    token = _painting_first.set(page if first_view else None)
    try:
        yield
    finally:
        _painting_first.reset(token)
    if first_view:
        when_drawn(f"first_heatmap_{page}", _FIRST_PAINT_DRAWN, _first_heatmap_drawn(page), exact=True)
        st.stop()
