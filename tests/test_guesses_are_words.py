"""A guess is always a word (issue 23, point 6): the shipped model's output words held '' (the normalised form of a
lone tatweel, 9,934 times in the hadith), and it came back as a guess for held-out hadith."""

from __future__ import annotations

import unicodedata

import pytest
import torch

from attention_core import load_model
from attention_core.models.vocabulary import build_vocabulary
from attention_core.story.text import MASK, Token, is_word_form, tokenize
from attention_core.training.batches import Lexicon
from attention_core.training.corpora import Corpus, load_corpus
from attention_core.training.evaluate import evaluate, every_word_masks, model_top5, train_counts, word_windows

# Held-out hadith (record 4 of the held-out lines: line 39 of the hadith), its lone tatweels set off a phrase. On
# the code before this fix the model's first guess for the hidden «نزل» was '' (and '' was a guess at most places).
HELD_OUT_HADITH = "كان أول ما قدم المدينة [MASK] على أجداده ـ أو قال أخواله ـ من الأنصار"


def has_a_letter(word: str) -> bool:
    """The oracle: a written word has a letter (tatweel is a "modifier letter", Lm, in Unicode: not one) or a digit."""
    return any(unicodedata.category(ch) in ("Lu", "Ll", "Lt", "Lo") or ch.isdigit() for ch in word)


def test_a_lone_tatweel_is_a_mark_not_a_word() -> None:
    tokens = tokenize("على أجداده ـ أو قال")
    assert [(t.surface, t.is_word) for t in tokens] == [
        ("على", True),
        ("أجداده", True),
        ("ـ", False),
        ("أو", True),
        ("قال", True),
    ]
    assert [t.is_word for t in tokenize("ـَ ٍ")] == [False, False]  # tatweel with a haraka, a stray tanwin
    assert tokenize("الـتفاحة")[0].is_word  # a tatweel inside a word stays part of it
    assert not is_word_form("") and is_word_form("قال") and is_word_form("42")


def test_the_shipped_model_never_guesses_an_empty_word() -> None:
    model = load_model()
    # Whether or not the shipped vocabulary holds '' (the one built before the fix did; one built after cannot), an
    # entry that is no word is never guessed.
    assert all(has_a_letter(word) for word, _ in model.fill_mask(HELD_OUT_HADITH, k=10))
    # Every word of the first held-out hadith records hidden in turn: no guess of the first five is empty.
    held_out = load_corpus("hadith").held_out
    guesses = []
    for line in held_out[:6]:
        tokens = tokenize(line)[:40]
        for i, token in enumerate(tokens):
            if token.is_word:
                blank = [*tokens[:i], Token(MASK, MASK, is_word=False), *tokens[i + 1 :]]
                guesses += [word for word, _ in model.predict(blank, k=5)]
    assert len(guesses) > 500 and all(has_a_letter(word) for word in guesses)
    words = model.vocabulary.words
    assert model.guessable_words == sum(has_a_letter(word) for word in words[model.vocabulary.n_special :])


def test_a_vocabulary_learned_from_text_with_lone_tatweels_has_no_empty_word() -> None:
    lines = ["قال ـ رضي الله عنه ـ قال", "عن أبي هريرة ـ رضي الله عنه ـ"] * 3
    vocabulary = build_vocabulary(lines, min_count=2, n_pieces=200)
    assert "" not in vocabulary.words and "رضي" in vocabulary.words
    assert vocabulary.never_guessed == (0, 1, 2, 3)  # the specials only


@pytest.fixture(scope="module")
def shipped() -> tuple:
    from attention_core.models.checkpoint import load_checkpoint
    from attention_core.models.trained import SHIPPED

    return load_checkpoint(SHIPPED)[:2]


def test_scores_never_mask_a_lone_mark_nor_count_one_as_an_answer(shipped: tuple) -> None:
    model, vocabulary = shipped
    empty = vocabulary.index.get("")  # in a vocabulary built before the fix only
    lexicon = Lexicon(vocabulary)
    hadith = load_corpus("hadith")
    line = hadith.held_out[3]  # two lone tatweels
    corpus = Corpus("hadith", hadith.train, (line,), hadith.credit)
    assert sum(t.surface == "ـ" for t in tokenize(line)) == 2
    result = evaluate(model, lexicon, corpus, max_lines=1, counts=train_counts(lexicon, corpus, 256))
    assert result["n_masked"] == sum(has_a_letter(w) for w in line.split())  # one mask per written word, none more
    # Every word of the record hidden in turn: the model's five best are always written words, never the empty
    # form (before the fix it was the first guess at three of them).
    ids = [vocabulary.cls_id, *lexicon.encode_line(line)]
    masks = every_word_masks([ids], vocabulary.mask_id, [w and i != empty for i, w in enumerate(lexicon.is_word)])
    best = torch.cat(model_top5(model, masks, lexicon)).flatten().tolist()
    assert len(best) == 5 * 142 and all(has_a_letter(vocabulary.words[i]) for i in best)


def test_word_windows_cut_every_n_words_and_carry_the_marks_between() -> None:
    is_word = [False, False, False, False, True, True, True, False]  # ids 0-3 specials, 4-6 words, 7 a mark
    assert word_windows([[3, 4, 7, 5, 6, 4, 7]], is_word, 2) == [[3, 4, 7, 5], [3, 6, 4, 7]]
    assert word_windows([[3, 4, 5]], is_word, 12) == [[3, 4, 5]]  # shorter than a window: one window
