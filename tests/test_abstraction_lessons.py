"""The Abstraction page's lessons say what the models do: every number in their text, recomputed from
attention_core.readings (the page's own functions), and each quiz version's question answered as the lesson says."""

from __future__ import annotations

from functools import cache

import pytest
import torch

from attention_core.models.pretrained import load_minilm
from attention_core.models.trained import load_model
from attention_core.readings.layers import layer_similarity, sentence_similarity
from tests.conftest import assert_clean, open_link
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import Lesson

ABSTRACTION = {lesson.title: lesson for lesson in LESSONS if lesson.page == "abstraction"}


@cache
def english() -> object:
    return load_minilm()


@cache
def arabic() -> object:
    return load_model()


def two(values: torch.Tensor) -> list[str]:
    return [f"{float(v):.2f}" for v in values]


def every_head(model: object) -> list[tuple[int, int]]:
    return [(layer, head) for layer in range(model.n_layers) for head in range(model.n_heads)]


def test_there_are_lessons_in_english_and_arabic_and_quiz_versions() -> None:
    assert len(ABSTRACTION) >= 4
    assert {lesson.sentence.isascii() for lesson in ABSTRACTION.values()} == {True, False}
    assert sum(lesson.quiz_query() is not None for lesson in ABSTRACTION.values()) >= 3


def test_other_words_same_meaning_end_closer_after_six_layers() -> None:
    lesson = ABSTRACTION["Other words, same meaning: closer after six layers"]
    paraphrase = sentence_similarity(english(), "the film was great", "the movie was excellent")
    negation = sentence_similarity(english(), "the film was great", "the film was terrible")
    assert float(negation[0]) > float(paraphrase[0]) and float(paraphrase[-1]) > float(negation[-1])
    for number in (*two(negation[[0, -1]]), *two(paraphrase[[0, -1]])):
        assert number in lesson.look_for


def test_the_paragraph_is_nearest_to_its_unnamed_topic_at_every_depth_with_a_growing_lead() -> None:
    lesson = ABSTRACTION["A paragraph that never names its topic"]
    topics = lesson.settings["abstraction_texts_b"].split("\n")
    cosines = torch.stack([sentence_similarity(english(), lesson.sentence, topic) for topic in topics])  # (10, 7)
    assert (cosines.argmax(0) == topics.index("immigration")).all()
    others = cosines.clone()
    others[topics.index("immigration")] = -2
    lead = cosines[topics.index("immigration")] - others.max(0).values
    assert float(lead[-1]) > float(lead[0])
    assert f"{float(lead[0]):.2f} over the next at the input V" in lesson.look_for
    assert f"{float(lead[-1]):.2f} after layer 6" in lesson.look_for
    for depth in (0, -1):
        runner_up = topics[int(others[:, depth].argmax())]
        assert f"*{runner_up}*'s {float(others[:, depth].max()):.2f}" in lesson.look_for
        assert f"{float(cosines[topics.index('immigration'), depth]):.2f} against" in lesson.look_for


def _first_and_second(words: tuple[str, ...], word: str) -> tuple[int, int]:
    first, second = [i for i, w in enumerate(words) if w == word][:2]
    return first, second


def test_the_two_banks_part_and_come_back_raw_and_stay_apart_centred() -> None:
    from attention_core.readings.layers import layer_states

    lesson = ABSTRACTION["Two banks, through the layers"]
    i, j = _first_and_second(layer_states(english(), lesson.sentence).words, "bank")
    raw = layer_similarity(english(), lesson.sentence)[:, i, j]
    centred = layer_similarity(english(), lesson.sentence, centred=True)[:, i, j]
    assert float(raw[3]) < float(raw[0]) < float(raw[6]) and float(centred[6]) < float(centred[0])
    assert "0.93 at the input V, 0.84 after layer 3, 0.94 after layer 6" in lesson.look_for
    assert ", ".join(two(raw[[0, 3, 6]])) == "0.93, 0.84, 0.94"
    assert ", ".join(two(centred[[0, 3, 6]])) in lesson.look_for


