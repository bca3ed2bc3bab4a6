"""Do the layers keep texts close because they mean the same, or because they share words? Read off a learner's own
pairs of texts: the pairs that share most of their words against the pairs in other words, at the last depth.

A pooled cosine (the mean of a text's word vectors, compared by cosine) can follow shared words as much as meaning:
*the dog bit the man* and *the man bit the dog* share every word and mean the opposite. When the pairs that share
their words end closer than the pairs that say something in other words, the page says so plainly (issue 32): on
these texts the cosine follows words, and it cannot tell whether two texts mean the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from attention_core.story.text import tokenize

MOST_WORDS = 0.5  # a pair "shares its words" when at least half of the distinct words the two use are in both


def shared_words(a: str, b: str) -> float:
    """The share of the distinct words of two texts that both use (Jaccard on the words' look-up forms, marks left
    out): 1.0 for the same words in any order, 0.0 for no word in common."""
    words_a, words_b = ({t.norm for t in tokenize(text) if t.is_word} for text in (a, b))
    union = words_a | words_b
    return len(words_a & words_b) / len(union) if union else 0.0


Verdict = Literal["words", "other words", "level"]


@dataclass(frozen=True)
class WordsOrMeaning:
    """The pairs split by the words they share, and which kind ends closer at the last depth."""

    sharing: tuple[int, ...]  # the pairs that share most of their words
    other: tuple[int, ...]  # the pairs in mostly other words
    sharing_mean: float  # their mean cosine at the last depth, as written with two decimals
    other_mean: float
    verdict: Verdict  # "words": the sharing pairs end closer; "other words": the others do; "level": as written


def words_or_meaning(a: Sequence[str], b: Sequence[str], final: Sequence[float]) -> WordsOrMeaning | None:
    """Pair k is (a[k], b[k]) with cosine final[k] at the last depth; None unless there are pairs of both kinds."""
    shares = [shared_words(x, y) for x, y in zip(a, b, strict=True)]
    sharing = tuple(k for k, share in enumerate(shares) if share >= MOST_WORDS)
    other = tuple(k for k, share in enumerate(shares) if share < MOST_WORDS)
    if not sharing or not other:
        return None
    # Compared as the caption writes them (two decimals): 0.994 against 0.991 is a tie, not a win.
    sharing_mean = round(sum(final[k] for k in sharing) / len(sharing), 2)
    other_mean = round(sum(final[k] for k in other) / len(other), 2)
    verdict: Verdict = "words" if sharing_mean > other_mean else "other words" if other_mean > sharing_mean else "level"
    return WordsOrMeaning(sharing, other, sharing_mean, other_mean, verdict)


PUSHED_APART = 0.10  # a pair attention moved apart by at least this much cosine (as written) is named


def pushed_apart(full: Sequence[float], bare: Sequence[float]) -> list[int]:
    """The pairs whose last-depth cosine with attention is lower than without by PUSHED_APART or more (as written
    with two decimals), the largest push first."""
    push = [round(without, 2) - round(with_, 2) for with_, without in zip(full, bare, strict=True)]
    moved = [k for k, amount in enumerate(push) if amount >= PUSHED_APART - 1e-9]
    return sorted(moved, key=lambda k: -push[k])
