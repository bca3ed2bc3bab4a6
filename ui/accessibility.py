"""What a keyboard, a screen reader or low vision needs of every page (WCAG 2.1 AA; docs/accessibility.md).

- The page's language and direction on <html> (3.1.1): lang="ar" dir="rtl" in Arabic, so a screen reader reads it
  with an Arabic voice. Streamlit writes <html lang="en"> itself; a small component sets both from the session.
- A visible focus on every control (2.4.7, 1.4.11: at least 3:1 against the page): Streamlit's own rings are
  missing on sidebar links, radios, switches and pills (386 stops without a ring on ten pages).
- Focus moved to new content after an action that draws it (Reveal, a lesson opened, Start): `focus_here`.
- Every heatmap described in words for a screen reader, and as a table on request (1.1.1): `describe_figure`.
- A formula wider than its column scrolls: it is made focusable, so a keyboard can scroll it (2.1.1).
- The segmented control's chosen option in a red that reads at 4.5:1 on its pale red (Streamlit's: 4.47).

The CSS and JavaScript here are fixed text: no user input goes into them (a description's words are escaped).
"""

from __future__ import annotations

import html

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention_core.figures.text_alternative import MAX_ROWS, as_table, panels, plain_title, text_alternative
from ui.i18n import N_, _, language, right_to_left
from ui.markdown import plain

FOCUS_LIGHT, FOCUS_DARK = "#0b57d0", "#8ab4f8"  # 6.4:1 on white, 5.7:1 on the sidebar's grey; 9.0:1 on dark
CHOSEN_RED = "#b3303e"  # the segmented control's chosen option: 5.3:1 on its pale red (Streamlit's #c53948: 4.47)
TABLE_CELLS = 2_500  # a bigger matrix is shown as a scrolling data frame rather than an HTML table

# <html dir="rtl"> tells a screen reader and the browser the page's direction; the layout stays the one ui/style.py
# sets (its right-to-left rules on the main area and the sidebar's content): with the whole document right to left,
# Streamlit's sidebar, collapsed on a phone, lay over the page's left edge. Then the focus ring: on the control
# itself, or on the label or box of a control whose input Streamlit hides (radios, switches, checkboxes, selects,
# text boxes; a slider's thumb). Offset, so the ring lies on the page's background.
_FOCUS_CSS = """
<style>
html { --a11y-focus: %(light)s; }
html[data-a11y-theme="dark"] { --a11y-focus: %(dark)s; }
:is(a, button, summary, [role="slider"], [role="tab"], [role="radio"], [role="switch"], [role="checkbox"],
  [role="option"], [tabindex]):focus-visible,
label:has(> input:focus-visible), label:has(input[type="radio"]:focus-visible),
label:has(input[type="checkbox"]:focus-visible),
[data-baseweb="select"] > div:has(input:focus-visible),
[data-baseweb="input"]:has(input:focus-visible), [data-testid="stTextAreaRootElement"]:has(textarea:focus-visible),
[data-testid="stFileUploaderDropzone"]:focus-within, div:has(> div > input[type="range"]:focus-visible) {
  outline: 3px solid var(--a11y-focus) !important; outline-offset: 2px !important;
}
[data-baseweb="input"] input:focus-visible, [data-testid="stTextAreaRootElement"] textarea:focus-visible,
[data-baseweb="select"] input:focus-visible, input[type="range"]:focus-visible { outline: none !important; }
html[data-a11y-theme="light"] [data-testid="stButtonGroup"] button[aria-checked="true"] :is(p, span, div),
html[data-a11y-theme="light"] [data-testid="stButtonGroup"] button[aria-checked="true"] { color: %(red)s !important; }
html[dir="rtl"] body { direction: ltr; }
.a11y-only {
  position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
[data-testid="stElementContainer"]:has(.a11y-only) { margin-top: -1rem; }
.st-key-a11y_page, [class*="st-key-a11y_focus_"] { display: none !important; }
</style>
""" % {"light": FOCUS_LIGHT, "dark": FOCUS_DARK, "red": CHOSEN_RED}  # noqa: UP031 (CSS is full of braces)

# Runs once per page load and again when the language changes (its data). The observer keeps what Streamlit
# redraws accessible: a scrolling formula gets a tab stop and a name; the theme (light or dark, Streamlit's
# choice or the system's) is read from the app's background, for the focus ring's colour.
_PAGE_JS = """
export default function (component) {
  const { data } = component;
  const root = document.documentElement;
  root.lang = data.lang;
  root.dir = data.dir;
  const tend = () => {
    const app = document.querySelector('.stApp');
    if (app) {
      const [r, g, b] = (getComputedStyle(app).backgroundColor.match(/[\\d.]+/g) || [255, 255, 255]).map(Number);
      root.dataset.a11yTheme = 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? 'dark' : 'light';
    }
    for (const formula of document.querySelectorAll('.katex-display')) {
      const scrolls = formula.scrollWidth > formula.clientWidth + 1;
      if (scrolls && !formula.hasAttribute('tabindex')) {
        formula.setAttribute('tabindex', '0');
        formula.setAttribute('role', 'group');
        formula.setAttribute('aria-label', data.formula);
      }
    }
  };
  tend();
  if (!window.__a11yObserver) {
    let pending = false;
    window.__a11yObserver = new MutationObserver(() => {
      if (!pending) { pending = true; setTimeout(() => { pending = false; window.__a11yTend(); }, 300); }
    });
    window.__a11yObserver.observe(document.body, { childList: true, subtree: true });
  }
  window.__a11yTend = tend;
}
"""

