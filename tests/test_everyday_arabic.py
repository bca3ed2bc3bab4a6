"""The everyday Arabic sentence set (bench/everyday_arabic.txt), the modern test set, and how the shipped model reads
them: a learned vector for nearly every everyday word, everyday guesses for a class's sentences, and the issue's
targets on the test set (bench/everyday_arabic.py measures the rest, docs/everyday-arabic.md)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from attention_core import TrainedModel, load_model
from attention_core.story.text import MASK, normalize_word, tokenize
from bench.everyday_arabic import (
    COMMON,
    common_word_blanks,
    coverage,
    first_guess_register,
    guess_blanks,
    hit_rate,
    modern_words,
    read_sentences,
    word_splits,
)

MODERN_TEST = Path(__file__).parents[1] / "attention_core" / "training" / "modern_heldout"


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


# The issue's sentences, as a teacher typed them at the projector, with the word the classical model put in each
# blank («ربك», «ربي», «العالمين», «جعلنا»): the shipped model must now offer a word of everyday life among its first
# three, and none that only the Qurʾān and the hadith use.
CLASS_SENTENCES = {
    "ذهب الولد إلى [MASK] في الصباح": {"المدرسة", "السوق", "البيت", "العمل", "الحديقة", "المستشفى", "الجامعة"},
    "أحب أن أشرب [MASK] في الصباح": {"القهوة", "الشاي", "الحليب", "الماء", "العصير"},
    "ذهب الطالب إلى [MASK]": {"المدرسة", "الجامعة", "المكتبة", "الفصل", "البيت", "السوق", "الصف", "المعلم"},
    "قرأت الطالبة [MASK] في المكتبة": {"الكتاب", "كتابا", "القصة", "الدرس", "الرواية", "قصة", "الكتب", "المجلة"},
}
# Still a miss: the hadith's chains of narrators say «قرأت على مالك» hundreds of times, and the modern text has too
# few sentences with قرأ to outweigh them (docs/everyday-arabic.md). strict: the day it passes, this must go.
STILL_CLASSICAL = {"قرأت الطالبة [MASK] في المكتبة"}


@pytest.fixture(scope="module")
def modern() -> frozenset[str]:
    return modern_words()


@pytest.mark.parametrize(
    "sentence",
    [
        pytest.param(s, marks=pytest.mark.xfail(strict=True, reason="«قرأت على مالك» of the hadith"))
        if s in STILL_CLASSICAL
        else s
        for s in CLASS_SENTENCES
    ],
)
def test_a_class_everyday_sentence_gets_everyday_guesses(
    model: TrainedModel, modern: frozenset[str], sentence: str
) -> None:
    guesses = [normalize_word(word) for word, _ in model.predict(tokenize(sentence), 3)]
    assert {normalize_word(word) for word in CLASS_SENTENCES[sentence]} & set(guesses), guesses
    assert all(guess in modern for guess in guesses), guesses  # no word only classical text uses


def test_hardly_any_first_guess_on_everyday_sentences_is_a_classical_only_word(
    model: TrainedModel, sentences: list[str], modern: frozenset[str]
) -> None:
    # Every word of the 64 classroom sentences hidden in turn: the classical model's first guess was a word the
    # modern text never uses 40 % of the time (الله، العالمين، ربك; docs/everyday-arabic.md).
    register = first_guess_register(model, sentences, modern)
    assert register.n_blanks > 400 and register.share <= 0.05, register.classical_only.most_common(10)


def test_the_modern_test_set_meets_the_issue_targets(model: TrainedModel) -> None:
    # attention_core/training/modern_heldout: written apart, never trained on (tests/test_modern_corpus.py)
    guessed = guess_blanks(model, common_word_blanks(read_sentences(MODERN_TEST)), k=5)
    assert len(guessed) > 800
    assert hit_rate(guessed, 1) >= 0.35 and hit_rate(guessed, 5) >= 0.65, (hit_rate(guessed, 1), hit_rate(guessed, 5))
