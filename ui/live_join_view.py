"""The student's side of a live class (pages/join.py): the class code (from the join link or typed), an optional
name, then the teacher's question with the map hidden, one answer (a change before the reveal replaces it), and
"waiting for the teacher" until the reveal, which a fragment polling the store every second brings to the screen
without a click; then the model's row and map, drawn from the question the teacher stored (no model here), with the
student's answer and the class's. A new question from the teacher appears by itself.
"""

from __future__ import annotations

import secrets
from typing import Any, cast

import streamlit as st
import torch

from attention_core.figures.class_answers import class_bars
from attention_core.figures.heatmaps import MatrixKind, heatmap
from attention_core.figures.marks import outline_cell
from classroom import ClassEnded, ClassNotFound
from classroom.limits import JoinLimiter, TooManyWrongCodesError
from classroom.rules import check_name
from ui.bidi import isolate
from ui.i18n import LANGUAGE_KEY, SOURCE_LANGUAGE, _, language, ngettext, say
from ui.live_class import class_store, shown_head
from ui.show import chart, plain

JOINED_KEY = "live_joined"  # session: the code of the class this student joined
STUDENT_KEY = "live_student"  # session: this student's opaque id (nothing about the student is in it)
SENT_KEY = "live_sent"  # session: (code, question number, answer) the store confirmed
LIMITER_KEY = "live_join_limiter"  # session: wrong codes, rate-limited (classroom.limits)
NAME_KEY = "live_name"  # session: the name given at joining (the form's box is gone once joined)
NAME_LENGTH = 20


def join_class() -> None:
    """The Join page's body."""
    code = st.session_state.get(JOINED_KEY)
    if code is None:
        code = _join_form()
    if code is not None:
        _in_class(code)


def _join_form() -> str | None:
    """The code box (filled from the join link's ?code=: a student from the QR code taps Join, or first gives a name)
    and the name box; the code joined, or None."""
    linked = st.query_params.get("code", "")[:12]
    st.caption(_("Type the code on the teacher's screen, or open the link or QR code it shows."))
    with st.form("join_form", border=False, enter_to_submit=True):
        st.text_input(_("Class code"), linked, key="join_code", max_chars=12, placeholder="ACDEF")
        st.text_input(
            _("Your name (optional, at most {n} characters)").format(n=NAME_LENGTH),
            key="join_name",
            max_chars=NAME_LENGTH,
            help=_("Shown to no one else, and deleted when the class ends."),
        )
        pressed = st.form_submit_button(_("Join"), type="primary")
    if not pressed:
        return None
    code = _try_join(str(st.session_state.get("join_code", "")))
    if code is not None:
        st.rerun()  # the class without the form above it
    return None


def _try_join(typed: str) -> str | None:
    """The class's code once the store knows it; a clear message otherwise. Wrong codes are rate-limited per
    session (classroom.limits): after 5 in a minute, the next try waits."""
    try:
        name = check_name(st.session_state.get("join_name")) or ""
    except ValueError as error:
        st.error(plain(say(error)))
        return None
    limiter = st.session_state.setdefault(LIMITER_KEY, JoinLimiter())
    try:
        code = limiter.join(typed, class_store().question)
    except TooManyWrongCodesError as error:
        st.error(_("Too many wrong codes. Try again in {seconds} s.").format(seconds=error.seconds))
        return None
    except ClassEnded:
        st.error(_("That class has ended."))
        return None
    except ClassNotFound:
        st.error(
            _("No class has the code {code}. Check the code on the teacher's screen (5 letters and digits).").format(
                code=plain(typed.strip()[:12])
            )
        )
        return None
    st.session_state[JOINED_KEY] = code
    st.session_state[NAME_KEY] = name
    st.session_state.setdefault(STUDENT_KEY, secrets.token_urlsafe(16))
    return code


def _leave() -> None:
    for key in (JOINED_KEY, SENT_KEY, NAME_KEY):
        st.session_state.pop(key, None)


def _in_class(code: str) -> None:
    try:
        status = class_store().status(code)
    except ClassNotFound:
        status = None
    if status is None or status.ended:
        st.info(_("The teacher has ended the class. Thank you for taking part!"))
        st.button(_("Join another class"), key="join_leave", on_click=_leave)
        return
    name = str(st.session_state.get(NAME_KEY, ""))
    who = _("Class {code}").format(code=code) + (" · " + plain(name) if name else "")
    row = st.container(horizontal=True, vertical_alignment="center", gap="medium")  # one line on a phone too
    row.caption(who)
    row.button(_("Leave"), key="join_leave", on_click=_leave)
    _watch(code, (status.question_number, status.revealed, status.ended))
    question = status.question
    _ask(question, status.question_number)
    if status.revealed:
        with st.container(key="join_answer"):
            _answer(code, question)
    else:
        _pick(code, question, status.question_number, name)


