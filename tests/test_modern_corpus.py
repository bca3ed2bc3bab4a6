"""The project's modern Arabic (issue 27): a training text of everyday Modern Standard Arabic written for this
project, and a test set written apart from it on other topics, which no training ever reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_core.story.text import tokenize
from attention_core.training.corpora import BUILT_IN, load_corpus, modern_lines, modern_test_lines
from tests.conftest import assert_clean, open_framed_link
from ui.i18n import in_language
from ui.train.corpora import BUILT_IN_CHOICES

ROOT = Path(__file__).resolve().parents[1]
ARABIC_ONLY = re.compile(r"^[\u0621-\u064A\u0651 ،؟]+$")  # letters, shadda, space, Arabic comma and question mark


def normal(line: str) -> tuple[str, ...]:
    """A sentence as the models read it (the tokenizer's own normalisation): what counts as the same sentence."""
    return tuple(tokenize(line))


def test_the_modern_text_is_at_least_5000_distinct_everyday_sentences() -> None:
    lines = modern_lines()
    assert len(lines) >= 5000
    assert len({normal(line) for line in lines}) == len(lines), "a sentence written twice"
    assert [line for line in lines if not ARABIC_ONLY.match(line)] == []
    assert all(4 <= len(line.split()) <= 18 for line in lines)
    words = [word for line in lines for word in line.split()]
    assert "الله" not in words  # everyday Arabic: the guesses a class sees must not come from religious formulas
    for common in ("في", "إلى", "على", "من", "مع", "أن", "عن"):  # the words the everyday test hides
        assert words.count(common) >= 300, common


def test_the_test_set_is_never_trained_on() -> None:
    """Not a sentence of the test set (nor of bench/everyday_arabic.txt, the classroom sentences) is in the training
    text, as the models read them; the corpus named "modern" reads the training folder only."""
    test = modern_test_lines()
    assert len(test) >= 700
    trained = {normal(line) for line in modern_lines()}
    assert [line for line in test if normal(line) in trained] == []
    everyday = [line for line in (ROOT / "bench/everyday_arabic.txt").read_text(encoding="utf-8").splitlines() if line]
    assert [line for line in everyday if normal(line) in trained] == []
    corpus = load_corpus("modern")
    assert set(corpus.train + corpus.held_out) == set(modern_lines())
    assert not set(corpus.train + corpus.held_out) & set(test)


def test_modern_is_a_built_in_corpus_for_the_cli_and_a_mix() -> None:
    assert "modern" in BUILT_IN
    mixed = load_corpus("quran,modern*2")
    assert [(part.name, part.weight) for part in mixed.weighted_parts()] == [("quran", 1), ("modern", 2)]
    assert "written for this project" in load_corpus("modern").credit


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize(
    ("english", "corpus"),
    [
        ("Modern Standard Arabic: everyday sentences (built in)", "modern"),
        ("English: everyday sentences (built in)", "english_everyday"),  # issue 34
    ],
)
def test_the_train_page_offers_the_everyday_corpora(lang: str, english: str, corpus: str) -> None:
    at = open_framed_link("train", lang=lang)
    assert_clean(at)
    label = in_language(lang, english)
    assert label in at.radio(key="train_corpus").options
    assert lang == "en" or label != english  # translated
    assert BUILT_IN_CHOICES[english] == corpus
