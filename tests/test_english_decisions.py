"""Every decision feature in English, with the shipped English guesser (issue 34): MiniLM with its layers retrained
here to guess a hidden word (attention_core/shipped/english). The page's numbers are the model's own, computed here
again: Fill the blank's guesses and its knock-out by link, Multi-head's guesses before → after a knock-out, Minimal
pairs' guesses; and the issue's two sentences get sensible words in the first three."""

from __future__ import annotations

import pytest

from attention_core.models.english_guesser import GuessingMiniLM, load_guessing_minilm, retrained_shipped
from attention_core.models.knock_out_effects import compare_guesses
from attention_core.models.pretrained import ModelNotInstalledError
from attention_core.readings.logit_lens import logit_lens
from attention_core.readings.occlusion import occlusion
from attention_core.story.text import tokenize
from tests.conftest import assert_clean, open_link
from ui.lessons.catalogue import LESSONS
from ui.lessons.lesson import Lesson

CAT, CUP = "The cat sat on the [MASK].", "I drink a cup of [MASK] every morning."
# Words a person would accept in each blank (the issue: "sensible words in its first three").
SENSIBLE = {
    CAT: {"mat", "floor", "bed", "table", "chair", "sofa", "ground", "grass", "couch", "carpet", "rug", "step", "wall"},
    CUP: {"tea", "coffee", "milk", "water", "juice", "chocolate", "soup", "cocoa"},
}


@pytest.fixture(scope="module")
def guesser() -> GuessingMiniLM:
    try:
        return load_guessing_minilm()
    except ModelNotInstalledError as error:  # the English wheel is optional; CI installs it
        pytest.skip(str(error))


def test_the_shipped_english_guesser_is_minilm_retrained() -> None:
    assert retrained_shipped()


@pytest.mark.parametrize("sentence", [CAT, CUP])
def test_the_issue_s_two_sentences_get_a_sensible_word_in_the_first_three(
    guesser: GuessingMiniLM, sentence: str
) -> None:
    first_three = [word for word, _ in guesser.fill_mask(sentence, 3)]
    assert SENSIBLE[sentence] & set(first_three), first_three


def test_fill_the_blank_guesses_english_with_the_retrained_minilm_and_says_so(guesser: GuessingMiniLM) -> None:
    at = open_link("fill_blank", fill_blank_sentence=CUP)
    assert_clean(at)
    expected = guesser.fill_mask(CUP, 5)
    shown = at.dataframe[0].value
    assert list(shown["word"]) == [word for word, _ in expected]
    assert list(shown["probability"]) == pytest.approx([p for _, p in expected], abs=1e-5)
    assert any("six layers retrained here" in c.value for c in at.sidebar.caption)
    assert any("retrained here to play this game" in m.value for m in at.markdown)
    assert not any("no model here can fill an English blank" in i.value for i in at.info)


def test_a_knock_out_by_link_changes_the_english_guesses_as_the_model_says(guesser: GuessingMiniLM) -> None:
    at = open_link("fill_blank", fill_blank_sentence=CAT, fill_blank_knock_out=["L6 H1", "L6 H2"])
    assert_clean(at)
    assert at.multiselect(key="fill_blank_knock_out").value == ["L6 H1", "L6 H2"]
    changes = compare_guesses(guesser, tokenize(CAT), [(5, 0), (5, 1)])
    table = next(frame.value for frame in at.dataframe if "heads knocked out" in frame.value.columns)
    shown = table.set_index("word")
    for change in changes:
        assert shown.loc[change.word, "every head"] == pytest.approx(change.before, abs=1e-3)
        assert shown.loc[change.word, "heads knocked out"] == pytest.approx(change.after, abs=1e-3)


def test_the_lens_and_occlusion_read_the_english_guesser(guesser: GuessingMiniLM) -> None:
    """When it decided: the lens's last depth is the model's own guess; what mattered: occlusion hides each word."""
    lens = logit_lens(guesser, CUP, k=3)
    assert lens.n_depths == 7 and lens.guess == guesser.fill_mask(CUP, 1)[0][0]
    found = occlusion(guesser, CUP)
    assert list(found.words) == [t.surface for t in tokenize(CUP)] and found.guess == lens.guess


