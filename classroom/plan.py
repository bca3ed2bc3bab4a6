"""A teacher's lesson plan: the class's questions prepared in advance, saved as a JSON file and opened again.

Each question is a quiz link as the app makes them (ui/live_class/session.py quiz_link, ui/lessons/lesson.py
Lesson.quiz_query through ui/links.py href:
`similarity?lesson=…&similarity_sentence=…&similarity_quiz=true&similarity_quiz_row=it`), a reflection prompt shown
after the reveal, whether the page's controls are locked for students (locked: a student sees the sentence and the
question, never the settings that would give the answer away), and, for the plan's list, the sentence and the word
asked about.

The file comes back from a teacher's disk, so everything in it is checked: a link keeps only its page and query
(the host is dropped, so a plan can never send a class elsewhere), and every bad input is a ValueError saying what.
The pages use to_json(items) and from_json(text), over the rows ui/live_class/plan.py keeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from classroom.words import N_, Worded

FORMAT = "attention-explainer lesson plan"
VERSION = 1
MAX_QUESTIONS = 30
MAX_BYTES = 200_000  # a plan file: 30 questions with long sentences fit many times over
MAX_LINK = 2_000  # characters of one link
MAX_PROMPT = 500  # characters of one reflection prompt
MAX_TEXT = 1_000  # characters of a question's sentence or word, as the plan's list shows them
MAX_TITLE = 120
# The pages that ask a quiz question (ui/lessons/lesson.py QUIZ_PAGES, the Abstraction page's own quiz, and Fill the
# blank's: what will the model guess);
# tests/test_classroom_plan.py checks this list against the app's.
QUIZ_PAGES = ("heads", "similarity", "trainable", "abstraction", "fill_blank")
_KEY = re.compile(r"[a-z][a-z0-9_]{0,60}")  # a widget key in a link: the page's prefix, then words
_ENTRIES = {"link", "prompt", "locked", "sentence", "word"}


@dataclass(frozen=True)
class PlannedQuestion:
    """One question of a plan: `link` is relative ("similarity?…"), as the app opens it."""

    link: str
    prompt: str = ""  # the reflection prompt shown after the reveal
    locked: bool = True  # students may not open the quiz's page with its settings
    sentence: str = ""  # for the plan's list; "" → the link's sentence
    word: str = ""  # the word asked about, for the plan's list; "" → the link's row word

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

    def item(self) -> dict[str, Any]:
        """The row a page keeps: link, page, word, sentence, locked, prompt."""
        query = self.query
        sentence = self.sentence or query.get(f"{self.page}_sentence", [""])[0]
        word = self.word or query.get(f"{self.page}_quiz_row", [""])[0]
        return {
            "link": self.link,
            "page": self.page,
            "word": word,
            "sentence": sentence,
            "locked": self.locked,
            "prompt": self.prompt,
        }


@dataclass(frozen=True)
class LessonPlan:
    questions: tuple[PlannedQuestion, ...]
    title: str = ""

    def to_json(self) -> str:
        """The file a teacher downloads (and parse_plan reads back to an equal plan)."""
        questions = [
            {"link": q.link, "prompt": q.prompt, "locked": q.locked, "sentence": q.sentence, "word": q.word}
            for q in self.questions
        ]
        document = {"format": FORMAT, "version": VERSION, "title": self.title, "questions": questions}
        return json.dumps(document, ensure_ascii=False, indent=2)


def to_json(items: Sequence[Mapping[str, Any]], title: str = "", host: str | None = None) -> str:
    """The file of a page's plan rows ({"link", "prompt"?, "locked"?, "sentence"?, "word"?}; others are ignored),
    every row checked as parse_plan checks a file."""
    rows = [{k: v for k, v in item.items() if k in _ENTRIES} for item in items]
    return parse_plan(_document(rows, title), host).to_json()


def from_json(text: str | bytes, host: str | None = None) -> list[dict[str, Any]]:
    """A saved plan's rows, as a page keeps them (PlannedQuestion.item); ValueError for anything else."""
    return [question.item() for question in parse_plan(text, host).questions]


def make_plan(questions: list[dict[str, Any]], title: str = "", host: str | None = None) -> LessonPlan:
    """A plan from rows ({"link", "prompt"?, "locked"?, "sentence"?, "word"?}), every one checked as parse_plan does."""
    return parse_plan(_document(questions, title), host)


def _document(questions: list[dict[str, Any]], title: str) -> str:
    return json.dumps({"format": FORMAT, "version": VERSION, "title": title, "questions": questions})


def parse_plan(text: str | bytes, host: str | None = None) -> LessonPlan:
    """The plan in an uploaded file. `host` ("example.org:8501"): absolute links must name it (None: any host, which is
    dropped anyway). ValueError, with a sentence a page can show, for anything that is not a plan."""
    if len(text) > MAX_BYTES:
        why = N_("The plan is too long ({size} bytes; at most {most}).")
        raise ValueError(Worded(why, size=len(text), most=MAX_BYTES))
    try:
        document = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise ValueError(Worded(N_("This file is not a lesson plan: it is not JSON."))) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(Worded(N_("This file is not a lesson plan: it does not say it is one.")))
    if document.get("version") != VERSION:
        why = N_("This plan is of version {given}; this app reads version {version}.")
        raise ValueError(Worded(why, given=str(document.get("version"))[:20], version=VERSION))
    _only(document, {"format", "version", "title", "questions"}, Worded(N_("the plan")))
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
    _only(item, _ENTRIES, Worded(N_("question {number}"), number=number))
    link = quiz_link(item["link"], host, number)
    prompt, locked = item.get("prompt", ""), item.get("locked", True)
    if not isinstance(prompt, str) or len(prompt) > MAX_PROMPT:
        why = N_("Question {number}: the reflection prompt is text of at most {most} characters.")
        raise ValueError(Worded(why, number=number, most=MAX_PROMPT))
    if not isinstance(locked, bool):
        raise ValueError(Worded(N_("Question {number}: 'locked' is true or false."), number=number))
    texts = [item.get(name, "") for name in ("sentence", "word")]
    if not all(isinstance(text, str) and len(text) <= MAX_TEXT for text in texts):
        why = N_("Question {number}: its sentence and word are text of at most {most} characters.")
        raise ValueError(Worded(why, number=number, most=MAX_TEXT))
    return PlannedQuestion(link, prompt.strip(), locked, *(text.strip() for text in texts))


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
