"""The student's side of a live class (pages/join.py): the class code (from the join link or typed), an optional
name, then the teacher's question with the map hidden, one answer (a change before the reveal replaces it), and
"waiting for the teacher" until the reveal, which a fragment polling the store every second brings to the screen
without a click; then the model's row and map, drawn from the question the teacher stored (no model here), with the
student's answer and the class's. A new question from the teacher appears by itself. The question, the answer
form and the answer are drawn by the question's kind (questions.py), from the record the store returned.
"""

from __future__ import annotations

import math
import re
import secrets
import time

import streamlit as st

from classroom import ClassEnded, ClassNotFound, StoreUnavailableError
from classroom.limits import JoinLimiter, TooManyWrongCodesError
from classroom.question import OpenRoom, Question, read_question
from classroom.rules import ClassStatus, check_name, check_student, normalise_code
from ui.bidi import isolate
from ui.browser_memory import forget, recalled, remember
from ui.i18n import _, ngettext, say
from ui.live_class.questions import answer_form, ask, show_answer
from ui.live_class.session import class_store
from ui.markdown import plain

JOINED_KEY = "live_joined"  # session: the code of the class this student joined
STUDENT_KEY = "live_student"  # session: this student's opaque id (nothing about the student is in it)
SENT_KEY = "live_sent"  # session: (code, question number, answer) the store confirmed
LIMITER_KEY = "live_join_limiter"  # session: wrong codes, rate-limited (classroom.limits)
NAME_KEY = "live_name"  # session: the name given at joining (the form's box is gone once joined)
PENDING_KEY = "live_pending"  # session: (code, question number, answer) picked but not yet acknowledged by the store
LOST_KEY = "live_lost"  # session: (code, question number, answer) that never reached the store before the reveal
_LAST_STATUS = "live_last_status"  # session: (code, the class's status as last read), drawn while the store is down
NAME_LENGTH = 20
# This browser's memory (ui/browser_memory.py): one student whatever the tabs, reloads and server processes.
STUDENT_COOKIE, CLASS_COOKIE, NAME_COOKIE = "ae_student", "ae_class", "ae_name"
_OPAQUE = re.compile(r"[A-Za-z0-9_-]{16,100}")


def student_id() -> str:
    """This browser's opaque student id: the one it keeps (a reload, a second tab, another process: the same student,
    one vote), else a new one it is asked to keep."""
    if STUDENT_KEY not in st.session_state:
        kept = recalled(STUDENT_COOKIE) or ""
        st.session_state[STUDENT_KEY] = kept if _OPAQUE.fullmatch(kept) else secrets.token_urlsafe(16)
        remember(STUDENT_COOKIE, st.session_state[STUDENT_KEY])
    return str(st.session_state[STUDENT_KEY])


def join_class() -> None:
    """The Join page's body."""
    code = st.session_state.get(JOINED_KEY) or _rejoin()
    if code is None:
        code = _join_form()
    if code is not None:
        _in_class(code)


def _rejoin() -> str | None:
    """A student whose browser is in a class (a reload, a second tab, a crashed or replaced server process) is back in
    it at once, with her answer: no form, no second count. A link to another class's code asks again."""
    kept = recalled(CLASS_COOKIE)
    if not kept or st.session_state.get(JOINED_KEY) is not None:
        return None
    linked = st.query_params.get("code")
    try:
        if linked and normalise_code(linked) != normalise_code(kept):
            return None
        code = class_store().join(kept, check_student(student_id()))
    except StoreUnavailableError as error:
        st.warning(say(error), icon=":material/cloud_off:")
        return None
    except (ClassNotFound, ValueError):  # ended, expired, or a cookie that is no code
        forget(CLASS_COOKIE)
        return None
    st.session_state[JOINED_KEY] = code
    st.session_state[NAME_KEY] = recalled(NAME_COOKIE) or ""
    st.query_params["code"] = code
    st.toast(_("Back in class {code}: your answer is kept.").format(code=code), icon=":material/groups:")
    return code


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
    student = student_id()
    try:
        code = limiter.join(typed, lambda found: class_store().join(found, student, name or None))
    except StoreUnavailableError as error:
        st.error(say(error))
        return None
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
    remember(CLASS_COOKIE, code)
    remember(NAME_COOKIE, name) if name else forget(NAME_COOKIE)
    return code


def _leave() -> None:
    for key in (JOINED_KEY, SENT_KEY, NAME_KEY, PENDING_KEY, LOST_KEY):
        st.session_state.pop(key, None)
    forget(CLASS_COOKIE)


def _in_class(code: str) -> None:
    try:
        status = class_store().status(code)
        st.session_state[_LAST_STATUS] = (code, status)
    except ClassNotFound:
        status = None
    except StoreUnavailableError as error:
        st.warning(say(error), icon=":material/cloud_off:")
        last = st.session_state.get(_LAST_STATUS)
        if last is None or last[0] != code:
            _watch(code, None)  # tries again every second, and opens the class once the store answers
            return
        status = last[1]  # the question as last seen: her pick stays on the page, kept as pending until sent
    if status is None or status.ended:
        forget(CLASS_COOKIE)
        st.info(_("The teacher has ended the class. Thank you for taking part!"))
        st.button(_("Join another class"), key="join_leave", on_click=_leave)
        return
    name = str(st.session_state.get(NAME_KEY, ""))
    who = _("Class {code}").format(code=code) + (" · " + plain(name) if name else "")
    row = st.container(horizontal=True, vertical_alignment="center", gap="medium")  # one line on a phone too
    row.caption(who)
    row.button(_("Leave"), key="join_leave", on_click=_leave)
    _watch(code, (status.question_number, status.revealed, status.ended))
    question = read_question(status.question)
    if isinstance(question, OpenRoom):
        st.info(_("You are in. The teacher's first question appears here by itself."), icon=":material/groups:")
        return
    ask(question, status.question_number)
    _teacher_away(status)
    if status.revealed:
        with st.container(key="join_answer"):
            _answer(code, question)
    else:
        _pick(code, question, status.question_number, name, status.seconds_left(time.time()))


