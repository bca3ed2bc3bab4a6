"""Word order: without positional encoding, attention cannot tell a sentence from any shuffle of it.

Shuffling the words of V permutes the rows of V, so V·Vᵀ (and softmax of it) is permuted on both axes and the
output rows move with their words — nothing else changes. Adding the positional encoding after the shuffle gives
each word its new place's vector, and the attention pattern really changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention_core.story.rounding import without_rounding_noise


def shuffled_order(n: int, seed: int) -> list[int]:
    """A seeded permutation of range(n) that moves at least two words when n > 1."""
    if n < 2:
        return list(range(n))
    generator = torch.Generator().manual_seed(seed)
    while True:
        order = torch.randperm(n, generator=generator).tolist()
        if order != list(range(n)):
            return order


def swapped_order(n: int, first: int, second: int) -> list[int]:
    """range(n) with two places exchanged: *the dog bit the man* → *the man bit the dog* (places 1 and 4)."""
    if not (0 <= first < n and 0 <= second < n):
        raise ValueError(f"places {first} and {second} are not both in a sentence of {n} words")
    order = list(range(n))
    order[first], order[second] = order[second], order[first]
    return order


@dataclass(frozen=True)
class ShuffleEffect:
    original: torch.Tensor  # (n, n) attention weights of the sentence as typed
    shuffled: torch.Tensor  # (n, n) attention weights of the shuffled sentence, in shuffled order
    restored: torch.Tensor  # (n, n) the shuffled weights put back into the typed order
    difference: torch.Tensor  # (n, n) restored − original, float32 rounding noise cleared to 0 (story/rounding.py)
    largest_change: float  # max |difference|: 0 means attention only moved with the words


def shuffle_effect(original: torch.Tensor, shuffled: torch.Tensor, order: list[int]) -> ShuffleEffect:
    """Compare an attention matrix (scores or weights) of a sentence and of its shuffle (shuffled word i =
    original word order[i])."""
    inverse = torch.argsort(torch.tensor(order))
    restored = shuffled[inverse][:, inverse]
    # Equal in exact arithmetic without positions, yet a few units in the last place apart on some CPUs: that is 0.
    difference = without_rounding_noise(restored - original, original, restored)
    return ShuffleEffect(original, shuffled, restored, difference, float(difference.abs().max()))
