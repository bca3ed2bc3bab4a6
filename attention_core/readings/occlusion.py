"""What mattered? Each other word hidden in turn, and how much the blank's guess drops (occlusion).

Attention weights say what the blank *looked at*; they do not say what each word *contributed*. A head can look
hard at a word and pass on little (its W3 and output projection shrink it, a later layer undoes it), and the
feed-forward layers transform what arrives without showing up in any weight. Jain & Wallace (2019) found attention
weights often disagree with gradient and leave-one-out importance; Wiegreffe & Pinter (2019) answered that they can
be a useful signal, but only when tested against what the model does. Occlusion tests it directly: hide word i,
run the model again, and see how far the probability of its first guess falls (Zeiler & Fergus 2014 for images;
Li, Monroe & Jurafsky 2016 for words).

How a word is hidden: replaced by [MASK], at its own place. That is honest for a masked-word model, because
[MASK] is the model's own way of saying "a word is here, and I do not know which": it was trained on lines in
which 15 % of the words were hidden, 80 % of those by [MASK] (training/masked_lm.py), so a sentence with a second
[MASK] is one it saw all through training. The alternatives measure something else:
- [UNK] is, in the models trained here, the zero vector (TrainedModel zeroes it): a word vector the model never
  met in training, so the drop would mix the word's absence with the model's reaction to a strange input;
- deleting the word moves every later word one place, and this model reads places (the positional encoding and
  each head's learned bias per distance): the drop would mix what the word said with where the others stand.
A hidden word keeps its place, so what is measured is the word's identity, not its position.

All the hidden variants run as one batch: n sentences of the same length (a model trained here reads one token per
typed word; MiniLM's word of k pieces is hidden by k [MASK]s), so hiding each of 32 words costs one forward pass of
33 sentences (bench/decision_report.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.models.knock_out import Ablation, HeadSet, head_masks
from attention_core.models.word_pieces import pool_to_words
from attention_core.readings.logit_lens import word_index
from attention_core.story.rollout import attention_rollout
from attention_core.story.text import MASK, Token, tokenize

HIDDEN = Token(MASK, MASK, is_word=False)
BATCH_TOKENS = 16_384  # sentences × tokens per forward pass: a 255-word text runs in chunks of 64 sentences
LookedAt = Literal["mean", "rollout"]


@dataclass(frozen=True)
class Occlusion:
    """Each typed word hidden in turn, and what became of the blank's guess."""

    words: tuple[str, ...]  # the typed words and marks the model read, the blank as [MASK]
    blank: int  # the blank's place among them (the first [MASK])
    guess: str  # the model's first guess with every word in place
    probability: float  # its probability
    drop: torch.Tensor  # (n,) its probability less its probability with word i hidden; NaN at the blank
    guess_when_hidden: tuple[str, ...]  # the first guess with word i hidden ("" at the blank)
    gold: str | None  # the word that belongs in the blank, if known and the model can guess it
    gold_probability: float | None
    gold_drop: torch.Tensor | None  # (n,) the same for the gold word's probability

    @property
    def others(self) -> list[int]:
        """The places of every word but the blank."""
        return [i for i in range(len(self.words)) if i != self.blank]

    @property
    def most_mattered(self) -> int | None:
        """The word whose hiding drops the guess most (None for a blank alone)."""
        return max(self.others, key=lambda i: float(self.drop[i])) if self.others else None


def _hidden_one_by_one(x: torch.Tensor, masks: torch.Tensor, places: list[int]) -> torch.Tensor:
    """(len(places), T, d): the first input x (1, T, d) with row places[b] replaced by the [MASK] input's row
    (masks (1, T, d): an all-[MASK] sentence, so row j is [MASK] at place j). A model builds its input row by row
    (a word's vector plus its place's), so this is the input of the sentence with that word hidden."""
    batch = x.expand(len(places), -1, -1).clone()
    rows = torch.tensor(places, dtype=torch.long)  # long even when empty: a blank alone hides no word
    batch[torch.arange(len(places)), rows] = masks[0, rows]
    return batch


