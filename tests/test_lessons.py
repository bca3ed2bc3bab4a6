"""The lessons gallery: every lesson's link opens its view, and what each lesson says is true of the model."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core import load_model
from attention_core.attention import similarity
from attention_core.embeddings import embed_sentence
from attention_core.text import tokenize
from tests.test_app import assert_clean, open_page
from ui.examples import LESSONS, Lesson

PAGES = Path(__file__).parents[1] / "pages"


def open_link(lesson: Lesson) -> AppTest:
    """What a shared link does: the page, with the lesson's query in the URL, on a fresh session."""
    at = AppTest.from_file(str(PAGES / f"{lesson.page}.py"), default_timeout=60)
    for key, value in lesson.query().items():
        at.query_params[key] = value
    return at.run()


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.title for lesson in LESSONS])
def test_every_lesson_link_reopens_its_sentence_and_settings(lesson: Lesson) -> None:
    at = open_link(lesson)
    assert_clean(at)
    assert at.text_input(key=lesson.sentence_key).value == lesson.sentence
    for key, value in lesson.settings.items():
        assert at.session_state[key] == value, key
    if lesson.expected_guess is not None:
        assert at.dataframe[0].value["word"].iloc[0] == lesson.expected_guess


def test_the_gallery_links_every_lesson_and_filters_by_topic() -> None:
    at = open_page("lessons")
    assert_clean(at)
    links = at.get("page_link")
    assert len(links) == len(LESSONS)
    at.pills(key="lessons_topics").set_value(["negation"]).run()
    assert len(at.get("page_link")) == sum(lesson.topic == "negation" for lesson in LESSONS)


def test_the_two_meanings_of_dhahaba_read_different_neighbours() -> None:
    lesson = next(lesson for lesson in LESSONS if lesson.page == "heads" and lesson.topic == "two meanings")
    analysis = load_model().analyze(lesson.sentence)
    verb, noun = (i for i, label in enumerate(analysis.labels) if label == "ذهب")
    previous_word_head, next_word_head = analysis.weights[0, 0], analysis.weights[0, 1]
    assert analysis.labels[int(previous_word_head[noun].argmax())] == "من"
    assert analysis.labels[int(previous_word_head[verb].argmax())] == "[CLS]"
    assert analysis.labels[int(next_word_head[verb].argmax())] == "الله"
    assert previous_word_head[noun].max() > 0.8


def test_without_positions_a_repeated_word_has_identical_similarity_rows() -> None:
    lesson = next(lesson for lesson in LESSONS if lesson.title.startswith("One word, two meanings: bank"))
    sentence = embed_sentence(tokenize(lesson.sentence), "random", d=64, seed=0, use_position=False)
    banks = [i for i, label in enumerate(sentence.labels) if label == "bank"]
    S = similarity(sentence.V)
    torch.testing.assert_close(S[banks[0]], S[banks[1]])
    with_positions = embed_sentence(tokenize(lesson.sentence), "random", d=64, seed=0, use_position=True)
    assert not torch.allclose(similarity(with_positions.V)[banks[0]], similarity(with_positions.V)[banks[1]])
