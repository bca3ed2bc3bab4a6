"""How many students one server process takes, and what they are told when it is full or slow.

A process shares two cores (and one interpreter lock) among all its sessions: past a class or two, every click
waits for everyone else's (docs/class-load.md). So a process admits at most ATTENTION_MAX_SESSIONS connected
sessions (environment variable; DEFAULT_MAX_SESSIONS otherwise). The next student gets a short page saying the
server is full and what to do, instead of a page that answers in ten seconds; a seat frees as soon as an admitted
student closes their tab. A page that still took long tells its student why (a toast), so nobody thinks the app
broke. Sessions already admitted are never turned away.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attention_core.words import Worded
from ui.i18n import N_, _, ngettext, right_to_left, say, settle_language
from ui.style import apply_style

MAX_SESSIONS_ENV = "ATTENTION_MAX_SESSIONS"
# On this 2-core machine 40 students kept a click's p90 at 0.56 s and 60 made it 3.2 s (docs/class-load.md).
DEFAULT_MAX_SESSIONS = 40
SLOW_PAGE_S = 3.0  # a page that took longer than this says the server is busy
NEW_SEAT_LINK_TEXT = N_("Try another seat: this school may run more than one server process")


class Admission:
    """The sessions admitted to one process: at most `limit` of them connected at once. `is_connected` tells
    whether an admitted session still has its browser tab (Streamlit's runtime knows)."""

    def __init__(self, limit: int, is_connected: Callable[[str], bool]) -> None:
        self.limit = limit
        self._is_connected = is_connected
        self._admitted: set[str] = set()
        self._lock = threading.Lock()  # sessions run their scripts in threads of their own

    def admit(self, session_id: str) -> bool:
        """True when this session may use the app: it was admitted before, or a seat is free (it takes it)."""
        with self._lock:
            if session_id in self._admitted:
                return True
            self._admitted = {s for s in self._admitted if self._is_connected(s)}  # closed tabs free their seats
            if len(self._admitted) >= self.limit:
                return False
            self._admitted.add(session_id)
            return True

    @property
    def connected(self) -> int:
        with self._lock:
            return len(self._admitted)


def max_sessions_from_environment() -> int:
    """ATTENTION_MAX_SESSIONS as a positive whole number; DEFAULT_MAX_SESSIONS when unset. A wrong value stops
    the server's first page with a message that names the variable (a deployment mistake, not a user's)."""
    text = os.environ.get(MAX_SESSIONS_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_SESSIONS
    if not text.isdigit() or int(text) < 1:
        raise ValueError(
            Worded(
                N_("{variable} must be a whole number of students, at least 1 (it is {value})"),
                variable=MAX_SESSIONS_ENV,
                value=repr(text),
            )
        )
    return int(text)


@st.cache_resource(show_spinner=False)
def _admission() -> Admission:
    """One per server process, shared by all its sessions."""
    limit = max_sessions_from_environment()
    if Runtime.exists():
        return Admission(limit, Runtime.instance().is_active_session)
    return Admission(limit, lambda _session: True)  # AppTest: no runtime, one session


def admit_or_explain() -> None:
    """Stops the run with a short "this server is full" page when no seat is free for this session."""
    context = get_script_run_ctx()
    settle_language()  # these pages come before the app's frame: they speak the link's (or the browser's) language
    try:
        admission = _admission()
    except ValueError as problem:
        st.error(_("This server is set up wrongly: {problem}.").format(problem=say(problem)))
        st.stop()
    if context is None or admission.admit(context.session_id):
        return
    apply_style(False, right_to_left=right_to_left())
    st.title(_("This class server is full"))
    st.info(
        ngettext(
            "{n} student is using this server right now, as many as it answers quickly. "
            "Wait a minute and reload this page: a seat frees as soon as someone closes their tab. "
            "Teachers: a second process or machine takes the next class (docs/deploy.md in the app's repository).",
            "{n} students are using this server right now, as many as it answers quickly. "
            "Wait a minute and reload this page: a seat frees as soon as someone closes their tab. "
            "Teachers: a second process or machine takes the next class (docs/deploy.md in the app's repository).",
            admission.limit,
        ).format(n=admission.limit)
    )
    # Behind deploy/serve.py's nginx this link draws another process (a new cookie); on a single server it reloads.
    st.markdown(f"[{_(NEW_SEAT_LINK_TEXT)}](?new_seat=1)")
    st.stop()


@contextmanager
def telling_when_slow() -> Iterator[None]:
    """Times the page; one that took over SLOW_PAGE_S (a busy server) says so in a toast as it finishes."""
    started = time.perf_counter()
    yield  # st.stop() and st.rerun() pass through: only a page that ran to its end toasts
    seconds = time.perf_counter() - started
    if seconds > SLOW_PAGE_S:
        connected = _admission().connected
        st.toast(
            ngettext(
                "This page took {seconds:.1f} s: the server is busy ({n} student connected). "
                "It answers again as the class slows down.",
                "This page took {seconds:.1f} s: the server is busy ({n} students connected). "
                "It answers again as the class slows down.",
                connected,
            ).format(seconds=seconds, n=connected),
            icon=":material/hourglass_top:",
        )