def test_the_two_dhahaba_move_apart_only_with_attention() -> None:
    from attention_core.readings.layers import layer_states

    lesson = ABSTRACTION["ذهب: went and gold, pulled apart by attention"]
    i, j = _first_and_second(layer_states(arabic(), lesson.sentence).words, "ذهب")
    raw = layer_similarity(arabic(), lesson.sentence)[:, i, j]
    centred = layer_similarity(arabic(), lesson.sentence, centred=True)[:, i, j]
    bare = layer_similarity(arabic(), lesson.sentence, knock_out=every_head(arabic()))[:, i, j]
    assert (raw[1:] < raw[0] - 0.2).all() and (bare[1:] > raw[0] - 0.05).all()
    assert f"{float(raw[0]):.2f} at the input V" in lesson.look_for
    assert ", ".join(two(raw[1:])) in lesson.look_for
    assert f"from {float(centred[0]):.2f} to {float(centred[-1]):.2f}" in lesson.look_for
    assert f"({float(bare[-1]):.2f} after layer 3)" in lesson.look_for


def test_the_arabic_paraphrase_stays_closer_than_the_swapped_roles() -> None:
    lesson = ABSTRACTION["Same meaning, or the roles swapped"]
    texts_a = lesson.settings["abstraction_texts_a"].split("\n")
    texts_b = lesson.settings["abstraction_texts_b"].split("\n")
    paraphrase, swapped = (sentence_similarity(arabic(), a, b) for a, b in zip(texts_a, texts_b, strict=True))
    assert float(paraphrase[-1]) > float(swapped[-1])
    assert f"({float(paraphrase[0]):.2f} and {float(swapped[0]):.2f})" in lesson.look_for
    assert f"closer ({float(paraphrase[-1]):.2f}) than the swapped roles ({float(swapped[-1]):.2f})" in lesson.look_for


QUIZZES = [lesson for lesson in ABSTRACTION.values() if lesson.quiz_query() is not None]


@pytest.mark.parametrize("lesson", QUIZZES, ids=lambda lesson: lesson.slug)
def test_a_quiz_link_hides_the_texts_chart_until_the_guess_is_revealed(lesson: Lesson) -> None:
    at = open_link("abstraction", **lesson.quiz_query())
    assert_clean(at)
    charts = lambda: [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]  # noqa: E731
    assert "abstraction_texts" not in charts()
    guess = at.radio(key="abstraction_quiz_guess")
    at.button(key="abstraction_quiz_reveal").click().run()  # no guess yet: Reveal says so
    assert "abstraction_texts" not in charts() and at.warning
    wrong = guess.options[-1]
    at.radio(key="abstraction_quiz_guess").set_value(wrong).run()
    at.button(key="abstraction_quiz_reveal").click().run()
    assert_clean(at)
    assert "abstraction_texts" in charts()
    said = [m.value for m in [*at.success, *at.warning]]
    assert said and ("Hit." in said[0] or "Not this time." in said[0])
    closest = {
        "Other words, same meaning: closer after six layers": "the movie was excellent",
        "A paragraph that never names its topic": "immigration",
        "Same meaning, or the roles swapped": "مضى الرجل إلى السوق",
    }[lesson.title]
    assert closest in said[0]


def test_looked_at_is_not_what_mattered_on_la_rayba_fihi() -> None:
    from attention_core.readings.logit_lens import logit_lens
    from attention_core.readings.occlusion import compare, occlusion

    (lesson,) = [lesson for lesson in LESSONS if lesson.title == "Looked at, or mattered? لا ريب فيه"]
    found = occlusion(arabic(), lesson.sentence)
    shares = compare(arabic().analyze(lesson.sentence), found).attention
    words = list(found.words)
    assert found.guess == lesson.expected_guess and logit_lens(arabic(), lesson.sentence).settles_at == 1
    looked = max(found.others, key=lambda i: float(shares[i]))
    assert words[looked] == "الكتاب" and found.most_mattered == words.index("لا")
    after = {w: f"{found.probability - float(found.drop[words.index(w)]):.2f}" for w in ("الكتاب", "فيه", "لا")}
    assert f"الكتاب ({float(shares[looked]):.2f} of its attention)" in lesson.look_for
    assert f"from {found.probability:.2f} to {after['الكتاب']}" in lesson.look_for
    assert f"لا ({float(shares[words.index('لا')]):.2f}) takes it to {after['لا']}" in lesson.look_for
    assert f"hiding فيه ({float(shares[words.index('فيه')]):.2f}) to {after['فيه']}" in lesson.look_for
