"""The teacher's side of a live class, on any quiz (ui/guess_view.py, ui/fill_blank/quiz.py): start a class on the
question shown, and while it is on, the projector's panel: the class code in big letters, the join link and its QR
code, the count of answers and the class's answers on the question's row (redrawn every second without a click),
Reveal to everyone, Ask this question next (another head, word, sentence or quiz: the class lives in this session
across pages), and End class with its summary to download.

The teacher key stays in this session (session.TEACHER_KEY): it is in no link, no question and no page. The
question's chart and its line at the reveal are drawn by its kind's view (questions.py), as on the phones.
"""

from __future__ import annotations

import contextlib
import math
import time

import streamlit as st

from classroom import ClassNotFound, ClassStatus, StoreUnavailableError
from classroom.qr import join_qr_png
from classroom.question import OpenRoom, Question, read_question
from classroom.rules import HEARTBEAT_SECONDS
from classroom.summary import summary_csv
from ui.bidi import isolate
from ui.i18n import _, ngettext, say
from ui.lessons.view import show_lesson_line
from ui.live_class.plan import OPEN_KEY, PENDING_KEY, PROMPT_KEY, lesson_plan, question_settings
from ui.live_class.questions import class_chart, reveal_line
from ui.live_class.session import (
    SUMMARY_KEY,
    TeacherClass,
    class_store,
    join_link,
    keep_teaching,
    stop_teaching,
    teaching,
)
from ui.markdown import plain
from ui.style import PRESENTATION_KEY


def live_class_panel(asked: Question) -> bool | None:
    """While this session runs a class, its panel in place of the teacher's own guess: None when no class is on.
    Returns whether the page below may open (the class's question is this one, and it is revealed)."""
    teacher = teaching()
    if teacher is None:
        return None
    try:
        status = class_store().status(teacher.code)
    except ClassNotFound:  # expired after 12 idle hours, or its store was emptied
        stop_teaching()
        st.warning(_("The live class {code} is no longer open. Start a new one.").format(code=teacher.code))
        return None
    except StoreUnavailableError as fault:
        st.warning(say(fault), icon=":material/cloud_off:")
        _wait_for_the_store(teacher.code)
        return False
    if status.ended:  # ended here, from another tab, or from the teacher's phone: its summary stays here
        with contextlib.suppress(ClassNotFound, StoreUnavailableError, PermissionError):
            st.session_state[SUMMARY_KEY] = (teacher.code, class_summary(teacher))
        stop_teaching()
        return None
    current = read_question(status.question)
    same = current.fingerprint == asked.fingerprint
    if st.session_state.pop(PENDING_KEY, None) == asked.page and not same:  # the plan's next question, just opened
        _ask_next(teacher, asked)
        st.rerun()
    if not same:
        _another_question(teacher, asked, current)
    _live_panel(teacher, current, same=same, revealed=status.revealed)
    error = st.session_state.pop("live_error", None)
    if error:
        st.error(plain(error))
    if same and status.revealed:
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


def start_live_class(asked: Question) -> None:
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
        timer_setting()
        start, lobby = st.columns(2)
        start.button(_("Start a live class"), type="primary", key="live_start", on_click=_start, args=(asked,))
        lobby.button(
            _("Open the room first"),
            key="live_lobby",
            on_click=_open_room,
            help=_("Students join and wait; you see who is in, then ask this question when they are ready."),
        )
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


TIMER_KEY = "live_timer"  # session: the answer timer of the next question asked, in seconds (0: none)


def timer_setting() -> None:
    """The answer timer of the question about to be asked: a countdown on every screen, the answers closed at 0."""
    st.number_input(
        _("Answer timer, in seconds (0: no timer)"),
        min_value=0,
        max_value=600,
        step=5,
        key=TIMER_KEY,
        persist_state="session",
        help=_("Every phone and the projector count down; at 0 the answers close and you reveal."),
    )


def _record(asked: Question) -> dict[str, object]:
    """The question as the store keeps it, with this question's settings: its lock, prompt and timer."""
    return asked.settled(
        locked=not st.session_state.get(OPEN_KEY, False),
        prompt=str(st.session_state.get(PROMPT_KEY, "")).strip(),
        seconds=int(st.session_state.get(TIMER_KEY) or 0),
    ).to_dict()


def _asked() -> None:
    """A question went out: its reflection prompt was its own, so the next question starts with an empty one."""
    st.session_state[PROMPT_KEY] = ""


def _start(asked: Question) -> None:
    try:
        code, key = class_store().create(_record(asked))
    except (ValueError, StoreUnavailableError) as error:  # a question the store cannot keep, or no store
        st.session_state["live_error"] = say(error)
        return
    keep_teaching(TeacherClass(code, key))
    _asked()


