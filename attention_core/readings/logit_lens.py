"""When did the model decide? The guess for the blank read at every depth (a "logit lens").

A masked-word model guesses the blank from the last layer's output: its final normalisation (pre-norm: one more
LayerNorm after the last layer), then its output head (word_probabilities: a score per word, the softmax). The
same two steps can be applied to what the blank holds after *any* layer (nostalgebraist 2020 named this the logit
lens; Geva et al. 2022 read GPT-2's layers so). Depth 0 is the input, the [MASK] vector and its position, before
any layer has read a word: its guess is the same for every sentence with the blank in that place (the words the
model finds likely anywhere). Depth ℓ is the residual stream after layer ℓ; the last depth is the model's own
guess, exactly (tests/test_decision.py).

What this shows and what it does not: the head was trained on the last layer's output only, so an earlier depth
read through it is a projection the model never used. A word that is first there already after layer 1 shows
that layer 1 put the blank on the way to it; a depth whose guesses look like noise may still hold the answer in a
direction the output head does not read.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention_core.models.interface import MaskedWordModel
from attention_core.models.knock_out import Ablation, HeadSet, head_masks
from attention_core.story.text import MASK, Token, is_word_form, normalize_word, tokenize


@dataclass(frozen=True)
class LogitLens:
    """The blank's guesses at every depth: 0 the input, ℓ the output of layer ℓ (the last one: the model's guess)."""

    top_words: tuple[tuple[str, ...], ...]  # (n_depths, k) the k likeliest words at each depth, best first
    top_probabilities: torch.Tensor  # (n_depths, k) their probabilities
    gold: str | None  # the word that belongs in the blank (the one the user hid), if known
    gold_rank: tuple[int, ...] | None  # per depth, its rank among the model's words (1: the first guess)
    gold_probability: torch.Tensor | None  # (n_depths,) its probability at each depth

    @property
    def n_depths(self) -> int:
        return len(self.top_words)

    @property
    def guess(self) -> str:
        """The model's own first guess (the last depth's)."""
        return self.top_words[-1][0]

    @property
    def settles_at(self) -> int:
        """The first depth from which the first guess is the model's final one at every depth after it."""
        depth = self.n_depths - 1
        while depth > 0 and self.top_words[depth - 1][0] == self.guess:
            depth -= 1
        return depth

    @property
    def gold_first_at(self) -> int | None:
        """The first depth from which the gold word is the first guess at every depth after it; None if it never
        is (at the last depth)."""
        if self.gold_rank is None or self.gold_rank[-1] != 1:
            return None
        depth = self.n_depths - 1
        while depth > 0 and self.gold_rank[depth - 1] == 1:
            depth -= 1
        return depth


def word_index(model: MaskedWordModel, word: str) -> int | None:
    """The index of `word` (as typed) among the words the model guesses from, or None if it cannot guess it."""
    norm = normalize_word(word)
    vocabulary = getattr(model, "vocabulary", None)  # the models trained here look a word up by its normalised form
    if vocabulary is not None:
        index = vocabulary.index.get(norm)
        return index if index is not None and index not in vocabulary.never_guessed and is_word_form(norm) else None
    probabilities = model.word_probabilities(torch.zeros(model.d_model))  # any other model: by its written forms
    found = [
        i for i in range(len(probabilities)) if probabilities[i] > 0 and normalize_word(model.word_shown(i)) == norm
    ]
    return found[0] if found else None


def rank_of(probabilities: torch.Tensor, index: int) -> int:
    """1 + how many words are likelier than word `index` (probabilities: (vocabulary,))."""
    return 1 + int((probabilities > probabilities[index]).sum())


@torch.no_grad()
def blank_probabilities(
    model: MaskedWordModel, tokens: list[Token], *, knock_out: HeadSet = (), ablation: Ablation = "zero"
) -> torch.Tensor:
    """(n_layers + 1, vocabulary) the probability of every word at the first blank, read at every depth through the
    model's final normalisation and output head, each depth as `predict` reads the last one."""
    blank = model.blank_position(model.encode(tokens)[0])
    x = model.first_input(tokens)  # (1, n, d)
    depths = [model.word_probabilities(model.final_states(x)[0, blank])]
    for layer, removed in enumerate(head_masks(knock_out, model.n_layers, model.n_heads)):
        x = model.run_layer(layer, x, removed, ablation)
        depths.append(model.word_probabilities(model.final_states(x)[0, blank]))
    return torch.stack(depths)


@torch.no_grad()
def logit_lens(
    model: MaskedWordModel,
    text: str | list[Token],
    *,
    k: int = 5,
    gold: str | None = None,
    knock_out: HeadSet = (),
    ablation: Ablation = "zero",
) -> LogitLens:
    """The k likeliest words for the first [MASK] at every depth, and the gold word's rank and probability there,
    with the heads in `knock_out` ((layer, head) from 0) removed as `analyze` removes them."""
    tokens = tokenize(text) if isinstance(text, str) else list(text)
    tokens = tokens[: model.words_read(tokens)]
    if not any(t.norm == MASK for t in tokens):
        raise ValueError("the text has no [MASK] to fill")
    probabilities = blank_probabilities(model, tokens, knock_out=knock_out, ablation=ablation)
    top = torch.topk(probabilities, min(k, model.guessable_words), dim=-1)
    words = tuple(tuple(model.word_shown(int(i)) for i in row) for row in top.indices)
    index = word_index(model, gold) if gold else None
    return LogitLens(
        top_words=words,
        top_probabilities=top.values,
        gold=gold or None,
        gold_rank=tuple(rank_of(row, index) for row in probabilities) if index is not None else None,
        gold_probability=probabilities[:, index] if index is not None else None,
    )
