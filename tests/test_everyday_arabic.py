"""The everyday Arabic sentence set (bench/everyday_arabic.txt) and how the shipped model reads it.

No accuracy is asserted here (bench/everyday_arabic.py measures it, docs/everyday-arabic.md): what must hold for
any model trained on the Qurʾān and the hadith is that it has a learned vector for nearly every everyday word."""

from __future__ import annotations

import unicodedata

import pytest

from attention_core import TrainedModel, load_model
from attention_core.story.text import MASK, tokenize
from bench.everyday_arabic import (
    COMMON,
    common_word_blanks,
    coverage,
    guess_blanks,
    hit_rate,
    read_sentences,
    word_splits,
)


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    return read_sentences()


@pytest.fixture(scope="module")
def model() -> TrainedModel:
    return load_model()


def test_the_set_has_at_least_forty_sentences_each_with_a_common_word(sentences: list[str]) -> None:
    assert len(sentences) >= 40
    without = [s for s in sentences if not any(t.norm in COMMON for t in tokenize(s) if t.is_word)]
    assert not without, without


def test_every_sentence_is_arabic_without_digits_or_latin_letters(sentences: list[str]) -> None:
    def foreign(ch: str) -> bool:
        return ch.isdigit() or (ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN"))

    bad = [s for s in sentences if any(foreign(ch) for ch in s)]
    assert not bad, bad
    lengths = [sum(t.is_word for t in tokenize(s)) for s in sentences]
    assert all(4 <= n <= 12 for n in lengths), [s for s, n in zip(sentences, lengths, strict=True) if not 4 <= n <= 12]


def test_at_most_three_percent_of_the_words_lack_a_learned_vector(model: TrainedModel, sentences: list[str]) -> None:
    found = coverage(model, sentences)
    assert found.n_words > 0
    assert found.unknown_share <= 0.03, sorted(set(found.unknown))


def test_each_blank_hides_exactly_one_common_word(sentences: list[str]) -> None:
    blanks = common_word_blanks(sentences[:5])
    assert blanks
    for blank in blanks:
        assert sum(t.surface == MASK for t in blank.tokens) == 1
        assert blank.hidden.norm in COMMON
        assert len(blank.tokens) == len(tokenize(blank.sentence))


def test_the_measures_run_on_the_shipped_model(model: TrainedModel, sentences: list[str]) -> None:
    guessed = guess_blanks(model, common_word_blanks(sentences[:3]), k=5)
    assert guessed and all(len(g.guesses) == 5 for g in guessed)
    assert 0.0 <= hit_rate(guessed, 1) <= hit_rate(guessed, 5) <= 1.0
    splits = word_splits(model, sentences[:3])
    assert splits.pieces and all(len(pieces) > 1 for pieces in splits.pieces.values())