def _open_room() -> None:
    """A class whose first "question" is the lobby: students join and wait; the teacher asks when all are in."""
    try:
        code, key = class_store().create(OpenRoom().to_dict())
    except StoreUnavailableError as error:
        st.session_state["live_error"] = say(error)
        return
    keep_teaching(TeacherClass(code, key))


def _ask_next(teacher: TeacherClass, asked: Question) -> None:
    try:
        class_store().next_question(teacher.code, teacher.key, _record(asked))
    except (ValueError, ClassNotFound, StoreUnavailableError) as error:
        st.session_state["live_error"] = say(error)
        return
    _asked()


def _reveal(teacher: TeacherClass) -> None:
    try:
        class_store().reveal(teacher.code, teacher.key)
    except (ClassNotFound, StoreUnavailableError) as error:
        st.session_state["live_error"] = say(error)


def _end(teacher: TeacherClass) -> None:
    try:
        text = class_summary(teacher)
        class_store().end(teacher.code, teacher.key)
    except ClassNotFound:
        text = ""
    except StoreUnavailableError as error:  # not ended: the class goes on, and the teacher is told
        st.session_state["live_error"] = say(error)
        return
    st.session_state[SUMMARY_KEY] = (teacher.code, text)
    stop_teaching()


def class_summary(teacher: TeacherClass) -> str:
    """The class's summary as CSV text: per question, what was asked, the class's answers and the model's."""
    return summary_csv(class_store().summary(teacher.code, teacher.key))


@st.cache_data(show_spinner=False, max_entries=256)  # the panel redraws every second: 3.6 ms a code saved each time
def _qr_png(link: str) -> bytes | None:
    """The join link as a QR code (PNG); None for a relative link, which a phone could not open."""
    if "://" not in link:
        return None
    return join_qr_png(link, scale=8)


def _another_question(teacher: TeacherClass, asked: Question, current: Question | OpenRoom) -> None:
    if isinstance(current, OpenRoom):
        st.info(_("The room is open: students join and wait. Ask this question when everyone is in."))
    else:
        st.info(
            _("The class is still on question {word}. This page asks another one.").format(
                word=isolate(plain(current.row))
            )
        )
    question_settings()
    timer_setting()
    st.button(_("Ask this question next"), type="primary", key="live_next", on_click=_ask_next, args=(teacher, asked))


LIVE_BARS_KEY = "live_show_live"  # session: the class's bars shown while students answer (off: only the count)
_BEAT_KEY = "live_class_beat"  # session: when this screen last told the store the teacher is here
DISPLAY_ONLY_KEY = "live_display_only"  # session: the projector only shows; the teacher's phone controls
_SHOWN_KEY = "live_class_reveal_shown"  # session: the question whose reveal the panel drew before the page opened


@st.fragment(run_every=1)
def _wait_for_the_store(code: str) -> None:
    """While the store does not answer: try it every second, and open the page again once it does."""
    try:
        class_store().status(code)
    except StoreUnavailableError:
        return
    except ClassNotFound:
        pass
    st.rerun(scope="app")


def _check_in(teacher: TeacherClass) -> None:
    """Every HEARTBEAT_SECONDS: the teacher's screen is here (students are told when it is away)."""
    now = time.time()
    if now - float(st.session_state.get(_BEAT_KEY, 0.0)) >= HEARTBEAT_SECONDS:
        class_store().teacher_here(teacher.code, teacher.key)
        st.session_state[_BEAT_KEY] = now


# The projector's panel, redrawn every second without a click, alone: the page's heatmaps around it are not
# recomputed. The class's answers arrive on the question's row (hidden until the reveal unless the teacher shows
# them: a class that sees the crowd follows it); revealed, the model's row stands beside them. Reveal and End are
# pressed here too: the page reruns once the store says so (a rerun at the press lost the answer drawn).
@st.fragment(run_every=1)
def _live_panel(teacher: TeacherClass, question: Question | OpenRoom, *, same: bool, revealed: bool) -> None:
    store = class_store()
    try:
        status, tally = store.status(teacher.code), store.tally(teacher.code)
        _check_in(teacher)
    except ClassNotFound:
        status = None
    except PermissionError:  # this device's key no longer opens the class (another device took its place)
        stop_teaching()
        st.rerun(scope="app")
    except StoreUnavailableError as error:
        st.warning(say(error), icon=":material/cloud_off:")
        return
    moved = status is None or status.ended or read_question(status.question).fingerprint != question.fingerprint
    if teaching() is None or moved:  # ended, or moved on (another tab, another device)
        st.rerun(scope="app")
    assert status is not None
    if status.revealed != revealed and st.session_state.get(_SHOWN_KEY) == status.question_number:
        st.rerun(scope="app")  # the panel showed the reveal a tick ago: now the page below opens
    _draw_panel(teacher, question, status, tally, same=same)
    if status.revealed != revealed:  # the reveal on the projector at once, as on the phones (a rerun of the whole
        st.session_state[_SHOWN_KEY] = status.question_number  # page here took 4–6 s to show it); the page next tick


