"""Guess first on Fill the blank (issue 34's quiz versions): the model's guesses stay hidden until the student picks
which word it guesses first; Reveal scores the pick against the model's own guesses and opens the page."""

from __future__ import annotations

from attention_core import load_model
from tests.conftest import assert_clean, open_link
from ui.bidi import isolate
from ui.lessons.catalogue import LESSONS
from ui.markdown import plain

LESSON = next(lesson for lesson in LESSONS if lesson.title == "Knock out the word before: agreement is lost")


def test_a_fill_the_blank_lesson_has_a_quiz_version_that_hides_the_guesses_until_the_reveal() -> None:
    quiz = LESSON.quiz_query()
    assert quiz is not None and quiz["fill_blank_quiz"] == "true"
    at = open_link("fill_blank", **quiz)
    assert_clean(at)
    expected = load_model().fill_mask(LESSON.sentence, 5)
    assert not at.dataframe  # no guesses shown before the reveal
    assert any("Which word will the model guess first" in m.value for m in at.markdown)
    choices = at.radio(key="fill_blank_quiz_pick")
    in_order = sorted((w for w, _ in expected), key=str.casefold)  # no order to read the answer from
    assert list(choices.options) == [isolate(plain(word)) for word in in_order]
    at.button(key="fill_blank_quiz_reveal").click().run()
    assert any("Pick your guess" in w.value for w in at.warning) and not at.dataframe
    wrong = expected[2][0]
    at.radio(key="fill_blank_quiz_pick").set_value(wrong)
    at.button(key="fill_blank_quiz_reveal").click().run()
    assert_clean(at)
    (said,) = [w.value for w in at.warning if "Not this time" in w.value]
    assert expected[0][0] in said and "guess number 3" in said
    assert list(at.dataframe[0].value["word"]) == [w for w, _ in expected]  # the page opened


def test_picking_the_model_s_first_guess_is_a_hit() -> None:
    at = open_link("fill_blank", **LESSON.quiz_query())
    first = load_model().fill_mask(LESSON.sentence, 1)[0][0]
    at.radio(key="fill_blank_quiz_pick").set_value(first)
    at.button(key="fill_blank_quiz_reveal").click().run()
    assert_clean(at)
    assert any("Hit" in s.value and first in s.value for s in at.success)
