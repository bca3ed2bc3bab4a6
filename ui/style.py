"""How the app looks: text that finds its own direction, and a presentation mode with larger type for a projector.

The CSS here is fixed text (no user input ever goes into it)."""

from __future__ import annotations

import streamlit as st

from attention_core.figures.query_key_map import WIDE_LABELS_CSS
from ui.browser_memory import forget, recalled, remember
from ui.i18n import _

PRESENTATION_KEY = "presentation"
PRESENTATION_COOKIE = "ae_presentation"  # the projector's browser keeps it (ui/browser_memory.py)

# Inputs and plain-text blocks take their direction from their first strong letter, so an Arabic sentence reads
# right to left (and "[MASK]" stays where it was typed) while English stays left to right.
_BIDI_CSS = """
<style>
input[type="text"], textarea, [data-testid="stText"], [data-testid="stTable"] td { unicode-bidi: plaintext; }
[data-testid="stTextInput"] { position: relative; }
[data-testid="stTextInput"] div:has(> [data-testid="InputInstructions"]) {
  position: absolute !important; top: 100% !important; bottom: auto !important; right: 0 !important; z-index: 1;
}
[data-testid="stTextInput"] [data-testid="InputInstructions"] { position: static !important; padding: 1px 4px 0; }
[data-testid="stButtonGroup"] button { height: auto !important; }
[data-testid="stButtonGroup"] button * { white-space: normal !important; text-overflow: clip !important; }
@media (max-width: 640px) { .modebar-container { display: none !important; } }
[data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.82; }
:is([data-testid="stCheckbox"], button) :is(.stMarkdownEllipsis, .stMarkdownEllipsis p) {
  white-space: normal !important; text-overflow: clip !important;
}
[data-testid="stRadioOption"] > div { align-items: flex-start; }
[data-testid="stRadioOption"] > div > div:first-child { margin-top: calc((1.6 * var(--radio-text, 1rem) - 1rem) / 2); }
[data-testid="stSidebar"] [data-testid="stRadioOption"] { --radio-text: 0.875rem; }
.st-key-live_class_code h2, .st-key-live_class_count h2 { font-size: 4rem !important; line-height: 1.1; padding: 0; }
.st-key-live_class_code h2 { letter-spacing: 0.12em; white-space: nowrap; }
:is(.st-key-live_class_code, .st-key-live_class_count) [data-testid="stHeaderActionElements"] { display: none; }
.st-key-phone_menu { display: none !important; }
</style>
"""
# (The next rules move "Press Enter to apply · 31/6000" just below the sentence box: inside it, it covered the end
# of the line, where an Arabic sentence begins. It floats there, taking no room: had it pushed the page down while
# the box has focus, the page would jump back on the first click elsewhere, and that click would miss. The last
# two rules let a long example chip wrap instead of ending in "…". On a phone, Plotly's toolbar goes: it sat over the
# figures' titles, and a phone zooms with two fingers. Captions take the text's own colour, a little faded:
# Streamlit's grey (#828180 on white, contrast 3.88) is below the 4.5 that axe-core asks of small text, and the
# captions here carry the numbers a student reads. A switch's or a button's label wraps instead of ending in "…":
# presentation mode's larger type cut «ابدأ تدريبًا ج…» (Start a new run) and «softmax على كل …» (Softmax each row) in
# their columns at 1280 × 720. A radio button sits on the first line of its label, not between the lines of a label
# that wraps (Streamlit centres it): its top margin centres the 1rem ring on a first line of 1.6 × the label's size
# (--radio-text: 1rem in the page, 0.875rem in the sidebar, 1.15rem in presentation mode). A live class's code and
# count of answers (ui/live_class/teacher.py) are read from the back of the room: large, the code's letters spaced.)