# Focus on the first heading (else the first control) after this element, when it is first drawn: that is, once
# after the action that drew it, never on an ordinary rerun (the element stays mounted across reruns).
_FOCUS_JS = """
export default function (component) {
  const { parentElement } = component;
  const here = parentElement.closest('[data-testid="stElementContainer"]') || parentElement;
  const focus = () => {
    const after = [];
    for (let e = here.nextElementSibling; e && after.length < 40; e = e.nextElementSibling) after.push(e);
    const find = sel => {
      for (const e of after) { const f = e.matches(sel) ? e : e.querySelector(sel); if (f) return f; }
    };
    const target = find('h1, h2, h3, h4, [data-testid="stAlertContainer"], [data-testid="stMarkdownContainer"] p')
      || find('button, a, input, [tabindex]');
    if (!target) return false;
    if (!target.matches('button, a, input, [tabindex]')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'nearest', behavior: 'instant' });
    return true;
  };
  let tries = 0;
  const attempt = () => { if (!focus() && ++tries < 20) setTimeout(attempt, 150); };
  setTimeout(attempt, 100);
}
"""

_page_component = st.components.v2.component("a11y_page", js=_PAGE_JS, isolate_styles=False)
_focus_component = st.components.v2.component("a11y_focus", js=_FOCUS_JS, isolate_styles=False)


def accessible_page() -> None:
    """Every page: its language and direction on <html>, the focus rings, a scrolling formula's tab stop. Call from
    the app's frame (ui.navigation.frame_app), after the page config."""
    st.html(_FOCUS_CSS)
    with st.sidebar:
        _page_component(
            key="a11y_page",
            data={"lang": language(), "dir": "rtl" if right_to_left() else "ltr", "formula": _("Formula")},
            height=0,
        )


def focus_here(key: str) -> None:
    """Where new content starts, after an action drew it: focus moves to its first heading (or control) once, when
    this is first drawn. Call it only when the content is shown (e.g. after Reveal), with a key unique on the page."""
    _focus_component(key=f"a11y_focus_{key}", height=0)


# What an untitled chart shows, for its CSV button's name and its description, by the end of its key (the key
# starts with the page's name). A chart drawn by show_step is named by its step's heading instead.
CHART_NAMES = {
    "grid": N_("every layer and head"),
    "roles": N_("the heads' roles"),
    "roles_map": N_("the heads' roles"),
    "roles_over_training": N_("the heads' roles over training"),
    "live_roles": N_("the heads' roles over training"),
    "picked": N_("the picked head"),
    "raw": N_("raw V·Vᵀ against the trained head"),
    "pair": N_("one cell, explained"),
    "change": N_("the heads that changed most"),
    "attention": N_("where the blank looked"),
    "lens": N_("the guess after every layer"),
    "mattered": N_("looked at and mattered"),
    "river": N_("one word through the layers"),
    "pe": N_("positional encoding"),
    "difference": N_("put back − as typed"),
    "quiz_map": N_("the answer"),
    "shift": N_("how far each head's attention moved"),
    "knock_out_head": N_("the head before and after the knock-out"),
    "importance": N_("how much each head matters"),
}


def chart_name(figure: go.Figure, key: str, shows: str = "") -> str:
    """What the chart shows, in the reader's language: its title, else what its caller says, else its key's name."""
    if figure.layout.title.text:
        return plain_title(figure)
    if shows:
        return " ".join(shows.replace("*", " ").split())
    ends = [end for end in CHART_NAMES if key == end or key.endswith("_" + end)]
    return _(CHART_NAMES[max(ends, key=len)]) if ends else key


def csv_label(figure: go.Figure, key: str, shows: str = "") -> str:
    """The CSV button's name, which tells one chart's button from another's: "CSV: <what the chart shows>"."""
    return _("CSV: {title}").format(title=chart_name(figure, key, shows))


def chart_config(file_name: str) -> dict[str, object]:
    """Plotly's toolbar cut to what people use: the PNG download and the zoom's reset (its other eight buttons were
    eight more Tab stops per chart)."""
    return {
        "displaylogo": False,
        "modeBarButtons": [["toImage", "resetScale2d"]],
        "toImageButtonOptions": {"filename": file_name, "scale": 2},
    }


def describe_figure(
    figure: go.Figure, key: str, where: DeltaGenerator, row: DeltaGenerator, *, table: bool, shows: str = ""
) -> None:
    """Below a heatmap: its text alternative for a screen reader (hidden from the eye) and, in `row` (beside the CSV
    button), a switch that shows everyone the sentence and, when `table`, the matrix as a table. Nothing for a figure
    without a heatmap."""
    sentence = text_alternative(figure, _, title=chart_name(figure, key, shows))
    if not sentence:
        return
    where.html(f'<p class="a11y-only">{html.escape(sentence)}</p>')
    found = panels(figure) if table else []
    switch = _("Show as table") if len(found) == 1 else _("Show in words")
    if not row.toggle(switch, key=f"{key}_as_table"):
        return
    where.markdown(plain(sentence))
    if len(found) > 1:
        where.caption(_("Every map's numbers are in the CSV."))
    if len(found) != 1:
        return
    values = as_table(found[0])
    if values.size <= TABLE_CELLS and len(found[0].rows) <= MAX_ROWS * 4:
        where.table(values.style.format(precision=3))
    else:
        where.dataframe(values, height=400)
