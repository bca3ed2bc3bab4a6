"""The modern Arabic test set, scored as the classical corpora are: the words a class's blanks hide most.

The test set (attention_core/training/modern_heldout) was written apart from the training text, on other topics,
and is never trained on. A class's Fill the blank hides everyday words; the issue that asked for the modern corpus
measured the model on the common ones: في، إلى، على، من، مع، أن (and إن, the same word normalised)، عن. Issue 34
asked for the nouns apart: Arabic has no tagger in the registries, so a noun is recognised by its form (NOUN_FORM),
which also takes the adjectives that agree with it — a hidden word of either kind is a guess about things, not
grammar.
"""

from __future__ import annotations

import re

from attention_core.story.text import normalize_word, tokenize
from attention_core.training.corpora import Corpus, modern_test_lines

COMMON_WORDS = ("في", "إلى", "على", "من", "مع", "أن", "عن")
COMMON = frozenset(normalize_word(word) for word in COMMON_WORDS)  # في الى على من مع ان عن (أن and إن are ان)
# A noun or adjective by its form (normalised: one alef): the article ال, alone or after و ف ب ك (and لل: li + al),
# before at least two letters; or the feminine ending ة. Verbs and particles take neither.
NOUN_FORM = re.compile(r"^(?:[وف]?[بك]?ال|[وف]?لل)\w{2,}$|^\w{2,}ة$")
# Words of that form that are not nouns: إلى and إلا (one alef: الى, الا), the relative pronouns.
NOT_NOUNS = frozenset(
    normalize_word(w) for w in ("إلى", "إلا", "الذي", "التي", "الذين", "اللذان", "اللتان", "اللاتي", "اللواتي")
)


def is_noun_form(norm: str) -> bool:
    """True for a normalised word that is a noun or an adjective by its form (NOUN_FORM)."""
    return norm not in NOT_NOUNS and NOUN_FORM.match(norm) is not None


def nouns_in(lines: list[str]) -> frozenset[str]:
    """The normalised words of `lines` that are nouns or adjectives by their form: evaluate()'s targets."""
    return frozenset(t.norm for line in lines for t in tokenize(line) if t.is_word and is_noun_form(t.norm))


def modern_test_corpus(training: Corpus) -> Corpus:
    """The modern test set as held-out lines beside `training`'s training lines (the counting baselines learn from
    those, as the model did): evaluate() scores it like any corpus, and no line of it is ever trained on."""
    train = tuple(line for part in training.weighted_parts() for line in part.train)
    return Corpus("modern test set", train, tuple(modern_test_lines()), "the modern test set (never trained on)")