def test_multi_head_shows_the_english_guesses_before_and_after_a_knock_out(guesser: GuessingMiniLM) -> None:
    at = open_link("heads", heads_sentence=CUP, heads_view="Knock heads out", heads_knock_out=["L6 H1"])
    assert_clean(at)
    assert any("six layers retrained here" in c.value for c in at.sidebar.caption)
    table = at.dataframe[0].value.set_index("word")
    for change in compare_guesses(guesser, tokenize(CUP), [(5, 0)]):
        assert table.loc[change.word, "every head"] == pytest.approx(change.before, abs=1e-3)
        assert table.loc[change.word, "heads knocked out"] == pytest.approx(change.after, abs=1e-3)


def test_minimal_pairs_compare_the_english_guesses(guesser: GuessingMiniLM) -> None:
    a, b = "She put the [MASK] in the oven.", "She put the [MASK] in the fridge."
    at = open_link("pairs", pairs_sentence=a, pairs_sentence_b=b)
    assert_clean(at)
    table = at.dataframe[0].value.set_index("word")
    for word, p in guesser.fill_mask(a, 3):
        assert table.loc[word, "in A"] == pytest.approx(p, abs=1e-3)
    for word, p in guesser.fill_mask(b, 3):
        assert table.loc[word, "in B"] == pytest.approx(p, abs=1e-3)


def test_a_mark_minilm_reads_as_nothing_leaves_the_hidden_word_and_the_columns_aligned() -> None:
    """The flag's variation selector (U+FE0F) is no piece to MiniLM: left out before a word is hidden, the hidden word
    is still the one the user hid (here the last, red), not the word one place before it."""
    at = open_link("fill_blank", fill_blank_sentence="The 🏳️ flag on the roof is red")
    assert_clean(at)
    assert any(c.value.startswith("The hidden word red is the first guess") for c in at.caption)


def _lesson(title: str) -> Lesson:
    return next(lesson for lesson in LESSONS if lesson.title == title)


def _says(lesson: Lesson, *numbers: float) -> None:
    """Each number as the lesson's text gives it (two decimals): the lesson's numbers are the model's."""
    for number in numbers:
        assert f"{number:.2f}" in lesson.look_for, (number, lesson.title)


def test_the_tea_lesson_head_and_its_knock_out_are_the_models(guesser: GuessingMiniLM) -> None:
    """Tea 0.65 (coffee 0.19); L6 H11 reads cup 0.57 and drink 0.40; without it coffee 0.31 before tea 0.29 and milk
    0.20; without L5 H12 (cup 0.93) tea stays first (0.50); L6 H11 ranks first, L5 H12 second."""
    from attention_core.models.head_importance import head_importance

    lesson = _lesson("Knock out one head: tea becomes coffee")
    tokens = tokenize(lesson.sentence)
    (tea, p_tea), (coffee, p_coffee) = guesser.predict(tokens, 2)
    assert (tea, coffee) == ("tea", "coffee")
    analysis = guesser.analyze(tokens)
    blank, labels = guesser.blank_position(list(analysis.tokens)), analysis.labels
    row_6_11, row_5_12 = analysis.weights[5, 10, blank], analysis.weights[4, 11, blank]
    knocked = guesser.predict(tokens, 3, knock_out=[(5, 10)])
    assert [word for word, _ in knocked] == ["coffee", "tea", "milk"]
    other = guesser.predict(tokens, 1, knock_out=[(4, 11)])[0]
    assert other[0] == "tea" and labels[int(row_5_12.argmax())] == "cup"
    _says(lesson, p_tea, p_coffee, float(row_6_11[labels.index("cup")]), float(row_6_11[labels.index("drink")]))
    _says(lesson, *(p for _, p in knocked), float(row_5_12.max()), other[1])
    ranked = head_importance(guesser, tokens).ranked()
    assert [(layer, head) for layer, head, _ in ranked[:2]] == [(5, 10), (4, 11)]


