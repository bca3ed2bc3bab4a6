"""How the app looks: text that finds its own direction, and a presentation mode with larger type for a projector.

The CSS here is fixed text (no user input ever goes into it)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

PRESENTATION_KEY = "presentation"
PRESENTATION_SCALE = 1.4  # figure fonts and heights grow by this much on a projector

# Inputs and plain-text blocks take their direction from their first strong letter, so an Arabic sentence reads
# right to left (and "[MASK]" stays where it was typed) while English stays left to right.
_BIDI_CSS = """
<style>
input[type="text"], textarea, [data-testid="stText"], [data-testid="stTable"] td { unicode-bidi: plaintext; }
</style>
"""
_PRESENTATION_CSS = """
<style>
html { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; }
h1 { font-size: 2.6rem !important; }
</style>
"""


def presentation_toggle() -> bool:
    """The sidebar switch (bound to the URL, so a teacher's link opens in presentation mode)."""
    return st.sidebar.toggle(
        "Presentation mode", key=PRESENTATION_KEY, bind="query-params",
        help="Larger text and figures, for a projector.",
    )  # fmt: skip


def apply_style(presentation: bool) -> None:
    st.html(_BIDI_CSS + (_PRESENTATION_CSS if presentation else ""))


def for_projector(figure: go.Figure) -> go.Figure:
    """A copy of the figure with every font and the height scaled up, when presentation mode is on."""
    if not st.session_state.get(PRESENTATION_KEY):
        return figure
    bigger = go.Figure(figure)
    layout = bigger.layout
    bigger.update_layout(font_size=round((layout.font.size or 14) * PRESENTATION_SCALE))
    for axis in (layout.xaxis, layout.yaxis):
        if axis.tickfont and axis.tickfont.size:
            axis.tickfont.size = round(axis.tickfont.size * PRESENTATION_SCALE)
    if layout.height:
        bigger.update_layout(height=round(layout.height * PRESENTATION_SCALE))
    for trace in bigger.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = round(trace.textfont.size * PRESENTATION_SCALE)
    return bigger
