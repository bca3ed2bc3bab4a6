"""An opened lesson on its page: a clean start, one line on where to look, and that cell outlined on the heatmaps.

A lesson link names its lesson (?lesson=…) beside its sentence and settings. The clean start is needed because
Streamlit gives a widget bound to the URL its last value back when its page is opened again, over the URL's: a
W1 switched off earlier, or a model picked in the sidebar, would otherwise override the lesson it opens.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from attention_core.figures.marks import label_index, outline_cell
from ui.accessibility import focus_here
from ui.bidi import isolate_arabic
from ui.i18n import _, right_to_left
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import LESSON_PARAM, Lesson

_APPLIED = "lesson_applied"  # session key: the lesson whose clean start was made (the Lessons page forgets it)
_OPEN = "lesson_open"  # session key: the lesson the current page shows, whose cell the charts outline


def in_reading_order(text: str) -> str:
    """A lesson's text as a paragraph of the page shows it. On an English page each Arabic phrase is isolated right
    to left (ui/bidi.py). On an Arabic page the paragraph reads right to left already, and isolating its Arabic
    would make each phrase neutral: two Latin words around it (V·Vᵀ … *the*) would pull it, numbers and all, into
    one left-to-right run."""
    return text if right_to_left() else isolate_arabic(text)


def forget_opened_lesson() -> None:
    """Called by the Lessons page: the next lesson opened from it starts clean, even the same one again."""
    st.session_state.pop(_APPLIED, None)


def start_lesson(prefix: str, model: str, kept_key: str) -> Lesson | None:
    """The lesson the URL names for the page whose widget keys start with `prefix`, or None. On the page's first
    run for that lesson every control of the page goes back to its default (those bound to the URL then read the
    lesson's settings from it), the Model switch to `model`, and the sentence kept for other pages to the
    lesson's. Later reruns keep what the user changes."""
    slug = st.query_params.get(LESSON_PARAM)
    lesson = next((lesson for lesson in LESSONS if lesson.slug == slug and lesson.prefix == prefix), None)
    if lesson is not None and st.session_state.get(_APPLIED) != lesson.slug:
        for key in [key for key in st.session_state if str(key).startswith(f"{prefix}_")]:
            del st.session_state[key]
        st.session_state[lesson.model_key] = model
        st.session_state[kept_key] = lesson.sentence
        st.session_state[_APPLIED] = lesson.slug
    return lesson


def show_where_to_look(lesson: Lesson | None, sentence: str, *, quiz: bool = False) -> None:
    """The lesson's one line on where to look, while its sentence is in the box (and the charts outline its cell).
    quiz: the page asks the student to guess first, so the line waits for the reveal (show_lesson_line)."""
    if lesson is None or sentence != lesson.sentence:
        st.session_state.pop(_OPEN, None)
        return
    st.session_state[_OPEN] = lesson.slug
    focus_here(f"lesson_{lesson.slug}")  # focus on the lesson's line once it is opened
    if quiz:
        st.info(
            _("**Lesson: {title}.** Guess first: where to look appears once you reveal.").format(
                title=in_reading_order(_(lesson.title))
            ),
            icon=":material/target:",
        )
        return
    show_lesson_line()


def show_lesson_line() -> None:
    """The open lesson's line on where to look (nothing when no lesson is open)."""
    lesson = next((lesson for lesson in LESSONS if lesson.slug == st.session_state.get(_OPEN)), None)
    if lesson is None:
        return
    st.info(
        _("**Lesson: {title}.** Look at: {look_at}").format(
            title=in_reading_order(_(lesson.title)), look_at=in_reading_order(_(lesson.look_at))
        ),
        icon=":material/target:",
    )


def mark_lesson_cell(figure: go.Figure, key: str) -> go.Figure:
    """The chart `key` with the open lesson's cell outlined, while the page still shows the lesson's settings;
    otherwise (no lesson, another layer picked, word pieces instead of words) the figure as it was."""
    open_slug = st.session_state.get(_OPEN)
    if open_slug is None:  # no lesson open: nothing to look up (this runs for every chart of every rerun)
        return figure
    lesson = next((lesson for lesson in LESSONS if lesson.slug == open_slug), None)
    if lesson is None or lesson.cell is None or key not in lesson.figures:
        return figure
    # A setting not in the session yet is the lesson's: its widget is drawn further down on the page's first run.
    if any(st.session_state.get(setting, value) != value for setting, value in lesson.settings.items()):
        return figure
    meta = figure.layout.meta or {}
    row = label_index(list(meta.get("rows", [])), lesson.cell.row, lesson.cell.row_nth)
    column = label_index(list(meta.get("cols", [])), lesson.cell.column, lesson.cell.column_nth)
    if row is None or column is None:
        return figure
    return outline_cell(figure, row, column, lesson.panel if "panels" in meta else "")
