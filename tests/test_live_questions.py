"""A live class's question as a record (classroom/question.py) and its views (ui/live_class/questions.py): it goes to
the store and back unchanged, a dict stored before the records existed (a class in progress during a deploy) loads
as it was, and each kind draws the phone's question and form, the projector's chart and the reveal from the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from classroom import open_store
from classroom.question import (
    KINDS,
    MAP_BYTES,
    AttentionQuestion,
    GuessQuestion,
    OpenRoom,
    Question,
    read_question,
)
from classroom.rules import question_json
from tests.conftest import assert_clean, figure_of, values
from ui.live_class.questions import VIEWS, view_of

ROWS = [[0.5, 0.25, 0.25], [0.1234, 0.6543, 0.2223], [0.3, 0.3, 0.4]]
# Exactly what ui/live_class.py's QuizQuestion.record and GuessQuestion.record stored before the records (commit
# f48d579), for these numbers: a class asked then must load, and its teacher's page must still know its question.
OLD_ATTENTION = {
    "page": "heads",
    "link": "heads?heads_quiz=true&heads_quiz_row=it",
    "sentence": "the cat sat",
    "head": "L4 H2",
    "text": "L4 H2 · Which word does “cat” attend to most?",
    "row": "cat",
    "row_index": 1,
    "labels": ["the", "cat", "sat"],
    "choices": ["the", "cat", "sat"],
    "weights": [0.123, 0.654, 0.222],
    "map": [[0.5, 0.25, 0.25], [0.123, 0.654, 0.222], [0.3, 0.3, 0.4]],
    "kind": "weights",
    "rtl": False,
    "model_answer": "cat",
    "locked": True,
    "prompt": "Why?",
    "fingerprint": "9ebbf1ab956916f6",
    "seconds": 30,  # the teacher's page added it to a timed question
}
OLD_GUESS = {
    "page": "fill_blank",
    "link": "fill_blank?fill_blank_quiz=true",
    "sentence": "the [MASK] sat",
    "head": None,
    "asks": "guess",
    "text": "Which word will the model guess first for the blank?",
    "row": "[MASK]",
    "row_index": 0,
    "labels": ["cat", "dog"],
    "choices": ["cat", "dog"],
    "weights": [0.612, 0.388],
    "map": None,
    "kind": "weights",
    "rtl": False,
    "model_answer": "cat",
    "locked": False,
    "prompt": "",
    "fingerprint": "edd92587f0d5f37c",
}
OLD_LOBBY = {"lobby": True, "text": "The room is open: the first question comes next."}


def attention(**settings: Any) -> AttentionQuestion:
    asked = AttentionQuestion.ask(
        page="heads",
        link="heads?heads_quiz=true&heads_quiz_row=it",
        sentence="the cat sat",
        head="L4 H2",
        row_index=1,
        labels=["the", "cat", "sat"],
        choices=["the", "cat", "sat"],
        rows=ROWS,
        kind="weights",
        rtl=False,
    )
    return asked.settled(**settings) if settings else asked


def guess(**settings: Any) -> GuessQuestion:
    asked = GuessQuestion.ask(
        page="fill_blank",
        link="fill_blank?fill_blank_quiz=true",
        sentence="the [MASK] sat",
        choices=["cat", "dog"],
        probabilities=[0.6123, 0.3877],
        rtl=False,
    )
    return asked.settled(**settings) if settings else asked


def through_the_store(stored: dict[str, Any]) -> dict[str, Any]:
    """The dict as a store gives it back: its JSON (classroom.rules.question_json), read again."""
    return json.loads(question_json(stored))


@pytest.mark.parametrize(
    "question",
    [attention(locked=True, prompt="Why?", seconds=30), guess(locked=False, prompt=""), OpenRoom()],
    ids=["attention", "guess", "open room"],
)
def test_a_question_goes_to_the_store_and_comes_back_the_same_record(question: Question | OpenRoom) -> None:
    stored = through_the_store(question.to_dict())
    assert read_question(stored) == question
    assert read_question(stored).to_dict() == stored


@pytest.mark.parametrize(
    ("old", "built"),
    [
        (OLD_ATTENTION, attention(locked=True, prompt="Why?", seconds=30)),
        (OLD_GUESS, guess(locked=False, prompt="")),
        (OLD_LOBBY, OpenRoom()),
    ],
    ids=["attention", "guess", "open room"],
)
def test_a_question_stored_before_the_records_loads_as_it_was(old: dict[str, Any], built: Question | OpenRoom) -> None:
    """The same keys and values on the wire, the same fingerprint from the same numbers: a class in progress over a
    deploy keeps its question, and the teacher's page still takes it for its own (no "still on question …")."""
    loaded = read_question(old)
    assert type(loaded) is type(built)
    assert loaded == built
    assert loaded.to_dict() == old
    assert loaded.fingerprint == built.fingerprint


