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
from attention_core.words import N_, Worded


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


def head_columns_text(d: int, n_heads: int) -> Worded:
    """'Head 1 uses columns 1–48 of each W, head 2 columns 49–96, …, head 8 columns 337–384'."""
    spans = head_columns(d, n_heads)
    (first, last), others = spans[0], list(enumerate(spans))[1:]
    shown = others if len(others) <= 2 else [others[0], None, others[-1]]  # None: the heads left out, "…"
    items: list[object] = [
        Worded(N_("Head {head} uses columns {first}–{last} of each W"), head=1, first=first, last=last)
    ]
    for span in shown:
        if span is None:
            items.append("…")
        else:
            h, (first, last) = span
            items.append(Worded(N_("head {head} columns {first}–{last}"), head=h + 1, first=first, last=last))
    return listed(items)


def listed(items: list[object]) -> Worded:
    """Items one after another, as a list in a sentence: 'a, b, c' (the list's comma is the reader's language's)."""
    if len(items) == 1:
        return items[0] if isinstance(items[0], Worded) else Worded("{item}", item=items[0])
    return Worded(N_("{first}, {rest}"), first=items[0], rest=listed(items[1:]))


def sentences(parts: list[Worded]) -> Worded:
    """Sentences said one after another, each translated on its own."""
    return Worded(" ".join(f"{{s{i}}}" for i in range(len(parts))), **{f"s{i}": part for i, part in enumerate(parts)})


def input_symbol(settings: TrainableSettings) -> str:
    """The sentence's symbol in the formulas: V̂ once normalised, V as it is."""
    return r"\hat{V}" if settings.normalise else "V"


def scores_text(settings: TrainableSettings, d: int, record: Attention) -> Worded:
    """What the scores heatmap shows, true for these settings and these numbers."""
    V = "V̂" if settings.normalise else "V"
    d_h = d // settings.n_heads
    seen = record.scores[torch.isfinite(record.scores)]  # a causal mask's −∞ are no score a word computed
    text = [
        Worded(
            N_(
                "Row *i* compares word *i*'s V1 (query) with every word's V2 (key); here the scores run from {low:.2f} "
                "to {high:.2f}."
            ),
            low=float(seen.min()),
            high=float(seen.max()),
        )
    ]
    off = [name for name, on in (("W1", settings.use_W1), ("W2", settings.use_W2)) if not on]
    if len(off) == 1:
        text.append(Worded(N_("{W} is off (the identity), so V{n} = {V}."), W=off[0], n=off[0][1], V=V))
    elif off:
        unlike = [
            *([Worded(N_("of the normalised V̂, not V"))] if settings.normalise else []),
            *([Worded(N_("on this head's {d_h} columns only"), d_h=d_h)] if settings.n_heads > 1 else []),
            *([Worded(N_("divided by √{d_h} = {root:.2f}"), d_h=d_h, root=math.sqrt(d_h))] if settings.scale else []),
            *(
                [Worded(N_("divided by the temperature {temperature:g}"), temperature=settings.temperature)]
                if settings.temperature != 1.0
                else []
            ),
        ]
        if unlike:
            but = N_("With W1 and W2 both off, this is the Similarity page's V·Vᵀ, but {differences}.")
            text.append(Worded(but, differences=listed(list(unlike))))
        else:
            text.append(
                Worded(
                    N_(
                        "With W1 and W2 both off, this is exactly the raw V·Vᵀ of the Similarity page "
                        "(its scaling off)."
                    )
                )
            )
    if settings.normalise:
        text.append(
            Worded(
                N_(
                    "V̂ is V normalised as a layer reads it: every row has mean 0 and length √{d} = {root:.1f}, so the "
                    "random W's give scores of order one."
                ),
                d=d,
                root=math.sqrt(d),
            )
        )
    return sentences(text)


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