def _ask(question: dict[str, Any], number: int) -> None:
    word = _("“{word}”").format(word=isolate(plain(str(question.get("row", "")))))
    head = shown_head(question.get("head"))
    st.subheader(_("Question {n}").format(n=number))
    if head:
        st.markdown(_("**{head} · Which word does {word} attend to most?**").format(head=head, word=word))
    else:
        st.markdown(_("**Which word does {word} attend to most?**").format(word=word))
    sentence = str(question.get("sentence", ""))
    if sentence:
        st.markdown(_("In the sentence: {sentence}").format(sentence=isolate(plain(sentence))))


def _pick(code: str, question: dict[str, Any], number: int, name: str) -> None:
    choices = [str(c) for c in question.get("choices", [])]
    picked = st.selectbox(
        _("The word it attends to most"),
        choices,
        index=None,
        placeholder=_("Pick a word"),
        key=f"join_pick_{code}_{number}",
    )
    sent = st.session_state.get(SENT_KEY)
    if picked is not None and sent != (code, number, picked):
        try:
            stored = class_store().answer(code, st.session_state[STUDENT_KEY], picked, name or None)
        except (ValueError, ClassNotFound) as error:
            st.error(plain(say(error)))
            return
        if not stored:
            st.rerun()  # revealed meanwhile: the answer's page
        st.session_state[SENT_KEY] = sent = (code, number, picked)
    if sent is not None and sent[:2] == (code, number):
        st.success(
            _("Received: {word}. You can change it until the teacher reveals.").format(word=isolate(plain(sent[2])))
        )
    st.info(_("Waiting for the teacher to reveal the answer…"), icon=":material/hourglass_top:")


def _answer(code: str, question: dict[str, Any]) -> None:
    """The model's row and map, the student's answer outlined, and the class's answers beside the model's."""
    choices = [str(c) for c in question.get("choices", [])]
    labels = [str(c) for c in question.get("labels", choices)]
    row = [float(v) for v in question.get("weights", [])]
    rtl = bool(question.get("rtl"))
    mine = class_store().my_answer(code, st.session_state.get(STUDENT_KEY, "-"))
    picked = choices.index(mine) if mine in choices else None
    model = str(question.get("model_answer", ""))
    said = {"word": isolate(plain(mine or "")), "answer": isolate(plain(model))}
    if mine is None:
        st.info(_("The model attends most to {answer}. You did not answer this one.").format(**said))
    elif mine == model:
        st.success(_("**Hit.** You picked {word}, and the model attends most to {answer}.").format(**said))
    else:
        st.warning(_("**Not this time.** You picked {word}; the model attends most to {answer}.").format(**said))
    prompt = str(question.get("prompt") or "")
    if prompt:
        st.markdown(_("**To think about:** {prompt}").format(prompt=plain(prompt)))
    # The class's answers beside the model's row first (on a phone, within the first screen), then the head's map.
    chart(class_bars(choices, class_store().tally(code), row, rtl=rtl), "join_tally", table=False)
    st.caption(_("Orange: the share of the class that picked each word; blue: the model's weights."))
    if question.get("map"):
        index = int(question.get("row_index", 0))
        weights = torch.tensor(question["map"], dtype=torch.float32)
        kind = cast(MatrixKind, question.get("kind", "weights"))
        figure = heatmap(weights, labels, labels, kind=kind, rtl=rtl)
        chart(outline_cell(figure, index, picked) if picked is not None else figure, "join_map", table=False)
        word = isolate(plain(choices[index] if index < len(choices) else ""))
        st.caption(_("The head's map: row {word} is the question; outlined: your word.").format(word=word))
    if not question.get("locked", True) and question.get("link"):
        link = str(question["link"])
        if language() != SOURCE_LANGUAGE:
            link += f"&{LANGUAGE_KEY}={language()}"
        st.markdown(_("[Open this question's page and explore it]({link})").format(link=link))
    st.caption(_("The next question appears here by itself."))


# The store, read every second, alone: when the teacher reveals, asks the next question or ends the class, the page
# reruns and shows it, within about a second and without a click.
@st.fragment(run_every=1)
def _watch(code: str, seen: tuple[int, bool, bool]) -> None:
    try:
        status = class_store().status(code)
    except ClassNotFound:
        st.rerun(scope="app")
    if (status.question_number, status.revealed, status.ended) != seen:
        st.rerun(scope="app")
    st.caption(ngettext("{n} answer so far", "{n} answers so far", status.answers).format(n=status.answers))
