"""Guess, then reveal: how close a student's guess came to one row of an attention map.

A student guesses, for one row word, either the word it attends to most (a pick) or how it shares its attention out
(one amount per word). The scores are what a class can compare: was the pick the row's strongest word (a tie counts,
as one-hot vectors make exact ties), the weight the picked word really got and its rank, and for drawn shares the
total variation distance ½·Σ|guess − row|: 0 for the exact row, 1 when the guess put everything where the row has
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

TIE = 1e-6  # weights this close to the row's largest count as the largest too


@dataclass(frozen=True)
class PickScore:
    """How a picked word fared in the true row."""

    hit: bool  # the pick is (one of) the row's strongest words
    weight: float  # the weight the picked word got
    strongest: tuple[int, ...]  # the row's strongest words (several on an exact tie)
    strongest_weight: float
    rank: int  # 1 = strongest; words with a larger weight, plus one


@dataclass(frozen=True)
class SharesScore:
    """How a drawn row of shares compares with the true row (both sum to 1)."""

    guess: torch.Tensor  # (n,) the drawn amounts, normalised to shares
    distance: float  # total variation: ½·Σ|guess − row|, 0 (exact) … 1 (nothing in common)
    favoured: int  # the word the drawing gives most (the first of a tie)
    pick: PickScore  # that word, scored as a pick


def score_pick(row: torch.Tensor, picked: int) -> PickScore:
    """Score the word `picked` against the attention row `row` (n weights, any scale: shares or raw similarities)."""
    if not 0 <= picked < len(row):
        raise ValueError(f"picked word {picked} is outside a row of {len(row)} words")
    row = row.double()
    largest = float(row.max())
    strongest = tuple(int(i) for i in torch.nonzero(row >= largest - TIE).flatten())
    weight = float(row[picked])
    rank = int((row > weight + TIE).sum()) + 1
    return PickScore(picked in strongest, weight, strongest, largest, rank)


def score_shares(row: torch.Tensor, amounts: list[float]) -> SharesScore:
    """Score drawn amounts (one per word, ≥ 0, any total > 0) against a row of shares that sums to 1."""
    if len(amounts) != len(row):
        raise ValueError(f"{len(amounts)} amounts for a row of {len(row)} words")
    drawn = torch.tensor(amounts, dtype=torch.float64)
    if bool((drawn < 0).any()) or float(drawn.sum()) <= 0:
        raise ValueError("the amounts must be ≥ 0 and not all 0")
    guess = drawn / drawn.sum()
    distance = 0.5 * float((guess - row.double()).abs().sum())
    favoured = int(guess.argmax())
    return SharesScore(guess, distance, favoured, score_pick(row, favoured))