def _draw_panel(
    teacher: TeacherClass, question: Question | OpenRoom, status: ClassStatus, tally: dict[str, int], *, same: bool
) -> None:
    link = join_link(teacher.code)
    code, joined, count, picture = st.columns([5, 2, 2, 3], vertical_alignment="center")
    with code.container(key="live_class_code"):
        st.caption(_("Join with the code"))
        st.markdown(f"## {teacher.code}")
    code.caption(_("or at {link}").format(link=plain(link)))
    with joined.container(key="live_class_joined"):
        st.caption(_("Joined"))
        st.markdown(f"## {status.joined}")
    with count.container(key="live_class_count"):
        st.caption(_("Answers"))
        st.markdown(f"## {status.answers}")
    qr = _qr_png(link)
    if qr is not None:
        picture.image(qr, caption=_("Scan to join"), width=150)
    if isinstance(question, OpenRoom):  # the room is open: who joined, then the page's question is asked
        _lobby(teacher, status.joined)
        return
    _countdown(status.seconds_left(time.time()), status.revealed)
    shown = status.revealed or st.toggle(
        _("Show the class's answers as they come in"),
        key=LIVE_BARS_KEY,
        help=_("Off: the room sees how many answered, not what, until the reveal, so no one follows the crowd."),
    )
    large = bool(st.session_state.get(PRESENTATION_KEY))
    class_chart(question, tally, revealed=status.revealed, shown=shown, large=large)
    if status.revealed and same:  # in the panel: on the projector at the press, not after the page below
        reveal_line(question)
    _lobby(teacher, status.joined)
    if st.toggle(
        _("This screen only shows: I control the class from my phone"),
        key=DISPLAY_ONLY_KEY,
        help=_("On your phone, open Join a live class and ask to control the class; allow its number here first."),
    ):
        return
    _devices(teacher)
    reveal, end = st.columns(2)
    if same and not status.revealed:
        reveal.button(_("Reveal to everyone"), type="primary", key="live_reveal", on_click=_reveal, args=(teacher,))
    with end.popover(_("End class"), icon=":material/stop_circle:"):  # asked twice: it cannot be undone
        st.caption(_("Every answer and name is deleted; the summary stays here to download."))
        st.button(_("End the class for everyone"), key="live_end", on_click=_end, args=(teacher,))


def _devices(teacher: TeacherClass) -> None:
    """The teacher's second devices waiting to control the class: each number, to allow (remote.py)."""
    try:
        waiting = class_store().control_requests(teacher.code, teacher.key)
    except (ClassNotFound, StoreUnavailableError, PermissionError):
        return
    if waiting:
        st.caption(_("A device asks to control this class. Allow only the number your own phone shows."))
    for number in waiting[-3:]:
        st.button(
            _("Allow the device showing {number}").format(number=number),
            key=f"live_allow_{number}",
            on_click=_allow,
            args=(teacher, number),
            icon=":material/settings_remote:",
        )


def _allow(teacher: TeacherClass, number: str) -> None:
    try:
        class_store().allow_control(teacher.code, teacher.key, number)
    except (ClassNotFound, StoreUnavailableError, PermissionError) as error:
        st.session_state["live_error"] = say(error)


def _countdown(left: float | None, revealed: bool) -> None:
    """The question's timer, as every phone shows it."""
    if left is None or revealed:
        return
    if left > 0:
        st.markdown(_("⏱ **{seconds} s** left to answer").format(seconds=math.ceil(left)))
    else:
        st.markdown(_("⏱ **Time's up**: the answers are closed. Reveal when you are ready."))


def _lobby(teacher: TeacherClass, joined: int) -> None:
    """Who joined, for the teacher: the names given (on the projector only when opened)."""
    with st.expander(
        ngettext("{n} student joined: the names given", "{n} students joined: the names given", joined).format(n=joined)
    ):
        try:
            _count, names = class_store().lobby(teacher.code, teacher.key)
        except (ClassNotFound, StoreUnavailableError):
            return
        if names:
            st.markdown(", ".join(isolate(plain(name)) for name in names))
        else:
            st.caption(_("No one gave a name (a name is optional)."))