def test_the_tea_lesson_layers_and_hidden_words_are_the_models(guesser: GuessingMiniLM) -> None:
    """Breakfast after layers 2 and 3, coffee after 4 and 5, tea after 6 (0.65); the blank looks most at cup (0.13)
    and hiding cup matters most (0.33 off tea, water first); drink is looked at next (0.08), yet without it tea
    rises (0.74)."""
    from attention_core.readings.occlusion import looked_at

    lesson = _lesson("When did it decide? Tea only in the last layer")
    lens = logit_lens(guesser, lesson.sentence)
    assert [words[0] for words in lens.top_words[2:]] == ["breakfast", "breakfast", "coffee", "coffee", "tea"]
    assert lens.settles_at == 6
    hidden = occlusion(guesser, lesson.sentence)
    words = list(hidden.words)
    cup, drink = words.index("cup"), words.index("drink")
    assert hidden.guess_when_hidden[cup] == "water" and hidden.most_mattered == cup
    attention, _ = looked_at(guesser.analyze(tokenize(lesson.sentence)), hidden.blank)
    typed = [i for i in range(len(words)) if i != hidden.blank]
    by_attention = sorted(typed, key=lambda i: -float(attention[i]))
    assert by_attention[:2] == [cup, drink]
    assert float(hidden.drop[drink]) < 0  # hiding the word looked at next makes the guess likelier
    _says(lesson, hidden.probability, float(hidden.drop[cup]), float(attention[cup]), float(attention[drink]))
    _says(lesson, hidden.probability - float(hidden.drop[drink]))


def test_the_table_lesson_head_and_layers_are_the_models(guesser: GuessingMiniLM) -> None:
    """On 0.61, in 0.18; in first after layers 3–5, on after 6; L4 H2 reads table 0.94; without it in 0.44 before
    on 0.34; L4 H2 ranks first."""
    from attention_core.models.head_importance import head_importance

    lesson = _lesson("On the table: one head reads the table")
    tokens = tokenize(lesson.sentence)
    guesses = guesser.predict(tokens, 2)
    assert [word for word, _ in guesses] == ["on", "in"]
    lens = logit_lens(guesser, tokens)
    assert [words[0] for words in lens.top_words[3:]] == ["in", "in", "in", "on"]
    analysis = guesser.analyze(tokens)
    row = analysis.weights[3, 1, guesser.blank_position(list(analysis.tokens))]
    assert analysis.labels[int(row.argmax())] == "table"
    knocked = guesser.predict(tokens, 2, knock_out=[(3, 1)])
    assert [word for word, _ in knocked] == ["in", "on"]
    _says(lesson, *(p for _, p in guesses), float(row.max()), *(p for _, p in knocked))
    assert head_importance(guesser, tokens).ranked()[0][:2] == (3, 1)


def test_an_english_lesson_s_quiz_asks_for_the_guess_before_showing_it(guesser: GuessingMiniLM) -> None:
    """The quiz version of an English Fill the blank lesson: the retrained model's five first guesses to pick from,
    nothing shown before the reveal, the first guess a hit."""
    lesson = _lesson("Knock out one head: tea becomes coffee")
    at = open_link("fill_blank", **lesson.quiz_query())
    assert_clean(at)
    assert not at.dataframe
    guesses = [word for word, _ in guesser.fill_mask(lesson.sentence, 5)]
    assert sorted(at.radio(key="fill_blank_quiz_pick").options) == sorted(guesses)
    at.radio(key="fill_blank_quiz_pick").set_value("tea")
    at.button(key="fill_blank_quiz_reveal").click().run()
    assert_clean(at)
    assert any("Hit" in s.value and "tea" in s.value for s in at.success)
    assert at.dataframe[0].value["word"].iloc[0] == "tea"