def _teacher_away(status: ClassStatus) -> None:
    """A class whose teacher's screen stopped checking in is not silently stuck: the students are told."""
    away = status.teacher_away(time.time())
    if away > 0 and not status.revealed:
        st.info(
            _(
                "The teacher's screen has not answered for a while: your answer is kept, and the class goes on "
                "here as soon as the teacher is back."
            ),
            icon=":material/pause_circle:",
        )


def _send(code: str, number: int, picked: str, name: str) -> bool | None:
    """The answer to the store: True stored (acknowledged), False closed (revealed, timed out or ended), None not
    sent (the store did not answer: kept as pending, sent again by the page every second)."""
    try:
        stored = class_store().answer(code, student_id(), picked, name or None)
    except StoreUnavailableError:
        st.session_state[PENDING_KEY] = (code, number, picked)
        return None
    st.session_state.pop(PENDING_KEY, None)
    if stored:
        st.session_state[SENT_KEY] = (code, number, picked)
    return stored


def _pick(code: str, question: Question, number: int, name: str, left: float | None) -> None:
    closed = left is not None and left <= 0
    picked = answer_form(question, key=f"join_pick_{code}_{number}", closed=closed)
    sent = st.session_state.get(SENT_KEY)
    if sent is None or sent[:2] != (code, number):  # a new session (a reload, a tab, another process): her answer
        try:
            mine = class_store().my_answer(code, student_id())
        except (ClassNotFound, StoreUnavailableError):
            mine = None
        if mine is not None:
            st.session_state[SENT_KEY] = sent = (code, number, mine)
    pending = st.session_state.get(PENDING_KEY)
    if picked is not None and sent != (code, number, picked) and pending != (code, number, picked) and not closed:
        try:
            stored = _send(code, number, picked, name)
        except (ValueError, ClassNotFound) as error:
            st.error(plain(say(error)))
            return
        if stored is False:
            st.rerun()  # revealed or closed meanwhile: the page says which
        sent, pending = st.session_state.get(SENT_KEY), st.session_state.get(PENDING_KEY)
    if pending is not None and pending[:2] == (code, number):
        st.warning(
            _(
                "Not sent yet: {word}. The class's store is not answering; this page sends your answer by itself "
                "as soon as it does. Keep the page open."
            ).format(word=isolate(plain(pending[2]))),
            icon=":material/cloud_off:",
        )
    elif sent is not None and sent[:2] == (code, number):
        st.success(
            _("Received: {word}. You can change it until the teacher reveals.").format(word=isolate(plain(sent[2])))
        )
    if closed:
        st.info(_("Time's up: the answers are closed. The teacher reveals next."), icon=":material/timer_off:")
    else:
        st.info(_("Waiting for the teacher to reveal the answer…"), icon=":material/hourglass_top:")


def _answer(code: str, question: Question) -> None:
    """The model's answer beside the student's and the class's (questions.show_answer), from the stored question."""
    try:
        mine, tally = class_store().my_answer(code, student_id()), class_store().tally(code)
    except StoreUnavailableError:  # the page says the store is down above; the answer is drawn without the class's
        mine, tally = None, {}
    lost = st.session_state.get(LOST_KEY)
    show_answer(question, mine=mine, tally=tally, lost=str(lost[2]) if lost is not None and lost[0] == code else None)


# The store, read every second, alone: when the teacher reveals, asks the next question or ends the class, the page
# reruns and shows it, within about a second and without a click.
@st.fragment(run_every=1)
def _watch(code: str, seen: tuple[int, bool, bool] | None) -> None:
    """seen: what the page shows (None: nothing yet, the store did not answer). An answer not yet sent is sent again
    here; the countdown of a question's timer ticks here."""
    try:
        status = class_store().status(code)
        resent = _send_pending(code, status)
    except ClassNotFound:
        st.rerun(scope="app")
    except StoreUnavailableError as error:
        st.caption(say(error))
        return
    if resent or seen is None or (status.question_number, status.revealed, status.ended) != seen:
        st.rerun(scope="app")
    st.caption(ngettext("{n} answer so far", "{n} answers so far", status.answers).format(n=status.answers))
    left = status.seconds_left(time.time())
    if left is not None and left > 0 and not status.revealed:
        st.markdown(_("⏱ **{seconds} s** left to answer").format(seconds=math.ceil(left)))
    elif left is not None and not status.revealed:
        st.markdown(_("⏱ **Time's up**: the answers are closed."))


def _send_pending(code: str, status: ClassStatus) -> bool:
    """An answer picked while the store was down, sent now that it answers: True when the page must show the
    outcome (Received, or, once the question is closed, that it never arrived)."""
    pending = st.session_state.get(PENDING_KEY)
    if pending is None or pending[0] != code:
        return False
    if pending[1] != status.question_number or status.revealed or status.ended:
        st.session_state[LOST_KEY] = st.session_state.pop(PENDING_KEY)
        return True
    stored = _send(code, pending[1], pending[2], str(st.session_state.get(NAME_KEY, "")))
    if stored is False:
        st.session_state[LOST_KEY] = pending
    return stored is not None
