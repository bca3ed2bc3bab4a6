"""The teacher's phone as the class's remote (issue 33): the projector only shows, the teacher walks the room.

On the Join page, a teacher's second device asks to control a class: it makes a key of its own and sends only the
key's hash (classroom: request_control), and shows a 4-digit number. The projector's panel lists the numbers waiting;
the teacher allows the one their phone shows. From then on the phone's key opens the class like the teacher's (the
phone's browser keeps it, as the projector's does: session.keep_teaching), and the phone shows a remote: who
joined, how many answered, the timer, Reveal to everyone and End class. No key is ever shown on a screen or stored in
plain, so a student who reads the projector can ask, but not allow, and nothing she sees opens the class.
"""

from __future__ import annotations

import math
import secrets
import time

import streamlit as st

from classroom import ClassNotFound, StoreUnavailableError
from classroom.rules import hash_key, normalise_code
from ui.i18n import _, say
from ui.live_class.session import TeacherClass, class_store, keep_teaching, stop_teaching, teaching
from ui.markdown import plain

ASKED_KEY = "live_remote_asked"  # session: (code, the key this device made, the number it shows) until allowed


def remote_control() -> None:
    """On the Join page: a teacher's phone asks to control a class, waits to be allowed, then is its remote."""
    teacher = teaching()
    title = _("Teacher: control your class from this phone")
    with st.expander(title, icon=":material/settings_remote:", expanded=teacher is not None):
        if teacher is not None:
            _remote(teacher)
            return
        asked = st.session_state.get(ASKED_KEY)
        if asked is not None:
            code, key, number = asked
            st.markdown(
                _("On the projector's panel, allow the device showing **{number}** (class {code}).").format(
                    number=number, code=code
                )
            )
            st.button(_("Cancel"), key="remote_cancel", on_click=st.session_state.pop, args=(ASKED_KEY, None))
            _wait_to_be_allowed(code, key)
            return
        st.caption(
            _(
                "Start the class on the projector's computer, then ask here: the projector's panel shows this "
                "phone's number, and you allow it there."
            )
        )
        with st.form("remote_form", border=False, enter_to_submit=True):
            st.text_input(_("The code of the class you teach"), key="remote_code", max_chars=12)
            pressed = st.form_submit_button(_("Ask to control this class"))
        if pressed:
            _ask(str(st.session_state.get("remote_code", "")))


def _ask(typed: str) -> None:
    key = secrets.token_urlsafe(24)  # made here, never sent: only its hash travels
    try:
        code = normalise_code(typed)
        number = class_store().request_control(code, hash_key(key))
    except (ClassNotFound, StoreUnavailableError) as error:
        st.error(plain(say(error)))
        return
    st.session_state[ASKED_KEY] = (code, key, number)
    st.rerun()


@st.fragment(run_every=1)
def _wait_to_be_allowed(code: str, key: str) -> None:
    try:
        allowed = class_store().is_teacher(code, key)
    except StoreUnavailableError as error:
        st.caption(say(error))
        return
    if allowed:
        st.session_state.pop(ASKED_KEY, None)
        keep_teaching(TeacherClass(code, key))
        st.rerun(scope="app")


def _reveal(teacher: TeacherClass) -> None:
    try:
        class_store().reveal(teacher.code, teacher.key)
    except (ClassNotFound, StoreUnavailableError, PermissionError) as error:
        st.session_state["remote_error"] = say(error)


def _end(teacher: TeacherClass) -> None:
    try:
        class_store().end(teacher.code, teacher.key)
    except ClassNotFound:
        pass
    except (StoreUnavailableError, PermissionError) as error:
        st.session_state["remote_error"] = say(error)
        return
    stop_teaching()


@st.fragment(run_every=1)
def _remote(teacher: TeacherClass) -> None:
    """Who joined, how many answered, the timer, and the teacher's two moves; redrawn every second."""
    try:
        status = class_store().status(teacher.code)
    except ClassNotFound:
        stop_teaching()
        st.rerun(scope="app")
    except StoreUnavailableError as error:
        st.warning(say(error), icon=":material/cloud_off:")
        return
    if status.ended:
        stop_teaching()
        st.rerun(scope="app")
    st.markdown(_("**Class {code}** · question {n}").format(code=teacher.code, n=status.question_number))
    joined, answered = st.columns(2)
    joined.metric(_("Joined"), status.joined)
    answered.metric(_("Answers"), status.answers)
    left = status.seconds_left(time.time())
    if left is not None and not status.revealed:
        st.caption(
            _("⏱ **{seconds} s** left to answer").format(seconds=math.ceil(left))
            if left > 0
            else _("⏱ **Time's up**: the answers are closed.")
        )
    refused = st.session_state.pop("remote_error", None)
    if refused:
        st.error(plain(refused))
    if status.revealed:
        st.success(_("Revealed to everyone."))
    else:
        st.button(_("Reveal to everyone"), type="primary", key="remote_reveal", on_click=_reveal, args=(teacher,))
    with st.popover(_("End class"), icon=":material/stop_circle:"):
        st.caption(_("Every answer and name is deleted; the summary stays on the projector's computer."))
        st.button(_("End the class for everyone"), key="remote_end", on_click=_end, args=(teacher,))
    st.caption(_("Open another quiz here or on the projector, and ask its question from its page."))
