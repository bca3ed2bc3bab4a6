"""Guess, then reveal (issue 15): the scores against numpy, and the quiz on Multi-head, Similarity and Trainable
attention opened from a teacher's link: hidden until the student reveals, then the head's own map, their guess
outlined and the score; the lessons gallery's quiz versions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core.figures.numbers import written_alone
from attention_core.models.trained import load_model
from attention_core.story.guess_score import score_pick, score_shares
from attention_core.story.text import tokenize
from tests.conftest import assert_clean, figure_of, open_link, open_page, values
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import QUIZ_PAGES

IT_TIRED = "The animal didn't cross the street because it was too tired"
GOLD = "ذهب الله بنورهم ولهم اساور من ذهب"


def chart_keys(at: AppTest) -> list[str]:
    return [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]


def revealed_with(at: AppTest, page: str, picked: str) -> AppTest:
    """Guess the word named `picked` (a place name such as "the ·1" where the word repeats), then Reveal."""
    at.selectbox(key=f"{page}_quiz_pick").set_value(picked).run()
    return at.button(key=f"{page}_quiz_reveal").click().run()


# The scores, against numpy


def test_a_pick_is_scored_against_the_rows_largest_weight_and_its_rank() -> None:
    generator = np.random.default_rng(3)
    for _ in range(50):
        row = generator.dirichlet(np.ones(7))
        picked = int(generator.integers(7))
        score = score_pick(torch.tensor(row), picked)
        assert score.hit == (picked == int(np.argmax(row)))
        assert score.weight == pytest.approx(row[picked])
        assert score.strongest == (int(np.argmax(row)),)
        assert score.rank == 1 + int(np.sum(row > row[picked]))


def test_a_tie_counts_every_tied_word_as_a_hit() -> None:
    row = torch.tensor([1.0, 0.2, 1.0, -0.5])  # one-hot similarities: the same word twice
    assert score_pick(row, 2).hit and score_pick(row, 0).hit and score_pick(row, 2).strongest == (0, 2)
    assert not score_pick(row, 1).hit and score_pick(row, 1).rank == 3


def test_drawn_shares_are_scored_by_total_variation_against_numpy() -> None:
    generator = np.random.default_rng(5)
    for _ in range(50):
        row = generator.dirichlet(np.ones(6))
        amounts = generator.integers(0, 11, 6).astype(float)
        amounts[0] += 1  # never all zero
        score = score_shares(torch.tensor(row), list(amounts))
        guess = amounts / amounts.sum()
        assert np.allclose(score.guess.numpy(), guess)
        assert score.distance == pytest.approx(0.5 * np.abs(guess - row).sum())
        assert score.favoured == int(np.argmax(guess))
    row = torch.tensor([0.0, 0.25, 0.75])
    assert score_shares(row, [0, 1, 3]).distance == pytest.approx(0.0)  # the exact row, in other units
    assert score_shares(row, [5, 0, 0]).distance == pytest.approx(1.0)  # all where the row has nothing


@pytest.mark.parametrize("amounts", [[0, 0, 0], [1, -1, 2], [1, 2]])
def test_shares_that_cannot_be_shares_are_refused(amounts: list[float]) -> None:
    with pytest.raises(ValueError):
        score_shares(torch.tensor([0.2, 0.3, 0.5]), amounts)


# Multi-head, from a teacher's quiz link


def test_a_quiz_link_hides_every_heatmap_until_the_student_reveals() -> None:
    at = open_link("heads", heads_sentence=IT_TIRED, heads_quiz="true", heads_quiz_head="L4 H2", heads_quiz_row="it")
    assert_clean(at)
    assert chart_keys(at) == []  # not the grid, not a head: nothing to read the answer from
    assert at.selectbox(key="heads_quiz_head").format_func(at.selectbox(key="heads_quiz_head").value) == "L4 H2"
    assert any("L4 H2 · Which word does “it” attend to most?" in m.value for m in at.markdown)
    link = next(m.value for m in at.markdown if m.value.startswith("[Link to this quiz"))
    assert "heads_quiz=true" in link and "heads_quiz_head=L4+H2" in link and "heads_quiz_row=it" in link
    at.button(key="heads_quiz_reveal").click().run()  # nothing guessed yet: Reveal says so, and reveals nothing
    assert [w.value for w in at.warning] == ["Pick the word you think it attends to most, then press Reveal."]
    assert chart_keys(at) == []

    names = at.selectbox(key="heads_quiz_row").options
    at = revealed_with(at, "heads", "street")
    assert_clean(at)
    shown = torch.tensor(values(figure_of(at, "heads_quiz_map")))
    assert shown.shape == (13, 13)  # whole words with [CLS] and [SEP], as the page's grid draws them
    row = shown[names.index("it")]
    assert float(row.max()) == pytest.approx(0.64, abs=0.01) and names[int(row.argmax())] == "animal"
    assert float(row.sum()) == pytest.approx(1.0, abs=1e-5)
    (warning,) = at.warning
    street = float(row[names.index("street")])
    assert f"It attends most to animal (0.64). Your word, street, gets {written_alone(street)}" in warning.value
    shapes = figure_of(at, "heads_quiz_map")["layout"]["shapes"]
    assert len(shapes) == 1  # the guess outlined: row it, column street
    assert {"heads_grid", "heads_quiz_row_bars"} <= set(chart_keys(at))  # the page below opens

    at.selectbox(key="heads_quiz_row").set_value("animal").run()  # another question: hidden again
    assert chart_keys(at) == []


def test_drawing_the_shares_scores_the_distance_to_the_true_row() -> None:
    at = open_link("heads", heads_sentence=GOLD, heads_quiz="true", heads_quiz_head="L2 H1", heads_quiz_row="ذهب ·2")
    at.radio(key="heads_quiz_how").set_value("share its attention out").run()
    names = at.selectbox(key="heads_quiz_row").options
    at.slider(key="heads_quiz_share_من").set_value(10).run()
    at.button(key="heads_quiz_reveal").click().run()
    assert_clean(at)
    model = load_model()
    head = model.analyze(tokenize(GOLD)).weights[1, 0]  # layer 2, head 1; [CLS] first, as the page draws it
    row = head[names.index("ذهب ·2")]
    assert at.success and "من" in at.success[0].value  # all on من: the row's strongest word, 0.49
    distance = 0.5 * float((row - torch.nn.functional.one_hot(row.argmax(), len(row))).abs().sum())
    assert any(f"Your shares are **{distance:.2f}**" in m.value for m in at.markdown)
    bars = figure_of(at, "heads_quiz_row_bars")
    assert [d["name"] for d in bars["data"]] == ["the model", "your guess"]
    assert np.allclose(bars["data"][0]["y"], row.numpy(), atol=1e-6)
    assert bars["layout"]["xaxis"]["autorange"] == "reversed"  # an Arabic sentence reads right to left


def test_similarity_and_trainable_ask_about_their_own_weights() -> None:
    # Similarity without softmax: the weights are raw similarities, so no shares to draw, and a word resembles
    # itself most.
    at = open_link("similarity", similarity_sentence="the dog bit the man", similarity_quiz="true")
    assert_clean(at)
    assert chart_keys(at) == []
    assert at.radio(key="similarity_quiz_how").options == ["pick the word it attends to most"]
    at = revealed_with(at, "similarity", "man")  # row "the ·1" (the first word)
    assert at.warning and "rank" in at.warning[0].value
    assert {"similarity_quiz_map", "similarity_A"} <= set(chart_keys(at))
    assert np.allclose(values(figure_of(at, "similarity_quiz_map")), values(figure_of(at, "similarity_A")))
    # Trainable with two heads: the question names the head, and the map is that head's.
    at = open_link(
        "trainable",
        trainable_sentence="the dog bit the man",
        trainable_heads="2",
        trainable_quiz="true",
        trainable_quiz_head="head 2",
        trainable_quiz_row="dog",
    )
    assert_clean(at)
    assert chart_keys(at) == [] and at.radio(key="trainable_quiz_how").options[-1] == "share its attention out"
    at = revealed_with(at, "trainable", "the ·1")
    at.radio(key="trainable_head").set_value(2).run()
    assert np.allclose(values(figure_of(at, "trainable_quiz_map")), values(figure_of(at, "trainable_weights")))


def test_a_shorter_sentence_after_a_quiz_keeps_the_page_whole() -> None:
    at = open_link("similarity", similarity_sentence="a b c d e f g", similarity_quiz="true", similarity_quiz_row="g")
    at = revealed_with(at, "similarity", "g")
    at.text_input(key="similarity_sentence").input("a b").run()  # row 7 and the pick are gone
    assert_clean(at)
    assert at.selectbox(key="similarity_quiz_row").value == "a" and chart_keys(at) == []


# The lessons gallery's quiz versions


QUIZ_LESSONS = [lesson for lesson in LESSONS if lesson.quiz_query() is not None]
# The quizzes on a heatmap's row (the Abstraction page's ask which pair ends closest: test_abstraction_lessons.py).
ROW_QUIZ_LESSONS = [lesson for lesson in QUIZ_LESSONS if lesson.page in QUIZ_PAGES]


def test_every_lesson_with_one_heads_cell_has_a_quiz_version_in_the_gallery() -> None:
    assert len(QUIZ_LESSONS) >= 8
    at = open_page("lessons")
    links = [m.value for m in at.markdown if m.value.startswith("[Quiz version")]
    assert len(links) == len(QUIZ_LESSONS)


@pytest.mark.parametrize("lesson", ROW_QUIZ_LESSONS, ids=lambda lesson: lesson.slug)
def test_a_lessons_quiz_asks_its_cell_and_keeps_the_answer_until_revealed(lesson) -> None:
    at = open_link(lesson.page, **lesson.quiz_query())
    assert_clean(at)
    prefix, cell = lesson.prefix, lesson.cell
    row = at.selectbox(key=f"{prefix}_quiz_row")
    assert row.format_func(row.value).split(" ·")[0] == cell.row
    if lesson.panel:
        head = at.selectbox(key=f"{prefix}_quiz_head")
        assert head.format_func(head.value) == lesson.panel
    assert chart_keys(at) == [] and not any("Look at:" in info.value for info in at.info)  # the answer waits
    columns = [name for name in row.options if name.split(" ·")[0] == cell.column]
    at = revealed_with(at, prefix, columns[cell.column_nth - 1])
    assert_clean(at)
    assert any("Look at:" in info.value for info in at.info)  # now the lesson says where to look
    # The lesson's cell is the row's strongest word, but for the wide street: there layer 4, head 2 lets go of
    # the animal (0.27) and rests on [CLS] (0.36).
    if lesson.title == "It: the animal or the street? (2)":
        assert "It attends most to \\[CLS\\] (0.36)" in at.warning[0].value
    else:
        assert at.success, [w.value for w in at.warning]


# Every widget holds a value its options contain, after any change of sentence, model or page


SISTER = "My sister gave her old bike to a friend who needed it"


def test_a_students_own_sentence_keeps_the_quiz_asking_about_the_word_its_box_shows() -> None:
    """The quiz link of "It: the animal or the street? (1)", a guess, then the student's own sentence: the row box,
    the question and the link name the same word (it), the guess that the new sentence lacks is dropped, and
    Reveal says what is missing instead of revealing nothing."""
    (lesson,) = [lesson for lesson in QUIZ_LESSONS if lesson.title == "It: the animal or the street? (1)"]
    at = open_link(lesson.page, **lesson.quiz_query())
    at.selectbox(key="heads_quiz_pick").set_value("animal").run()
    at.text_input(key="heads_sentence").input(SISTER).run()
    assert_clean(at)
    row, pick = at.selectbox(key="heads_quiz_row"), at.selectbox(key="heads_quiz_pick")
    assert row.value == "it" and row.value in row.options
    assert any("L4 H2 · Which word does “it” attend to most?" in m.value for m in at.markdown)
    assert pick.value is None and "animal" not in pick.options
    at.button(key="heads_quiz_reveal").click().run()
    assert at.warning and chart_keys(at) == []
    at = revealed_with(at, "heads", "friend")
    assert_clean(at)
    assert "heads_quiz_map" in chart_keys(at)
    assert any("Outlined: row" in c.value and "it" in c.value for c in at.caption)


def test_another_model_keeps_every_quiz_box_on_an_option_it_offers() -> None:
    """From MiniLM's L4 H2 to the Arabic model (3 × 4 heads): the head box shows a head the model has, and the
    question names that head."""
    at = open_link("heads", heads_sentence=IT_TIRED, heads_quiz="true", heads_quiz_head="L4 H2", heads_quiz_row="it")
    at.selectbox(key="heads_quiz_pick").set_value("animal").run()
    at.text_input(key="heads_sentence").input(GOLD).run()
    assert_clean(at)
    head, row = at.selectbox(key="heads_quiz_head"), at.selectbox(key="heads_quiz_row")
    assert head.value in head.options and head.value.startswith(("L1", "L2", "L3"))
    assert row.value in row.options and at.selectbox(key="heads_quiz_pick").value is None
    assert any(f"{head.value} · Which word does" in m.value for m in at.markdown)


def test_fewer_heads_on_trainable_keep_the_head_box_on_a_head_it_offers() -> None:
    at = open_link(
        "trainable",
        trainable_sentence="the dog bit the man",
        trainable_heads="4",
        trainable_quiz="true",
        trainable_quiz_head="head 4",
        trainable_quiz_row="man",
    )
    at.select_slider(key="trainable_heads").set_value(2).run()
    assert_clean(at)
    head = at.selectbox(key="trainable_quiz_head")
    assert head.options == ["head 1", "head 2"] and head.value in head.options
    assert any(f"{head.value} · Which word does “man” attend to most?" in m.value for m in at.markdown)


def test_a_guess_far_off_reads_its_weight_with_the_digits_it_needs() -> None:
    """friend gets 0.0003 of it's attention in L4 H2: the score says so, not 0.00 (which reads as nothing at all)."""
    at = open_link("heads", heads_sentence=SISTER, heads_quiz="true", heads_quiz_head="L4 H2", heads_quiz_row="it")
    at = revealed_with(at, "heads", "friend")
    names = at.selectbox(key="heads_quiz_row").options
    row = torch.tensor(values(figure_of(at, "heads_quiz_map")))[names.index("it")]
    friend = float(row[names.index("friend")])
    (warning,) = at.warning
    assert f"Your word, friend, gets {written_alone(friend)}:" in warning.value
    assert float(written_alone(friend)) > 0 and "gets 0.00:" not in warning.value
