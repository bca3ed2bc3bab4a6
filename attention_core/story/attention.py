"""Attention as the seed tells it: a sentence V (n × d) attends to itself through its similarities.

Raw story: weights = V·Vᵀ, output = (V·Vᵀ)·V — each word becomes a mix of the words it resembles.
Trained story: V1 = V·W1, V2 = V·W2, V3 = V·W3 (what others call Q, K, V), scores = V1·V2ᵀ / √d,
weights = softmax(scores) by row, output = weights·V3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F

Metric = Literal["dot", "cosine"]


def unit_vectors(V: torch.Tensor) -> torch.Tensor:
    """V with every row scaled to length 1: the sentence whose dot products are cosines."""
    return F.normalize(V, dim=-1)


def normalise(V: torch.Tensor) -> torch.Tensor:
    """Each row of V with mean 0 and variance 1 over its d features (LayerNorm without a learned gain): a row's
    length becomes √d whatever V's own scale. This is what a layer's attention reads, not the raw embedding."""
    return F.layer_norm(V, V.shape[-1:])


def similarity(V: torch.Tensor, metric: Metric = "dot") -> torch.Tensor:
    """The (n, n) matrix of how alike each pair of words is: dot products V·Vᵀ, or their cosines."""
    if metric == "cosine":
        V = unit_vectors(V)
    elif metric != "dot":
        raise ValueError(f"metric must be 'dot' or 'cosine', got {metric!r}")
    return V @ V.transpose(-2, -1)


@dataclass(frozen=True)
class Attention:
    """Every intermediate of one attention, so each can be drawn: shapes for a sentence of n words."""

    V1: torch.Tensor  # (n, d_k) V·W1, the "queries"
    V2: torch.Tensor  # (n, d_k) V·W2, the "keys"
    V3: torch.Tensor  # (n, d_v) V·W3, the "values"
    scores: torch.Tensor  # (n, n) V1·V2ᵀ, scaled by 1/√d_k when asked, divided by the temperature
    weights: torch.Tensor  # (n, n) softmax of scores by row, or the scores themselves
    output: torch.Tensor  # (n, d_v) weights·V3: each word as a mix of the words it attends to


def attention(
    V1: torch.Tensor,
    V2: torch.Tensor,
    V3: torch.Tensor,
    *,
    scale: bool = True,
    softmax: bool = True,
    temperature: float = 1.0,
    bias: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
) -> Attention:
    """The formula, written here once; every attention in the package is this function:

        scores  = V1·V2ᵀ / √d_k (when scaled) / temperature + bias
        weights = softmax(scores) by row (or the scores themselves, without the softmax)
        output  = weights·V3

    `bias` (broadcastable to the scores) is a model's learned bias per distance between words. `mask`, True where
    a word must not be looked at (padding, or the future), sets those scores to −∞ before the softmax, so their
    weights are exactly 0 (without a softmax, the weights there are 0). Any leading dimensions (batches, heads)
    broadcast; V1 (…, n, d_k), V2 (…, m, d_k), V3 (…, m, d_v)."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    if V1.shape[-1] != V2.shape[-1]:
        raise ValueError(f"V1 and V2 must have the same width to be compared, got {V1.shape[-1]} and {V2.shape[-1]}")
    scores = V1 @ V2.transpose(-2, -1)
    if scale:
        scores = scores / math.sqrt(V1.shape[-1])
    scores = scores / temperature
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1) if softmax else scores
    if mask is not None and not softmax:
        weights = weights.masked_fill(mask, 0.0)
    return Attention(V1=V1, V2=V2, V3=V3, scores=scores, weights=weights, output=weights @ V3)


def attend(
    V: torch.Tensor,
    W1: torch.Tensor | None = None,
    W2: torch.Tensor | None = None,
    W3: torch.Tensor | None = None,
    *,
    scale: bool = True,
    softmax: bool = True,
    temperature: float = 1.0,
    mask: torch.Tensor | None = None,
) -> Attention:
    """Attention of the sentence V (n, d) to itself; a W of None is the identity, so with all three None this is
    the raw story (V·Vᵀ, then its weights times V)."""
    V1 = V if W1 is None else V @ W1
    V2 = V if W2 is None else V @ W2
    V3 = V if W3 is None else V @ W3
    return attention(V1, V2, V3, scale=scale, softmax=softmax, temperature=temperature, mask=mask)


def causal_mask(n: int) -> torch.Tensor:
    """(n, n), True above the diagonal: word i may look at words 0…i only, as in a text generator."""
    return torch.ones(n, n, dtype=torch.bool).triu(1)


def future_blocked(n: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """causal_mask as a bias added to the scores (a model layer's form): −∞ above the diagonal, 0 elsewhere."""
    return torch.zeros(n, n, dtype=dtype).masked_fill(causal_mask(n), float("-inf"))


def attend_heads(
    V: torch.Tensor,
    n_heads: int,
    W1: torch.Tensor | None = None,
    W2: torch.Tensor | None = None,
    W3: torch.Tensor | None = None,
    *,
    scale: bool = True,
    softmax: bool = True,
    temperature: float = 1.0,
    mask: torch.Tensor | None = None,
) -> list[Attention]:
    """Multi-head attention, one record per head: head h (from 0) uses columns h·d_h … (h+1)·d_h − 1 of each W.
    mask (n, n), True where a word may not look (causal_mask), is the same for every head.

    With a W of None, head h compares the same slice of the word vectors themselves.
    Each head is scaled by its own width: 1/√d_h. All heads go through `attention` at once (heads first).
    """
    d = V.shape[-1] if W1 is None else W1.shape[-1]
    if n_heads < 1 or d % n_heads:
        raise ValueError(f"{n_heads} heads do not divide the width {d}")

    def split(W: torch.Tensor | None) -> torch.Tensor:  # (n_heads, n, d_h): V·W's columns, head by head
        projected = V if W is None else V @ W
        return projected.reshape(V.shape[0], n_heads, -1).transpose(0, 1)

    every = attention(split(W1), split(W2), split(W3), scale=scale, softmax=softmax, temperature=temperature, mask=mask)
    fields = (every.V1, every.V2, every.V3, every.scores, every.weights, every.output)
    return [Attention(*(tensor[h] for tensor in fields)) for h in range(n_heads)]


def random_projections(d: int, seed: int, d_out: int | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Three seeded (d, d_out) matrices W1, W2, W3 with entries N(0, 1/d), so V·W keeps V's scale.

    They stand in for trained weights: what matters for the lesson is that V1, V2, V3 are new views of V. On a
    normalised V (rows of length √d) each column of V·W has variance 1, so a head's V1ᵢ·V2ⱼ/√d_h has variance 1:
    scores of order one, attention neither flat nor one-hot.
    """
    generator = torch.Generator().manual_seed(seed)
    d_out = d_out or d
    W1, W2, W3 = (torch.randn(d, d_out, generator=generator) / math.sqrt(d) for _ in range(3))
    return W1, W2, W3
