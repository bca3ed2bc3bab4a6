"""The modern Arabic test set, scored as the classical corpora are: the words a class's blanks hide most.

The test set (attention_core/training/modern_heldout) was written apart from the training text, on other topics,
and is never trained on. A class's Fill the blank hides everyday words; the issue that asked for the modern corpus
measured the model on the common ones: في، إلى، على، من، مع، أن (and إن, the same word normalised)، عن.
"""

from __future__ import annotations

from attention_core.story.text import normalize_word
from attention_core.training.corpora import Corpus, modern_test_lines

COMMON_WORDS = ("في", "إلى", "على", "من", "مع", "أن", "عن")
COMMON = frozenset(normalize_word(word) for word in COMMON_WORDS)  # في الى على من مع ان عن (أن and إن are ان)


def modern_test_corpus(training: Corpus) -> Corpus:
    """The modern test set as held-out lines beside `training`'s training lines (the counting baselines learn from
    those, as the model did): evaluate() scores it like any corpus, and no line of it is ever trained on."""
    train = tuple(line for part in training.weighted_parts() for line in part.train)
    return Corpus("modern test set", train, tuple(modern_test_lines()), "the modern test set (never trained on)")
