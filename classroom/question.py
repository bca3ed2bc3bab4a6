"""What a live class asks, as the store keeps it and every screen reads it: one typed record per kind of question.

A question travels: the teacher's page builds it from the model, the store keeps it as JSON (classroom.rules
QUESTION_BYTES), and every phone draws it without a model. So it is a frozen record of plain values (no tensor, no
streamlit), written with `to_dict()` and read back with `read_question(stored)`. The keys on the wire are the ones
the pages have always stored (docs/classroom.md, "What a quiz stores as its question"): a class asked before a deploy
loads after it, and a dict missing a key takes the value the pages used to assume.

The kinds, told apart on the wire by a tag:

- AttentionQuestion (no tag): which word does a word attend to most? The choices are the sentence's words, the
  model's row is one head's weights (or raw scores), and the head's map goes along.
- GuessQuestion (`"asks": "guess"`): which word will the model guess first for the blank? The choices are the
  model's first guesses in alphabetical order, its row their probabilities.
- OpenRoom (`"lobby": true`): the room is open and nothing is asked yet (a class's question 0).

A new kind of question is a record here (a Question with its tag, listed in KINDS) and its view in
ui/live_class/questions.py: what a phone asks, the class's chart, the reveal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Self

DIGITS = 3  # the model's numbers rounded for the store: a phone draws them, nobody reads a fourth digit
MAP_BYTES = 11_000  # the n × n map kept with a question (the store takes 16,000 bytes a question): about 40 words;
#                    a longer sentence's map is left out, and a student sees the row's bars alone
GUESS = "guess"  # GuessQuestion's tag ("asks")
BLANK = "[MASK]"  # what a guess question asks about (the summary's "question" column)
LOBBY_TEXT = "The room is open: the first question comes next."


def _fingerprint(parts: list[object]) -> str:
    text = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _rounded(values: Sequence[float]) -> tuple[float, ...]:
    return tuple(round(float(v), DIGITS) for v in values)


@dataclass(frozen=True, kw_only=True)
class Question:
    """What every question with choices holds: the page that asked it, what a student may pick, the model's answer,
    and the teacher's settings for it. Each field is the store's key of the same name."""

    ASKS: ClassVar[str | None] = None  # the tag on the wire ("asks"); None: none written

    page: str = ""  # the quiz's page ("heads"), for the summary and the teacher's panel
    link: str = ""  # the quiz's own link, relative and without the teacher's language ("heads?heads_quiz=true&…")
    sentence: str = ""  # as the question shows it (its first 300 characters)
    text: str = ""  # the question in English, as a summary reads it (each screen words it in its own language)
    row: str = ""  # what is asked about: a word ("the ·2" for a repeated one), the blank (the summary's "question")
    choices: tuple[str, ...] = ()  # what a student may pick (the store refuses any other answer)
    weights: tuple[float, ...] = ()  # the model's number for each choice, 3 digits: a weight, a score, a probability
    model_answer: str = ""  # the choice the model gives; shown only after the reveal
    rtl: bool = False  # the sentence reads right to left: its bars too
    locked: bool = True  # after the reveal, students may not open the quiz's page with its settings
    prompt: str = ""  # the reflection prompt, shown to everyone after the reveal
    seconds: int = 0  # the answer timer (5–600 s, classroom.rules.deadline_of); 0: none, and no key on the wire
    fingerprint: str = ""  # page, question and numbers: the teacher's page knows its own question in the store

    def settled(self, *, locked: bool, prompt: str, seconds: int = 0) -> Self:
        """The question with the teacher's settings at the moment it is asked."""
        return replace(self, locked=locked, prompt=prompt, seconds=max(0, seconds))

    def to_dict(self) -> dict[str, Any]:
        """The question as the store keeps it (JSON values only)."""
        stored: dict[str, Any] = {"asks": self.ASKS} if self.ASKS else {}
        for field in fields(self):
            value = getattr(self, field.name)
            stored[field.name] = _listed(value)
        if not self.seconds:
            del stored["seconds"]
        return stored | self._wire()

    def _wire(self) -> dict[str, Any]:
        """Keys a kind writes for the readers of the common shape (the summary, an older page)."""
        return {}

    @classmethod
    def from_dict(cls, stored: Mapping[str, Any]) -> Self:
        """The question a store returned; a missing key takes the default the pages always assumed."""
        return cls(**_common(stored), **cls._own(stored))

    @classmethod
    def _own(cls, stored: Mapping[str, Any]) -> dict[str, Any]:
        """This kind's own fields, read from a stored dict."""
        return {}


