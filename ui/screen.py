"""The screen this session's figures are drawn for: the window's width (told by the browser), presentation mode
and the reading direction, as one attention_core.figures.screen.Screen.

A small component (st.components.v2: its script runs in the app's page) reports window.innerWidth and
innerHeight once, and again when a resize moves the width by more than a twentieth or across a phone's width.
Before it has reported, the width is guessed from the browser's User-Agent ("Mobile": a 390-px phone, else a
1400-px desktop); the script is told the width in use and reports nothing when the guess was right, so a correct
guess costs no rerun.
"""

from __future__ import annotations

import streamlit as st

from attention_core.figures.screen import PHONE_PX, Screen
from ui.i18n import right_to_left
from ui.style import PRESENTATION_KEY

PHONE_GUESS, DESKTOP_GUESS = (390.0, 844.0), (1400.0, 900.0)
_KEY = "screen_size"  # the component's key
_SIZE = "screen_reported"  # session key: the size the browser reported last, {"width": …, "height": …}

_JS = """
export default function(component) {
  const { data, setStateValue } = component;
  const told = (data && data.width) || 0;
  const away = (width) => Math.abs(width - told) > told / 20 || (width < data.phone) !== (told < data.phone);
  const report = () => {
    if (away(window.innerWidth)) {
      setStateValue('size', {width: window.innerWidth, height: window.innerHeight});
    }
  };
  report();
  let timer = null;
  const resized = () => { clearTimeout(timer); timer = setTimeout(report, 250); };
  window.addEventListener('resize', resized);
  return () => { clearTimeout(timer); window.removeEventListener('resize', resized); };
}
"""
_component = st.components.v2.component("attention_screen_size", js=_JS)


def phone_browser() -> bool:
    """Whether the browser is a phone's (its User-Agent names "Mobile", as phones' browsers do): what depends on the
    device, such as painting a first heatmap as a picture while Plotly's code loads. What depends on the window's
    width (a figure's layout) reads current_screen().phone instead: a narrow desktop window is no slow phone."""
    return "Mobile" in (st.context.headers.get("User-Agent", "") if st.context.headers else "")


def guessed_size() -> tuple[float, float]:
    """The window a browser probably has, from its User-Agent: a phone's says "Mobile"."""
    return PHONE_GUESS if phone_browser() else DESKTOP_GUESS


def _reported() -> None:
    """The component's callback: the new size is read where it is mounted (report_screen)."""


def report_screen() -> None:
    """Mount the reporting component (once per run, at the sidebar's end: it draws nothing)."""
    reported = st.session_state.get(_SIZE)
    width = reported["width"] if reported else guessed_size()[0]
    with st.sidebar:
        result = _component(key=_KEY, data={"width": width, "phone": PHONE_PX}, on_size_change=_reported)
    size = result.get("size") if result else None
    if size and size != reported:
        st.session_state[_SIZE] = size


def current_screen() -> Screen:
    """The screen of this session: the reported window (else the guess), presentation mode, the direction."""
    reported = st.session_state.get(_SIZE)
    width, height = (float(reported["width"]), float(reported["height"])) if reported else guessed_size()
    return Screen(
        width=width,
        height=height,
        presentation=bool(st.session_state.get(PRESENTATION_KEY)),
        right_to_left=right_to_left(),
    )