def test_a_partial_dict_reads_with_what_the_pages_always_assumed() -> None:
    """A question dict missing keys (as the store's own tests write them): locked, weights as shares, the labels
    the choices, no map, no timer; an ended class's {} reads too."""
    loaded = read_question({"sentence": "the animal didn't cross", "row": "it", "choices": ["animal", "it"]})
    assert isinstance(loaded, AttentionQuestion)
    assert loaded.locked and loaded.kind == "weights" and loaded.map is None and loaded.seconds == 0
    assert loaded.labels == loaded.choices == ("animal", "it")
    assert read_question({}) == AttentionQuestion()
    unknown = read_question(OLD_ATTENTION | {"asks": "something newer"})
    assert isinstance(unknown, AttentionQuestion) and unknown.row == "cat"


def test_the_model_answer_and_a_map_too_long_for_the_store() -> None:
    assert attention().model_answer == "cat" and attention().weights == (0.123, 0.654, 0.222)
    assert guess().model_answer == "cat" and guess().row == "[MASK]"
    n = 60  # a long sentence: its map is left out, its row kept
    rows = [[1 / n] * n for _ in range(n)]
    words = [f"w{i}" for i in range(n)]
    long = AttentionQuestion.ask(
        page="heads",
        link="",
        sentence="",
        head=None,
        row_index=0,
        labels=words,
        choices=words,
        rows=rows,
        kind="weights",
        rtl=False,
    )
    assert len(json.dumps(rows)) > MAP_BYTES and long.map is None and len(long.weights) == n
    question_json(long.to_dict())  # the store takes it


def test_a_stored_record_is_read_back_from_a_real_store(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/classes.db")
    code, key = store.create(attention(locked=True, prompt="", seconds=30).to_dict())
    assert read_question(store.question(code)) == attention(locked=True, prompt="", seconds=30)
    assert store.status(code).seconds_left(0.0) is not None  # the timer read by the store from the same key
    store.next_question(code, key, guess(locked=True, prompt="").to_dict())
    assert store.answer(code, "student-1", "dog")
    assert read_question(store.status(code).question) == guess(locked=True, prompt="")


def test_every_kind_of_question_has_its_view() -> None:
    assert set(VIEWS) == set(KINDS.values())


@pytest.mark.parametrize("question", [attention(), guess()], ids=["attention", "guess"])
def test_each_kind_draws_the_class_beside_the_model_on_its_chart(question: Question) -> None:
    tally = {question.choices[0]: 2, question.choices[1]: 1}
    hidden = view_of(question).chart(question, tally, model=False)
    assert list(hidden.data[0].text) == ["2", "1", ""][: len(question.choices)]
    assert all(y is None for y in hidden.data[1].y)  # the model's slot stays empty until the reveal
    shown = view_of(question).chart(question, tally, model=True)
    assert list(shown.data[1].y) == list(question.weights)


def _screens(stored: dict, mine: str | None) -> None:  # run as a script of its own: no typing names
    """The phone's question and form, the projector's chart and its reveal line, the phone's answer: one record."""
    from classroom.question import Question, read_question
    from ui.live_class.questions import answer_form, ask, class_chart, reveal_line, show_answer

    question = read_question(stored)
    assert isinstance(question, Question)
    tally = {question.choices[0]: 2, question.choices[1]: 1}
    ask(question, 3)
    answer_form(question, key="pick", closed=False)
    class_chart(question, tally, revealed=True, shown=True, large=True)
    reveal_line(question)
    show_answer(question, mine=mine, tally=tally, lost=None)


@pytest.mark.parametrize(
    ("stored", "asks", "label", "revealed"),
    [
        (OLD_ATTENTION, "**L4 H2 · Which word does", "The word it attends to most", "cat attends most to cat"),
        (OLD_GUESS, "**Which word will the model guess first", "The model's first guess", "first guess is"),
    ],
    ids=["attention", "guess"],
)
def test_each_kind_draws_its_form_its_chart_and_its_reveal_from_the_record(
    stored: dict[str, Any], asks: str, label: str, revealed: str
) -> None:
    at = AppTest.from_function(_screens, args=(stored, "cat"), default_timeout=30).run()
    assert_clean(at)
    assert [s.value for s in at.subheader] == ["Question 3"]
    assert any(m.value.startswith(asks) for m in at.markdown)
    form = at.selectbox(key="pick")
    assert form.label == label and form.options == stored["choices"] and form.value is None
    assert figure_of(at, "live_class_tally")["data"][1]["y"] == stored["weights"]
    assert any(revealed in s.value for s in at.success)  # the projector's line
    assert any("**Hit.**" in s.value for s in at.success)  # the phone: cat is the model's answer
    assert figure_of(at, "join_tally")["data"][1]["y"] == stored["weights"]
    maps = [c for c in at.get("plotly_chart") if c.proto.id.endswith("-join_map")]
    assert len(maps) == (1 if stored["map"] else 0)  # the head's map: an attention question's own
    if stored["map"]:
        assert np.allclose(values(figure_of(at, "join_map")), stored["map"])  # float32, as the page drew it
    assert any("**To think about:** Why?" in m.value for m in at.markdown) == bool(stored["prompt"])
    assert any("Open this question's page" in m.value for m in at.markdown) == (not stored["locked"])
