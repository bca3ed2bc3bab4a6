"""A page on a slow phone, drawn in steps: the chart code loaded as the page opens, the first heatmap before the
rest, and a quiz's answer before the page below it.

A phone at a quarter of a laptop's speed spends most of a page's wait in the browser, not the server: loading
Plotly's code (a 4.7 MB chunk of Streamlit's frontend, fetched when the first chart is drawn) and drawing every
chart of the run in one go before anything is painted (docs/speed.md, bench/phone_speed.py). Two small scripts
(st.components.v2, run in the app's page; they draw nothing) take that apart.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

# Plotly's chunk, as the frontend names it: importing the same file makes the frontend's own import find it loaded.
_PLOTLY_CHUNK = next((p.name for p in (Path(st.__file__).parent / "static/static/js").glob("PlotlyChart.*.js")), "")
_PRELOAD_JS = r"""
export default function(component) {
  const { data } = component;
  const main = [...document.querySelectorAll('script[type=module][src]')].find(s => /\/index\.[^/]*\.js$/.test(s.src));
  if (!main || !data.chunk) return;
  const load = () => import(new URL(data.chunk, main.src).href).catch(() => {});
  const started = performance.now();
  const wait = () => {  // after: the element to be drawn first (a quiz's box), for at most 5 s
    if (!data.after || document.querySelector(data.after) || performance.now() - started > 5000) setTimeout(load, 100);
    else requestAnimationFrame(wait);
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
  const drawn = () => document.querySelector(`${data.chart} .heatmaplayer`) !== null;
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


def preload_charts(page: str, *, after: str = "") -> None:
    """Start loading the browser's chart code now, before the page's first chart asks for it; after: a CSS selector
    of what to draw first (a quiz's box to answer in), which the load waits for."""
    if _PLOTLY_CHUNK:
        _plotly_preloader(key=f"{page}_preload_charts", data={"chunk": _PLOTLY_CHUNK, "after": after})


def when_drawn(key: str, chart: str, flag: str) -> None:
    """Once the browser has drawn the heatmap that the CSS selector `chart` finds, the session's `flag` is set and
    the script reruns (the fragment's, when mounted in one)."""
    _when_drawn(key=key, data={"chart": chart}, on_drawn_change=lambda: st.session_state.update({flag: True}))


def on_phone() -> bool:
    """Whether the browser says it is a phone (its User-Agent names "Mobile", as phones' browsers do)."""
    return "Mobile" in (st.context.headers.get("User-Agent", "") if st.context.headers else "")


def _first_heatmap_drawn(page: str) -> str:
    return f"first_heatmap_drawn_{page}"  # not the page's prefix: a lesson's clean start clears those


def first_heatmap_drawn(page: str) -> None:
    """The page has painted a heatmap already (a quiz's answer): its next run draws the whole page."""
    st.session_state[_first_heatmap_drawn(page)] = True


def rest_after_first_heatmap(page: str) -> None:
    """Called after the page's first heatmap. On a phone's first view of the page in a session, the run stops
    here; once the browser has painted that heatmap, the page reruns whole. Elsewhere, or later, nothing."""
    drawn = _first_heatmap_drawn(page)
    if st.session_state.get(drawn) or not on_phone():
        return
    when_drawn(f"first_heatmap_{page}", ".js-plotly-plot", drawn)
    st.stop()