@torch.no_grad()
def occlusion(
    model: MaskedWordModel,
    text: str | list[Token],
    *,
    gold: str | None = None,
    knock_out: HeadSet = (),
    ablation: Ablation = "zero",
) -> Occlusion:
    """Hide each typed word but the blank (the first [MASK]) in turn, by [MASK], and measure the fall of the first
    guess's probability (and the gold word's), with the heads in `knock_out` removed as `analyze` removes them."""
    tokens = tokenize(text) if isinstance(text, str) else list(text)
    tokens = tokens[: model.words_read(tokens)]
    blank = next((i for i, t in enumerate(tokens) if t.norm == MASK), None)
    if blank is None:
        raise ValueError("the text has no [MASK] to fill")
    model_tokens = model.encode(tokens)[0]
    others = [i for i in range(len(tokens)) if i != blank]
    layers = head_masks(knock_out, model.n_layers, model.n_heads)
    if model.reads_word_pieces:  # MiniLM: a word of k pieces is hidden by k [MASK]s, so every later piece keeps its
        # place and every variant has the sentence's length: one batch still
        own = len(model.encode([])[0])  # the model's own tokens around any sentence ([CLS], [SEP])
        variants = [
            [*tokens[:i], *[HIDDEN] * (len(model.encode([tokens[i]])[0]) - own), *tokens[i + 1 :]] for i in others
        ]
        inputs = torch.cat([model.first_input(tokens), *(model.first_input(v) for v in variants)])
        place = model.blank_position(model_tokens)
    else:  # one token a word: each variant is the sentence's input with one row swapped for [MASK]'s
        offset = len(model_tokens) - len(tokens)  # the model's own tokens in front ([CLS])
        x = model.first_input(tokens)  # (1, T, d)
        masks = model.first_input([HIDDEN] * len(tokens))  # (1, T, d)
        inputs = torch.cat([x, _hidden_one_by_one(x, masks, [i + offset for i in others])])  # (1 + n − 1, T, d)
        place = blank + offset
    chunk = max(1, BATCH_TOKENS // inputs.shape[1])
    probabilities = []
    for start in range(0, inputs.shape[0], chunk):
        h = inputs[start : start + chunk]
        for layer, removed in enumerate(layers):
            h = model.run_layer(layer, h, removed, ablation)
        probabilities.append(model.word_probabilities(model.final_states(h)[:, place]))
    p = torch.cat(probabilities)  # (1 + n − 1, vocabulary): the whole sentence, then each word hidden
    first = int(torch.argmax(p[0]))
    index = word_index(model, gold) if gold else None

    def drops(word: int) -> torch.Tensor:
        fall = torch.full((len(tokens),), float("nan"))
        fall[others] = p[0, word] - p[1:, word]
        return fall

    when_hidden = [""] * len(tokens)
    for place, top in zip(others, torch.argmax(p[1:], dim=-1).tolist(), strict=True):
        when_hidden[place] = model.word_shown(top)
    return Occlusion(
        words=tuple(t.surface for t in tokens),
        blank=blank,
        guess=model.word_shown(first),
        probability=float(p[0, first]),
        drop=drops(first),
        guess_when_hidden=tuple(when_hidden),
        gold=gold if index is not None else None,
        gold_probability=float(p[0, index]) if index is not None else None,
        gold_drop=drops(index) if index is not None else None,
    )


def looked_at(analysis: Analysis, blank: int, how: LookedAt = "mean") -> tuple[torch.Tensor, float]:
    """The blank's attention over the typed words (blank: its place among them), and the share left on the model's
    own tokens ([CLS], [SEP]), which no word can be hidden from. how="mean": the blank's row averaged over every
    head of every layer; "rollout": attention rollout's row after the last layer (story/rollout.py: through every
    path of layers, the residual path counted)."""
    typed = [i for i, special in enumerate(analysis.pieces.special) if not special]
    if how == "mean":
        rows = analysis.weights.mean(dim=(0, 1))  # (n, n)
    elif how == "rollout":
        rows = attention_rollout(analysis.weights)[-1]
    else:
        raise ValueError(f"how must be 'mean' or 'rollout', got {how!r}")
    rows = pool_to_words(rows, analysis.pieces)  # a word of several pieces: what its pieces get, summed
    row = rows[typed[blank]]
    return row[typed], float(row.sum() - row[typed].sum())


@dataclass(frozen=True)
class LookedAtAndMattered:
    """The blank's attention beside what each word's hiding did to its guess."""

    occlusion: Occlusion
    attention: torch.Tensor  # (n,) the blank's attention on each typed word (its own share included)
    special_share: float  # what it gave the model's own tokens ([CLS])
    how: LookedAt

    @property
    def most_looked_at(self) -> int | None:
        """The word, other than the blank itself, the blank looked at most."""
        others = self.occlusion.others
        return max(others, key=lambda i: float(self.attention[i])) if others else None

    @property
    def agreement(self) -> float | None:
        """Spearman's rank correlation of attention and drop over the other words (1: the same order; None for
        fewer than three words, or when either is the same for all)."""
        others = self.occlusion.others
        if len(others) < 3:
            return None
        a, d = self.attention[others].double(), self.occlusion.drop[others].double()
        if a.max() == a.min() or d.max() == d.min():
            return None
        return float(torch.corrcoef(torch.stack([_ranks(a), _ranks(d)]))[0, 1])


def _ranks(values: torch.Tensor) -> torch.Tensor:
    """(n,) each value's rank from 0, tied values sharing the mean of their ranks (as Spearman's ρ takes them)."""
    below = (values[None, :] < values[:, None]).sum(dim=1)
    tied = (values[None, :] == values[:, None]).sum(dim=1)
    return below + (tied - 1) / 2


def compare(analysis: Analysis, found: Occlusion, how: LookedAt = "mean") -> LookedAtAndMattered:
    """The occlusion beside the blank's attention row from the sentence's analysis (the same sentence, whole)."""
    typed = sum(not special for special in analysis.pieces.special)
    if typed != len(found.words):  # a mark the model reads as nothing (a lone emoji variation selector in MiniLM)
        raise ValueError(f"{typed} attention weights for {len(found.words)} words")
    attention, special = looked_at(analysis, found.blank, how)
    return LookedAtAndMattered(found, attention, special, how)
