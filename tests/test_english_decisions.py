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
