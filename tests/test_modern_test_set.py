"""The modern test set is scored as the classical corpora are: the same masks for the model and the baselines,
only the common words when asked, and never a line of it trained on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.models.vocabulary import build_vocabulary
from attention_core.story.text import normalize_word, tokenize
from attention_core.training.batches import Lexicon
from attention_core.training.corpora import Corpus, load_corpus, modern_test_lines
from attention_core.training.evaluate import evaluate
from attention_core.training.test_set import COMMON, is_noun_form, modern_test_corpus, nouns_in


def test_the_test_set_is_scored_beside_the_mix_it_was_trained_with() -> None:
    mix = load_corpus("quran*4,modern")
    test = modern_test_corpus(mix)
    assert test.held_out == tuple(modern_test_lines())
    assert len(test.train) == len(load_corpus("quran").train) + len(load_corpus("modern").train)  # each line once
    assert not set(test.held_out) & set(test.train)


@pytest.fixture(scope="module")
def untrained() -> tuple[MaskedLanguageModel, Lexicon, Corpus]:
    lines = ("ذهب الولد إلى المدرسة في الصباح", "جلس على الكرسي مع أخيه", "عاد من السوق إلى البيت") * 3
    corpus = Corpus("everyday", lines, lines[:2], "test sentences")
    vocabulary = build_vocabulary([t.norm for line in lines for t in tokenize(line) if t.is_word], min_count=1)
    config = replace(preset("tiny"), max_len=16)
    return MaskedLanguageModel.for_vocabulary(config, vocabulary), Lexicon(vocabulary), corpus


def test_common_targets_mask_only_the_common_words(untrained: tuple[MaskedLanguageModel, Lexicon, Corpus]) -> None:
    model, lexicon, corpus = untrained
    every = evaluate(model, lexicon, corpus)
    common = evaluate(model, lexicon, corpus, targets=COMMON)
    # «ذهب الولد إلى المدرسة في الصباح» has 6 words, 2 common; «جلس على الكرسي مع أخيه» 5 words, 2 common
    assert every["n_masked"] == 6 + 5 and common["n_masked"] == 2 + 2
    assert set(common) == set(every)  # the model and both baselines, on the same masks


def test_nouns_are_recognised_by_the_article_or_the_feminine_ending_and_only_they() -> None:
    """Issue 34's noun reading: ال (also after و ف ب ك, and لل) or ة makes a noun or adjective; إلى, إلا and the
    relative pronouns look like it and are not."""
    nouns = ["المدرسة", "والبيت", "بالقلم", "للطلاب", "غرفة", "كبيرة", "فالكتاب"]
    others = ["إلى", "إلا", "الذي", "التي", "الذين", "ذهب", "في", "كتبت", "قلم", "ال"]
    assert all(is_noun_form(normalize_word(w)) for w in nouns)
    assert not any(is_noun_form(normalize_word(w)) for w in others)


def test_noun_targets_mask_only_the_nouns(untrained: tuple[MaskedLanguageModel, Lexicon, Corpus]) -> None:
    model, lexicon, corpus = untrained
    nouns = nouns_in(list(corpus.held_out))
    # «ذهب الولد إلى المدرسة في الصباح»: الولد المدرسة الصباح; «جلس على الكرسي مع أخيه»: الكرسي
    assert nouns == {normalize_word(w) for w in ("الولد", "المدرسة", "الصباح", "الكرسي")}
    assert evaluate(model, lexicon, corpus, targets=nouns)["n_masked"] == 3 + 1
