"""A teacher's lesson plan: the class's questions prepared in advance, saved as a JSON file and opened again.

Each question is a quiz link as the app makes them (ui/examples.py Lesson.quiz_query, ui/links.py href:
`similarity?lesson=…&similarity_sentence=…&similarity_quiz=true&similarity_quiz_row=it`), a reflection prompt shown
after the reveal, and the controls locked for students (widget keys of that page, e.g. `similarity_embedding`: a
student sees the sentence and the question, not the settings that would give the answer away).

The file comes back from a teacher's disk, so everything in it is checked: a link keeps only its page and query
(the host is dropped, so a plan can never send a class elsewhere), and every bad input is a ValueError saying what.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from classroom.words import N_, Worded

FORMAT = "attention-explainer lesson plan"
VERSION = 1
MAX_QUESTIONS = 30
MAX_BYTES = 200_000  # a plan file: 30 questions with long sentences fit many times over
MAX_LINK = 2_000  # characters of one link
MAX_REFLECTION = 500  # characters of one prompt
MAX_TITLE = 120
# The pages that ask a quiz question (ui/examples.py QUIZ_PAGES, and the Abstraction page's own quiz);
# tests/test_classroom_plan.py checks this list against the app's.
QUIZ_PAGES = ("heads", "similarity", "trainable", "abstraction")
_KEY = re.compile(r"[a-z][a-z0-9_]{0,60}")  # a widget key in a link: the page's prefix, then words


@dataclass(frozen=True)
class PlannedQuestion:
    """One question of a plan: `link` is relative ("similarity?…"), as the app opens it."""

    link: str
    reflection: str = ""
    locked: tuple[str, ...] = ()  # widget keys of the link's page that students cannot change

    @property
    def page(self) -> str:
        return self.link.partition("?")[0]

    @property
    def query(self) -> dict[str, list[str]]:
        """The link's parameters, each with its values in order (a multiselect repeats its parameter)."""
        found: dict[str, list[str]] = {}
        for key, value in parse_qsl(self.link.partition("?")[2], keep_blank_values=True):
            found.setdefault(key, []).append(value)
        return found


@dataclass(frozen=True)
class LessonPlan:
    questions: tuple[PlannedQuestion, ...]
    title: str = ""

    def to_json(self) -> str:
        """The file a teacher downloads (and parse_plan reads back to an equal plan)."""
        questions = [{"link": q.link, "reflection": q.reflection, "locked": list(q.locked)} for q in self.questions]
        document = {"format": FORMAT, "version": VERSION, "title": self.title, "questions": questions}
        return json.dumps(document, ensure_ascii=False, indent=2)


def make_plan(questions: list[dict[str, Any]], title: str = "", host: str | None = None) -> LessonPlan:
    """A plan from the teacher's rows ({"link", "reflection"?, "locked"?}), every one checked as parse_plan does."""
    return parse_plan(json.dumps({"format": FORMAT, "version": VERSION, "title": title, "questions": questions}), host)


def parse_plan(text: str | bytes, host: str | None = None) -> LessonPlan:
    """The plan in an uploaded file. `host` ("example.org:8501"): absolute links must name it (None: any host, which is
    dropped anyway). ValueError, with a sentence a page can show, for anything that is not a plan."""
    if len(text) > MAX_BYTES:
        raise ValueError(
            Worded(N_("The plan is too long ({size} bytes; at most {most})."), size=len(text), most=MAX_BYTES)
        )
    try:
        document = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise ValueError(Worded(N_("This file is not a lesson plan: it is not JSON."))) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(Worded(N_("This file is not a lesson plan: it does not say it is one.")))
    if document.get("version") != VERSION:
        raise ValueError(Worded(N_("This plan's version is not one this app reads ({version})."), version=VERSION))
    _only(document, {"format", "version", "title", "questions"}, N_("the plan"))
    title, questions = document.get("title", ""), document.get("questions")
    if not isinstance(title, str) or len(title) > MAX_TITLE:
        raise ValueError(Worded(N_("A plan's title is text of at most {most} characters."), most=MAX_TITLE))
    if not isinstance(questions, list) or not questions:
        raise ValueError(Worded(N_("A plan has a list of at least one question.")))
    if len(questions) > MAX_QUESTIONS:
        why = N_("A plan has at most {most} questions ({given} given).")
        raise ValueError(Worded(why, most=MAX_QUESTIONS, given=len(questions)))
    return LessonPlan(tuple(_question(n, q, host) for n, q in enumerate(questions, start=1)), title.strip())


def _question(number: int, item: object, host: str | None) -> PlannedQuestion:
    if not isinstance(item, dict) or not isinstance(item.get("link"), str):
        raise ValueError(Worded(N_("Question {number}: a question has a link."), number=number))
    _only(item, {"link", "reflection", "locked"}, Worded(N_("question {number}"), number=number))
    link = quiz_link(item["link"], host, number)
    reflection, locked = item.get("reflection", ""), item.get("locked", [])
    if not isinstance(reflection, str) or len(reflection) > MAX_REFLECTION:
        why = N_("Question {number}: the reflection prompt is text of at most {most} characters.")
        raise ValueError(Worded(why, number=number, most=MAX_REFLECTION))
    page = link.partition("?")[0]
    if not isinstance(locked, list) or not all(isinstance(k, str) and _is_key(k, page) for k in locked):
        why = N_("Question {number}: 'locked' lists controls of the page {page} (names starting with {page}_).")
        raise ValueError(Worded(why, number=number, page=page))
    return PlannedQuestion(link, reflection.strip(), tuple(dict.fromkeys(locked)))


def quiz_link(typed: str, host: str | None = None, number: int = 1) -> str:
    """A link to one of this app's quiz pages, as the app opens it ("similarity?…", its host dropped); ValueError
    for anything else: another site, another page, a page without its quiz on, parameters of another page."""
    wrong = Worded(N_("Question {number}: the link is not to one of this app's quiz pages."), number=number)
    text = typed.strip()
    if not text or len(text) > MAX_LINK:
        raise ValueError(wrong)
    parts = urlsplit(text)
    if parts.scheme not in ("", "http", "https") or (parts.scheme == "") != (parts.netloc == ""):
        raise ValueError(wrong)
    if parts.netloc and host is not None and parts.netloc.lower() != host.lower():
        raise ValueError(wrong)
    page = parts.path.rstrip("/").rpartition("/")[2]
    # presentation: the projector's own setting (ui/links.py never puts it in a link; an address bar may have it)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "presentation"]
    keys = {key for key, _ in query}
    if page not in QUIZ_PAGES or (f"{page}_quiz", "true") not in query:
        raise ValueError(wrong)
    if not all(key in ("lesson", "lang") or _is_key(key, page) for key in keys):
        raise ValueError(wrong)
    return f"{page}?{urlencode(query)}"


def _is_key(key: str, page: str) -> bool:
    return key.startswith(f"{page}_") and _KEY.fullmatch(key) is not None


def _only(item: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise ValueError(Worded(N_("Unknown entries in {where}: {names}."), where=where, names=", ".join(unknown)))
