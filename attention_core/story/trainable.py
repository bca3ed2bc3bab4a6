"""Trainable attention before training, as its page shows it: the sentence a layer reads, seeded W1, W2, W3 split
into heads, and sentences that say what the numbers on screen are, for whatever the controls chose.

Defaults that teach: a layer reads its input normalised (every row mean 0, variance 1, so of length √d), and W's
drawn N(0, 1/d) then give every head scores of order one: rows differ, and a low temperature sharpens them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from attention_core.story.attention import Attention, attend_heads, causal_mask, normalise, random_projections


@dataclass(frozen=True)
class TrainableSettings:
    """What the page's controls chose; frozen, so it can key a cache."""

    use_W1: bool = True  # noqa: N815 (the maths' name) — off: V1 = V, the identity
    use_W2: bool = True  # noqa: N815 (the maths' name) — off: V2 = V
    use_W3: bool = True  # noqa: N815 (the maths' name) — off: V3 = V
    normalise: bool = True  # read V as a layer does; off, MiniLM's short raw vectors give flat attention
    scale: bool = True  # divide the scores by √d_h, the head's width
    softmax: bool = True  # turn each row of scores into shares that sum to 1
    temperature: float = 1.0  # the scores are divided by it: low = sharp, high = even
    n_heads: int = 1
    seed: int = 0  # of the random W1, W2, W3; in the URL, so a shared link draws the same ones
    causal: bool = False  # a word looks only at itself and the words before it, as in a text generator


def trainable_heads(V: torch.Tensor, settings: TrainableSettings) -> list[Attention]:
    """Every head's attention of the sentence V (n, d) under the page's settings, one record per head."""
    x = normalise(V) if settings.normalise else V
    W1, W2, W3 = random_projections(V.shape[-1], settings.seed)
    return attend_heads(
        x,
        settings.n_heads,
        W1 if settings.use_W1 else None,
        W2 if settings.use_W2 else None,
        W3 if settings.use_W3 else None,
        scale=settings.scale,
        softmax=settings.softmax,
        temperature=settings.temperature,
        mask=causal_mask(V.shape[0]) if settings.causal else None,
    )


def head_columns(d: int, n_heads: int) -> list[tuple[int, int]]:
    """(first, last) column of each W that each head uses, counted from 1 as the page numbers its heads."""
    d_h = d // n_heads
    return [(h * d_h + 1, (h + 1) * d_h) for h in range(n_heads)]


def head_columns_text(d: int, n_heads: int) -> str:
    """'Head 1 uses columns 1–48 of each W, head 2 columns 49–96, …, head 8 columns 337–384'."""
    spans = [f"head {h + 1} columns {first}–{last}" for h, (first, last) in enumerate(head_columns(d, n_heads))]
    shown = spans if len(spans) <= 3 else [*spans[:2], "…", spans[-1]]
    first = shown[0].replace(" columns", " uses columns", 1) + " of each W"
    return "H" + ", ".join([first, *shown[1:]])[1:]


def input_symbol(settings: TrainableSettings) -> str:
    """The sentence's symbol in the formulas: V̂ once normalised, V as it is."""
    return r"\hat{V}" if settings.normalise else "V"


def scores_text(settings: TrainableSettings, d: int, record: Attention) -> str:
    """What the scores heatmap shows, true for these settings and these numbers."""
    V = "V̂" if settings.normalise else "V"
    d_h = d // settings.n_heads
    seen = record.scores[torch.isfinite(record.scores)]  # a causal mask's −∞ are no score a word computed
    low, high = float(seen.min()), float(seen.max())
    text = (
        f"Row *i* compares word *i*'s V1 (query) with every word's V2 (key); here the scores run from {low:.2f} "
        f"to {high:.2f}."
    )
    off = [name for name, on in (("W1", settings.use_W1), ("W2", settings.use_W2)) if not on]
    if len(off) == 1:
        text += f" {off[0]} is off (the identity), so V{off[0][1]} = {V}."
    elif off:
        unlike = [
            *(["of the normalised V̂, not V"] if settings.normalise else []),
            *([f"on this head's {d_h} columns only"] if settings.n_heads > 1 else []),
            *([f"divided by √{d_h} = {math.sqrt(d_h):.2f}"] if settings.scale else []),
            *([f"divided by the temperature {settings.temperature:g}"] if settings.temperature != 1.0 else []),
        ]
        if unlike:
            text += " With W1 and W2 both off, this is the Similarity page's V·Vᵀ, but " + ", ".join(unlike) + "."
        else:
            text += " With W1 and W2 both off, this is exactly the raw V·Vᵀ of the Similarity page (its scaling off)."
    if settings.normalise:
        text += (
            f" V̂ is V normalised as a layer reads it: every row has mean 0 and length √{d} = {math.sqrt(d):.1f}, "
            "so the random W's give scores of order one."
        )
    return text


@dataclass(frozen=True)
class Sharpness:
    """How far the heads are from flat attention (every weight 1/n), measured over every row of every head."""

    score_std: float  # spread of the scores
    mean_max_weight: float  # a row's largest weight, averaged: 1/n when flat, 1 when each row picks one word
    min_max_weight: float  # the flattest row's largest weight


def sharpness(heads: list[Attention]) -> Sharpness:
    scores = torch.stack([h.scores for h in heads])  # (heads, n, n)
    scores = scores[torch.isfinite(scores)]  # without a causal mask's −∞
    top = torch.stack([h.weights for h in heads]).max(dim=-1).values  # (heads, n)
    return Sharpness(float(scores.std()), float(top.mean()), float(top.min()))