@dataclass(frozen=True, kw_only=True)
class AttentionQuestion(Question):
    """Which word does `row` attend to most, in one head (`head`, its English name; None on a page of one map)? The
    model's row is the head's weights on each word, or its raw scores when `kind` is not "weights"."""

    head: str | None = None  # "L4 H2", "head 2" (English, whatever the teacher's language)
    row_index: int = 0  # the place of the word asked about
    labels: tuple[str, ...] = ()  # the words as drawn (choices name a repeated word by its place)
    map: tuple[tuple[float, ...], ...] | None = None  # the head's n × n map, 3 digits; None beyond MAP_BYTES
    kind: str = "weights"  # attention_core.figures.heatmaps.MatrixKind: "weights" are shares, the rest raw numbers

    @classmethod
    def ask(
        cls,
        *,
        page: str,
        link: str,
        sentence: str,
        head: str | None,
        row_index: int,
        labels: Sequence[str],
        choices: Sequence[str],
        rows: Sequence[Sequence[float]],
        kind: str,
        rtl: bool,
    ) -> AttentionQuestion:
        """The question a quiz asks about its map `rows` (n × n, over `labels`; choices: the labels as a selectbox
        names them). The fingerprint is over the numbers to 3 digits, as stored: the same sentence computed again
        with another number of torch threads differed in the 7th."""
        row = _rounded(rows[row_index])
        top = max(range(len(row)), key=row.__getitem__)
        grid: tuple[tuple[float, ...], ...] | None = tuple(_rounded(line) for line in rows)
        if len(json.dumps(grid)) > MAP_BYTES:
            grid = None
        asked = f"Which word does “{choices[row_index]}” attend to most?"
        return cls(
            page=page,
            link=link,
            sentence=sentence,
            head=head,
            text=f"{head} · {asked}" if head else asked,
            row=choices[row_index],
            row_index=row_index,
            labels=tuple(labels),
            choices=tuple(choices),
            weights=row,
            map=grid,
            kind=kind,
            rtl=rtl,
            model_answer=choices[top],
            fingerprint=_fingerprint([page, head, row_index, list(labels), list(row)]),
        )

    @classmethod
    def _own(cls, stored: Mapping[str, Any]) -> dict[str, Any]:
        head, grid = stored.get("head"), stored.get("map")
        return {
            "head": None if head is None else str(head),
            "row_index": int(stored.get("row_index", 0)),
            "labels": tuple(str(c) for c in stored.get("labels", stored.get("choices") or [])),
            "map": tuple(tuple(float(v) for v in line) for line in grid) if grid else None,
            "kind": str(stored.get("kind", "weights")),
        }


@dataclass(frozen=True, kw_only=True)
class GuessQuestion(Question):
    """Which word will the model guess first for the blank (Fill the blank)? The choices are its first guesses in
    alphabetical order (their order gives nothing away); the model's row is their probabilities."""

    ASKS: ClassVar[str | None] = GUESS

    @classmethod
    def ask(
        cls, *, page: str, link: str, sentence: str, choices: Sequence[str], probabilities: Sequence[float], rtl: bool
    ) -> GuessQuestion:
        """The question over the model's guesses `choices` (alphabetical) and their `probabilities`."""
        row = _rounded(probabilities)
        best = choices[max(range(len(choices)), key=list(probabilities).__getitem__)]
        return cls(
            page=page,
            link=link,
            sentence=sentence,
            text="Which word will the model guess first for the blank?",
            row=BLANK,
            choices=tuple(choices),
            weights=row,
            rtl=rtl,
            model_answer=best,
            fingerprint=_fingerprint([page, GUESS, sentence, list(choices), list(row)]),
        )

    def _wire(self) -> dict[str, Any]:
        # The shape of an attention question, for whoever reads the common keys: a guess is the whole model's.
        return {"head": None, "row_index": 0, "labels": list(self.choices), "map": None, "kind": "weights"}


@dataclass(frozen=True)
class OpenRoom:
    """A class opened before its first question: students join and wait; nothing to answer, nothing to count."""

    text: str = LOBBY_TEXT
    fingerprint: ClassVar[str] = ""  # no question of a page: the teacher's page never takes it for its own

    def to_dict(self) -> dict[str, Any]:
        return {"lobby": True, "text": self.text}


KINDS: dict[str | None, type[Question]] = {None: AttentionQuestion, GUESS: GuessQuestion}  # by their tag


def read_question(stored: Mapping[str, Any]) -> Question | OpenRoom:
    """A stored question dict as its record (an ended class's {} too: an empty attention question). A tag this
    version does not know reads as an attention question, as every page drew a dict before there were kinds."""
    if stored.get("lobby"):
        return OpenRoom(text=str(stored.get("text") or LOBBY_TEXT))
    return KINDS.get(stored.get("asks"), AttentionQuestion).from_dict(stored)


def _common(stored: Mapping[str, Any]) -> dict[str, Any]:
    seconds = stored.get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0:
        seconds = 0  # no timer (classroom.rules.deadline_of reads it alike)
    return {
        "page": str(stored.get("page") or ""),
        "link": str(stored.get("link") or ""),
        "sentence": str(stored.get("sentence") or ""),
        "text": str(stored.get("text") or ""),
        "row": str(stored.get("row") or ""),
        "choices": tuple(str(c) for c in stored.get("choices") or []),
        "weights": tuple(float(v) for v in stored.get("weights") or []),
        "model_answer": str(stored.get("model_answer") or ""),
        "rtl": bool(stored.get("rtl")),
        "locked": bool(stored.get("locked", True)),
        "prompt": str(stored.get("prompt") or ""),
        "seconds": int(seconds),
        "fingerprint": str(stored.get("fingerprint") or ""),
    }


def _listed(value: object) -> object:
    """A record's tuples as the JSON lists the store keeps."""
    if isinstance(value, tuple):
        return [_listed(v) for v in value]
    return value