# In a right-to-left browser (an Arabic locale) Streamlit's slider (react-aria) mirrors its thumb and its pointer:
# the smallest value sits on the right. Its two end labels are not mirrored, so clicking next to "10" set 1. The
# end labels are turned round to match, and the slider reads right to left as an Arabic reader expects. Its coloured
# fill (a gradient from the left edge to the value's share of the track) is turned round too: it ran from the left
# and stopped short of the mirrored thumb.
RTL_LANGUAGES = frozenset({"ar", "arc", "ckb", "dv", "fa", "he", "ku", "ps", "sd", "ug", "ur", "yi"})  # react-aria's
_RTL_BROWSER_CSS = """
<style>
[data-testid="stSliderTickBar"] { flex-direction: row-reverse; }
[data-testid="stSlider"] [role="group"] > [data-orientation="horizontal"] > div:first-child { transform: scaleX(-1); }
</style>
"""
# An Arabic interface reads right to left, the whole page: text, lists, the columns of controls (flex rows follow the
# direction), tables, the sidebar's content. Formulas stay left to right inside it (KaTeX), and so do the figures:
# each heatmap already lays out an Arabic sentence right to left and keeps an English one left to right. Arabic
# letters in the interface use the heatmaps' font (Noto Naskh Arabic), after Streamlit's own for Latin letters. A
# slider's track and end labels keep the browser's own direction (react-aria mirrors a slider by the browser's
# locale, and the rule above turns its end labels to match): the page's direction would turn the labels once more,
# and clicking next to "10" set 1. A toggle's track stays left to right: its knob moves by a fixed offset to the
# right, and in a right-to-left track it started on the right and left the track when switched on (presentation
# mode's switch looked empty). A progress bar fills from the right (Streamlit slides its bar in from the left,
# whatever the direction). Plain text (a lesson card's sentence) lines up on the right like the rest of the page:
# an English sentence there took the left (its own direction, unicode-bidi: plaintext) in a card read from the right.
# Plotly's hidden node that measures text (#js-plotly-tester) stays left to right too: measured right to left, an
# Arabic tick label (ط1) got too narrow a margin and was cut at the chart's edge.
_RTL_INTERFACE_CSS = """
<style>
[data-testid="stMain"], [data-testid="stSidebarContent"] { direction: rtl; }
[data-testid="stMarkdownContainer"], [data-testid="stWidgetLabel"], [data-testid="stCaptionContainer"], h1, h2, h3,
button, [data-baseweb="select"], [data-testid="stAlertContainer"] {
  font-family: "Source Sans", "Source Sans Pro", "Noto Naskh Arabic", "Noto Sans Arabic", sans-serif;
}
[data-testid="stMain"] :is(p, li, h1, h2, h3, h4, label, [data-testid="stCaptionContainer"]),
[data-testid="stSidebarContent"] :is(p, li, label) { text-align: start; }
.katex-display, .katex, [data-testid="stPlotlyChart"], .js-plotly-plot, #js-plotly-tester { direction: ltr; }
[data-testid="stSlider"] [role="group"] { direction: ltr; }
[data-testid="stCheckbox"] label > div:not([data-testid]) { direction: ltr; }
[data-testid="stProgressBarTrack"] { transform: scaleX(-1); }
[data-testid="stMain"] [data-testid="stText"] { text-align: right; }
</style>
"""
# Presentation mode: larger type everywhere, the sentence a student types too (it stayed at 19 px under 25-px text);
# a box's hint keeps its size (the Train page's probe hint was cut at 25 px in half the page).
_PRESENTATION_CSS = """
<style>
html { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; }
h1 { font-size: 2.6rem !important; }
[data-testid="stSidebarNavLink"] { height: auto !important; }
[data-testid="stSidebarNavLink"] [data-testid="stMarkdownContainer"],
[data-testid="stSidebarNavLink"] p { white-space: normal !important; text-overflow: clip !important; line-height: 1.3; }
[data-testid="stTextInput"] input, [data-testid="stTextArea"] textarea { font-size: 1.15rem !important; }
[data-testid="stTextInput"] input::placeholder { font-size: 0.875rem; }
[data-testid="stRadioOption"], [data-testid="stSidebar"] [data-testid="stRadioOption"] { --radio-text: 1.15rem; }
.st-key-live_class_code h2, .st-key-live_class_count h2 { font-size: 4.2rem !important; }
</style>
"""


def presentation_toggle() -> bool:
    """The sidebar switch. Presentation mode is the projector's setting, never a link's: the switch is not bound to
    the URL, so a link copied from the projector opens on a phone in a phone's type, and a link that still names it
    (shared before this rule) has the parameter dropped. The value lives in the session under PRESENTATION_KEY (the
    switch's own key, drawn in the app's frame on every page), so it stays on while the teacher moves between pages,
    and in this browser's memory (a cookie), so a reload or a new tab of the projector opens in it too."""
    if PRESENTATION_KEY in st.query_params:
        del st.query_params[PRESENTATION_KEY]
    if PRESENTATION_KEY not in st.session_state and recalled(PRESENTATION_COOKIE) == "on":
        st.session_state[PRESENTATION_KEY] = True  # a reload of the projector's page, or its new tab: still on
    return st.sidebar.toggle(
        _("Presentation mode"),
        key=PRESENTATION_KEY,
        help=_("Larger text and figures, for a projector."),
        on_change=_remember_presentation,
    )


def _remember_presentation() -> None:
    """The browser keeps presentation mode (a cookie, never a link), so a reload or a new tab opens in it."""
    if st.session_state.get(PRESENTATION_KEY):
        remember(PRESENTATION_COOKIE, "on")
    else:
        forget(PRESENTATION_COOKIE)


def browser_reads_right_to_left(locale: str | None) -> bool:
    """Whether the browser's language (st.context.locale, e.g. "ar-EG") is written right to left."""
    return (locale or "").split("-")[0].lower() in RTL_LANGUAGES


def apply_style(presentation: bool, *, right_to_left: bool = False) -> None:
    """The page's CSS: text that finds its own direction, a right-to-left browser's sliders, an interface that reads
    right to left (Arabic), presentation mode's larger type, and the query–key map's wide-screen labels shown only
    in a wide chart."""
    rtl_browser = browser_reads_right_to_left(st.context.locale)
    st.html(
        _BIDI_CSS
        + WIDE_LABELS_CSS
        + (_RTL_BROWSER_CSS if rtl_browser else "")
        + (_RTL_INTERFACE_CSS if right_to_left else "")
        + (_PRESENTATION_CSS if presentation else "")
    )
