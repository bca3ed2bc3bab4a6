"""A live class's shared parts, for the teacher's panel (ui/live_class_view.py) and the students' Join page
(ui/live_join_view.py): the store, the question a quiz asks, its join link, and what this session is to the class.

The class lives in the store (classroom/, beside attention_core): any process of the app, on any machine sharing
the store, sees the same class. The teacher key lives in the teacher's session (TEACHER_KEY) and the teacher's
browser (a cookie, so a reload, a new tab or a crashed process resumes control): never in a URL, never in a
question, never on a page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import streamlit as st
import torch

from attention_core.figures.heatmaps import MatrixKind
from classroom import ClassNotFound, StoreUnavailableError
from ui.browser_memory import forget, recalled, remember
from ui.i18n import LANGUAGE_KEY, LAYER_HEAD_SHORT, N_, _, shown_head_name
from ui.links import href
from ui.tokens import place_names

TEACHER_KEY = "live_class"  # session: the teacher's class (code and key); the key is in no link and on no page
TEACHER_COOKIE = "ae_teacher"  # the teacher's browser: "CODE.key" (ui/browser_memory.py), checked before it is used
_CHECKED_KEY = "live_class_checked"  # session: this browser's teacher cookie was checked (once a session)
SUMMARY_KEY = "live_class_summary"  # session: the last ended class's summary, as CSV text, to download
MAP_BYTES = 11_000  # the n × n map kept with a question (the store takes 16,000 bytes a question): about 40 words;
#                    a longer sentence's map is left out, and a student sees the row's bars alone
DIGITS = 3  # weights rounded for the store: a phone draws them, nobody reads a fourth digit
HEAD = N_("head {head}")  # the Trainable page's head names, as that page writes them


@dataclass(frozen=True)
class TeacherClass:
    """The class this session teaches: its code and its teacher key."""

    code: str
    key: str


@st.cache_resource(show_spinner=False)
def _open(url: str | None, folder: str | None) -> Any:
    from classroom import open_store

    return open_store(url)


def class_store() -> Any:
    """The app's store: ATTENTION_CLASS_STORE (sqlite:///… or redis://…), else the default SQLite file in
    ATTENTION_CLASS_DIR. Opened once per process and setting (a test may point another at its own folder)."""
    return _open(os.environ.get("ATTENTION_CLASS_STORE") or None, os.environ.get("ATTENTION_CLASS_DIR"))


def teaching() -> TeacherClass | None:
    """The class this session runs, if any."""
    found = st.session_state.get(TEACHER_KEY)
    return found if isinstance(found, TeacherClass) else None


@dataclass(frozen=True, eq=False)
class QuizQuestion:
    """The question a quiz asks right now, as the teacher's page computed it: `weights` is the head's n × n map
    over `labels`, `row` the word asked about (its place), `head` the head's English name (None: a page of one map).
    """

    page: str
    link: str
    sentence: str
    head: str | None
    row: int
    labels: tuple[str, ...]
    weights: torch.Tensor
    kind: MatrixKind
    rtl: bool

    @property
    def choices(self) -> list[str]:
        return place_names(list(self.labels))

    @property
    def fingerprint(self) -> str:
        """The same page, head, word and numbers over the same words: the same question. The numbers to 3 digits, as
        stored: the same sentence computed again with another number of torch threads differed in the 7th."""
        row = [round(float(v), DIGITS) for v in self.weights[self.row]]
        text = json.dumps([self.page, self.head, self.row, list(self.labels), row], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def text(self) -> str:
        """The question in English, as a summary reads it (each screen writes it in its own language)."""
        asked = f"Which word does “{self.choices[self.row]}” attend to most?"
        return f"{self.head} · {asked}" if self.head else asked

    def record(self, *, locked: bool = False, prompt: str = "") -> dict[str, object]:
        """The question as the store keeps it and a student's phone draws it (no model on the student's side)."""
        row = [round(float(v), DIGITS) for v in self.weights[self.row]]
        n = len(self.labels)
        top = max(range(n), key=row.__getitem__)
        weights: list[list[float]] | None = [[round(float(v), DIGITS) for v in line] for line in self.weights]
        if len(json.dumps(weights)) > MAP_BYTES:
            weights = None
        return {
            "page": self.page,
            "link": self.link,
            "sentence": self.sentence,
            "head": self.head,
            "text": self.text,
            "row": self.choices[self.row],  # the word asked about (classroom.summary's "question" column)
            "row_index": self.row,
            "labels": list(self.labels),
            "choices": self.choices,
            "weights": row,  # the model's row: its weight on each word
            "map": weights,
            "kind": self.kind,
            "rtl": self.rtl,
            "model_answer": self.choices[top],
            "locked": locked,
            "prompt": prompt,
            "fingerprint": self.fingerprint,
        }


GUESS = "guess"  # a question's "asks": what the model will guess for a blank (Fill the blank); absent: attention
BLANK = "[MASK]"


@dataclass(frozen=True, eq=False)
class GuessQuestion:
    """ "What will the model guess?" on Fill the blank, as the teacher's page computed it: the choices are the model's
    first guesses in alphabetical order (their order gives nothing away), each with its probability."""

    page: str
    link: str
    sentence: str
    choices: tuple[str, ...]  # alphabetical
    probabilities: tuple[float, ...]  # the model's, aligned with choices
    rtl: bool
    head: None = None  # a guess is the whole model's, no one head's

    @property
    def model_answer(self) -> str:
        return self.choices[max(range(len(self.choices)), key=self.probabilities.__getitem__)]

    @property
    def fingerprint(self) -> str:
        """The same page, sentence, choices and numbers (to 3 digits, as stored): the same question."""
        row = [round(p, DIGITS) for p in self.probabilities]
        text = json.dumps([self.page, GUESS, self.sentence, list(self.choices), row], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def text(self) -> str:
        """The question in English, as a summary reads it."""
        return "Which word will the model guess first for the blank?"

    def record(self, *, locked: bool = False, prompt: str = "") -> dict[str, object]:
        """The question as the store keeps it and a student's phone draws it: its bars are the probabilities."""
        return {
            "page": self.page,
            "link": self.link,
            "sentence": self.sentence,
            "head": None,
            "asks": GUESS,
            "text": self.text,
            "row": BLANK,  # what is asked about (classroom.summary's "question" column)
            "row_index": 0,
            "labels": list(self.choices),
            "choices": list(self.choices),
            "weights": [round(p, DIGITS) for p in self.probabilities],
            "map": None,
            "kind": "weights",
            "rtl": self.rtl,
            "model_answer": self.model_answer,
            "locked": locked,
            "prompt": prompt,
            "fingerprint": self.fingerprint,
        }


AskedQuestion = QuizQuestion | GuessQuestion  # what a live class can ask


def asks_guess(question: dict[str, Any]) -> bool:
    """Whether a stored question asks for the model's guess (not for where a word attends)."""
    return question.get("asks") == GUESS


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


def english_head_name(name: str) -> str:
    """A head's short name as this session's language writes it ("ط4 ر2") in English ("L4 H2"), as a question keeps
    it for students in any language; any other name as it is."""
    written = re.escape(_(LAYER_HEAD_SHORT)).replace(r"\{layer\}", r"(\d+)").replace(r"\{head\}", r"(\d+)")
    found = re.fullmatch(written, name)
    return LAYER_HEAD_SHORT.format(layer=found.group(1), head=found.group(2)) if found else name


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
