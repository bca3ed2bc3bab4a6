"""A live class's session: the store, the quiz's link and the class's join link, and what this session is to the
class (the teacher's, resumed after a reload), for the teacher's panel (teacher.py), the Join page (student.py),
the teacher's phone (remote.py) and the lesson plan (plan.py).

The class lives in the store (classroom/, beside attention_core): any process of the app, on any machine sharing
the store, sees the same class. The teacher key lives in the teacher's session (TEACHER_KEY) and the teacher's
browser (a cookie, so a reload, a new tab or a crashed process resumes control): never in a URL, never in a
question, never on a page.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import streamlit as st

from classroom import ClassNotFound, ClassStore, StoreUnavailableError
from ui.browser_memory import forget, recalled, remember
from ui.i18n import LANGUAGE_KEY, N_, _, shown_head_name
from ui.links import href

TEACHER_KEY = "live_class"  # session: the teacher's class (code and key); the key is in no link and on no page
TEACHER_COOKIE = "ae_teacher"  # the teacher's browser: "CODE.key" (ui/browser_memory.py), checked before it is used
_CHECKED_KEY = "live_class_checked"  # session: this browser's teacher cookie was checked (once a session)
SUMMARY_KEY = "live_class_summary"  # session: the last ended class's summary, as CSV text, to download
HEAD = N_("head {head}")  # the Trainable page's head names, as that page writes them


@dataclass(frozen=True)
class TeacherClass:
    """The class this session teaches: its code and its teacher key."""

    code: str
    key: str


@st.cache_resource(show_spinner=False)
def _open(url: str | None, folder: str | None) -> ClassStore:
    from classroom import open_store

    return open_store(url)


def class_store() -> ClassStore:
    """The app's store: ATTENTION_CLASS_STORE (sqlite:///… or redis://…), else the default SQLite file in
    ATTENTION_CLASS_DIR. Opened once per process and setting (a test may point another at its own folder)."""
    return _open(os.environ.get("ATTENTION_CLASS_STORE") or None, os.environ.get("ATTENTION_CLASS_DIR"))


def teaching() -> TeacherClass | None:
    """The class this session runs, if any."""
    found = st.session_state.get(TEACHER_KEY)
    return found if isinstance(found, TeacherClass) else None


def quiz_link(page: str, also: dict[str, str]) -> str:
    """The quiz's own link (relative, "similarity?…"), with every bound control but the language (each student's
    own) and the teacher's way of guessing."""
    skip = {LANGUAGE_KEY, f"{page}_quiz_how"}
    query: dict[str, str | list[str]] = {k: st.query_params.get_all(k) for k in st.query_params if k not in skip}
    return href(page, {**query, **also})


def join_link(code: str) -> str:
    """<the app>/join?code=ABCDE, from the address the teacher's browser shows (st.context.url): the app may sit
    under a path of a school's server, never a hard-coded host. Relative ("join?code=…") when the browser said
    nothing (AppTest)."""
    query = urlencode({"code": code})
    url = st.context.url or ""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return f"join?{query}"
    base = parts.path.rsplit("/", 1)[0]  # the page's own url_path goes; a base path stays
    return urlunsplit((parts.scheme, parts.netloc, f"{base}/join", query, ""))


def app_host() -> str | None:
    """The host the teacher's browser reached the app at ("school.org:8501"), or None when it said nothing."""
    return urlsplit(st.context.url or "").netloc or None


_TRAINABLE_HEAD = re.compile(r"head (\d+)")


def shown_head(head: str | None) -> str | None:
    """A stored head's name ("L4 H2", "head 2") in this session's language."""
    if head is None:
        return None
    found = _TRAINABLE_HEAD.fullmatch(head)
    return _(HEAD).format(head=found.group(1)) if found else shown_head_name(head)


def keep_teaching(teacher: TeacherClass) -> None:
    """This session teaches `teacher`'s class, and this browser remembers it (a cookie with the class and its key, in
    the teacher's browser only): a reload, a new tab or another process resumes control (resume_teaching)."""
    st.session_state[TEACHER_KEY] = teacher
    remember(TEACHER_COOKIE, f"{teacher.code}.{teacher.key}")


def stop_teaching() -> None:
    st.session_state.pop(TEACHER_KEY, None)
    forget(TEACHER_COOKIE)


def resume_teaching() -> TeacherClass | None:
    """The class this session teaches; on a session's first run, the class this browser taught if its key still
    opens it (checked against the stored hash; a wrong, ended or expired one is forgotten). A store that does not
    answer is asked again on the next run."""
    if teaching() is not None or st.session_state.get(_CHECKED_KEY):
        return teaching()
    held = recalled(TEACHER_COOKIE) or ""
    code, _dot, key = held.partition(".")
    if not key:
        st.session_state[_CHECKED_KEY] = True
        return None
    try:
        ours = class_store().is_teacher(code, key)
    except StoreUnavailableError:
        return None
    st.session_state[_CHECKED_KEY] = True
    if not ours:
        forget(TEACHER_COOKIE)
        return None
    st.session_state[TEACHER_KEY] = TeacherClass(code, key)
    st.toast(_("Back in control of live class {code}.").format(code=code), icon=":material/groups:")
    return teaching()


def live_class_note() -> None:
    """In the sidebar of every page while this session teaches a class (resumed after a reload too): its code, and
    a link back to the page of the question the class is on."""
    teacher = resume_teaching()
    if teacher is None:
        return
    st.sidebar.info(
        _("Live class **{code}** is on. Open any quiz to ask its question next.").format(code=teacher.code),
        icon=":material/groups:",
    )
    try:
        link = str(class_store().question(teacher.code).get("link") or "")
    except (ClassNotFound, StoreUnavailableError):
        return
    page, _query, query = link.partition("?")
    if page:
        st.sidebar.page_link(
            f"pages/{page}.py",
            label=_("Back to the class's question"),
            icon=":material/undo:",
            query_params={k: v[-1] for k, v in parse_qs(query).items()},
        )
