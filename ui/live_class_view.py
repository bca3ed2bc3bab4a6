"""The teacher's side of a live class, on any quiz (ui/guess_view.py): start a class on the question shown, and
while it is on, the projector's panel: the class code in big letters, the join link and its QR code, the count of
answers and the class's answers on the question's row (redrawn every second without a click), Reveal to everyone,
Ask this question next (another head, word, sentence or quiz: the class lives in this session across pages), and
End class with its summary to download.

The teacher key stays in this session (ui/live_class.TEACHER_KEY): it is in no link, no question and no page.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from attention_core.figures.class_answers import class_bars
from classroom import ClassNotFound
from classroom.qr import join_qr_png
from classroom.summary import summary_csv
from ui.bidi import isolate
from ui.i18n import _, say
from ui.lesson_view import show_lesson_line
from ui.live_class import (
    SUMMARY_KEY,
    TEACHER_KEY,
    QuizQuestion,
    TeacherClass,
    class_store,
    join_link,
    teaching,
)
from ui.live_plan_view import OPEN_KEY, PENDING_KEY, PROMPT_KEY, lesson_plan, question_settings
from ui.show import chart, plain
from ui.style import PRESENTATION_KEY


def live_class_panel(asked: QuizQuestion) -> bool | None:
    """While this session runs a class, its panel in place of the teacher's own guess: None when no class is on.
    Returns whether the page below may open (the class's question is this one, and it is revealed)."""
    teacher = teaching()
    if teacher is None:
        return None
    try:
        status = class_store().status(teacher.code)
    except ClassNotFound:  # expired after 12 idle hours, or its store was emptied
        del st.session_state[TEACHER_KEY]
        st.warning(_("The live class {code} is no longer open. Start a new one.").format(code=teacher.code))
        return None
    if status.ended:
        del st.session_state[TEACHER_KEY]
        return None
    same = status.question.get("fingerprint") == asked.fingerprint
    if st.session_state.pop(PENDING_KEY, None) == asked.page and not same:  # the plan's next question, just opened
        _ask_next(teacher, asked)
        st.rerun()
    if not same:
        _another_question(teacher, asked, status.question)
    _live_panel(teacher, status.question, same=same, revealed=status.revealed)
    error = st.session_state.pop("live_error", None)
    if error:
        st.error(plain(error))
    if same and status.revealed:
        _revealed(status.question)
        show_lesson_line()  # an open lesson's line on where to look waited for the reveal, as on a student's quiz
    with st.expander(_("This class: its summary and the lesson plan"), icon=":material/list_alt:"):
        st.download_button(
            _("Download the class summary so far (CSV, no names)"),
            lambda: class_summary(teacher),
            f"class-{teacher.code}.csv",
            "text/csv",
            key="live_summary_now",
        )
        lesson_plan(asked)
    return same and status.revealed


def start_live_class(asked: QuizQuestion) -> None:
    """Below a quiz, when no class is on: the settings of this question, Start a live class, the last class's
    summary, and the lesson plan."""
    if st.session_state.get(PENDING_KEY) == asked.page:  # the plan's question, opened with no class on
        del st.session_state[PENDING_KEY]
    with st.expander(_("Live class: ask this question to the whole room"), icon=":material/groups:"):
        st.caption(
            _(
                "Every student answers from a phone at the join link; you show the class's answers, then reveal the "
                "model's to everyone."
            )
        )
        question_settings()
        st.button(_("Start a live class"), type="primary", key="live_start", on_click=_start, args=(asked,))
        error = st.session_state.pop("live_error", None)
        if error:  # a question the store cannot keep
            st.error(plain(error))
        ended = st.session_state.get(SUMMARY_KEY)
        if ended:
            code, text = ended
            st.download_button(
                _("Download the summary of class {code} (CSV, no names)").format(code=code),
                text.encode("utf-8"),
                f"class-{code}.csv",
                "text/csv",
                key="live_summary_ended",
            )
        lesson_plan(asked)


def _record(asked: QuizQuestion) -> dict[str, object]:
    return asked.record(
        locked=not st.session_state.get(OPEN_KEY, False), prompt=str(st.session_state.get(PROMPT_KEY, "")).strip()
    )


def _start(asked: QuizQuestion) -> None:
    try:
        code, key = class_store().create(_record(asked))
    except ValueError as error:  # a question the store cannot keep (too long a sentence or link)
        st.session_state["live_error"] = say(error)
        return
    st.session_state[TEACHER_KEY] = TeacherClass(code, key)


def _ask_next(teacher: TeacherClass, asked: QuizQuestion) -> None:
    try:
        class_store().next_question(teacher.code, teacher.key, _record(asked))
    except (ValueError, ClassNotFound) as error:
        st.session_state["live_error"] = say(error)


def _reveal(teacher: TeacherClass) -> None:
    try:
        class_store().reveal(teacher.code, teacher.key)
    except ClassNotFound as error:
        st.session_state["live_error"] = say(error)


def _end(teacher: TeacherClass) -> None:
    try:
        text = class_summary(teacher)
        class_store().end(teacher.code, teacher.key)
    except ClassNotFound:
        text = ""
    st.session_state[SUMMARY_KEY] = (teacher.code, text)
    del st.session_state[TEACHER_KEY]


def class_summary(teacher: TeacherClass) -> str:
    """The class's summary as CSV text: per question, what was asked, the class's answers and the model's."""
    return summary_csv(class_store().summary(teacher.code, teacher.key))


@st.cache_data(show_spinner=False, max_entries=256)  # the panel redraws every second: 3.6 ms a code saved each time
def _qr_png(link: str) -> bytes | None:
    """The join link as a QR code (PNG); None for a relative link, which a phone could not open."""
    if "://" not in link:
        return None
    return join_qr_png(link, scale=8)


def _another_question(teacher: TeacherClass, asked: QuizQuestion, current: dict[str, Any]) -> None:
    st.info(
        _("The class is still on question {word}. This page asks another one.").format(
            word=isolate(plain(str(current.get("row", ""))))
        )
    )
    question_settings()
    st.button(_("Ask this question next"), type="primary", key="live_next", on_click=_ask_next, args=(teacher, asked))


# The projector's panel, redrawn every second without a click, alone: the page's heatmaps around it are not
# recomputed. The class's answers arrive on the question's row; revealed, the model's row stands beside them. Reveal
# and End are pressed here too: the page reruns once the store says so (a rerun at the press lost the answer drawn).
@st.fragment(run_every=1)
def _live_panel(teacher: TeacherClass, question: dict[str, Any], *, same: bool, revealed: bool) -> None:
    store = class_store()
    try:
        status, tally = store.status(teacher.code), store.tally(teacher.code)
    except ClassNotFound:
        status = None
    moved = status is None or status.ended or status.question.get("fingerprint") != question.get("fingerprint")
    if teaching() is None or moved or status.revealed != revealed:  # revealed, ended, or moved on (another tab)
        st.rerun(scope="app")
    assert status is not None
    link = join_link(teacher.code)
    code, count, picture = st.columns([6, 3, 3], vertical_alignment="center")
    with code.container(key="live_class_code"):
        st.caption(_("Join with the code"))
        st.markdown(f"## {teacher.code}")
    code.caption(_("or at {link}").format(link=plain(link)))
    with count.container(key="live_class_count"):
        st.caption(_("Answers"))
        st.markdown(f"## {status.answers}")
    qr = _qr_png(link)
    if qr is not None:
        picture.image(qr, caption=_("Scan to join"), width=150)
    choices = [str(c) for c in question.get("choices", [])]
    model_row = question.get("weights") if status.revealed else None
    large = bool(st.session_state.get(PRESENTATION_KEY))
    bars = class_bars(choices, tally, model_row, rtl=bool(question.get("rtl")), large=large)
    chart(bars, "live_class_tally", table=False)
    st.caption(
        _("Orange: the share of the class that picked each word (the count on each bar); blue: the model's weights.")
        if status.revealed
        else _(
            "Orange: the share of the class that picked each word (the count on each bar). The model's bars come "
            "at the reveal."
        )
    )
    reveal, end = st.columns(2)
    if same and not status.revealed:
        reveal.button(_("Reveal to everyone"), type="primary", key="live_reveal", on_click=_reveal, args=(teacher,))
    with end.popover(_("End class"), icon=":material/stop_circle:"):  # asked twice: it cannot be undone
        st.caption(_("Every answer and name is deleted; the summary stays here to download."))
        st.button(_("End the class for everyone"), key="live_end", on_click=_end, args=(teacher,))


def _revealed(question: dict[str, Any]) -> None:
    word, answer = isolate(plain(str(question.get("row", "")))), isolate(plain(str(question.get("model_answer", ""))))
    st.success(_("Revealed to everyone: {word} attends most to {answer}.").format(word=word, answer=answer))
    prompt = str(question.get("prompt") or "")
    if prompt:
        st.markdown(_("**To think about:** {prompt}").format(prompt=plain(prompt)))
