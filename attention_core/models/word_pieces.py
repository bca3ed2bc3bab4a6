"""Word pieces back into words: a pretrained model reads "unbelievable" as un ##bel ##ie ##vable, but a learner
typed one word. Heatmaps show whole words by default:

- attention *to* a word is the sum over its pieces (a row stays a share of 1: the pieces' shares add up);
- attention *from* a word is the average over its pieces (each piece's row sums to 1, so their mean does too).

So pooled = R · A · Cᵀ, with C (words × pieces) the 0/1 membership and R the same rows divided by their piece
count. [CLS] and [SEP] are words of their own; hiding them drops their rows and columns and renormalises each
remaining row to sum to 1 again (what is left is "how the row's attention splits among the real words").
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class WordPieces:
    """How a model's tokens group into the typed words; [CLS] and [SEP] are words of their own."""

    words: tuple[str, ...]  # one label per word: what the user typed, or [CLS] / [SEP]
    word_of: tuple[int, ...]  # one per model token: the index of its word in `words`
    special: tuple[bool, ...]  # one per word: True for [CLS] and [SEP]
    known: tuple[bool, ...]  # one per word: False when the model could not read it (a piece is [UNK])

    @classmethod
    def one_per_token(cls, labels: list[str], special: list[bool], known: list[bool]) -> WordPieces:
        """A model whose tokens are whole words already (ours): every token is its own word."""
        return cls(tuple(labels), tuple(range(len(labels))), tuple(special), tuple(known))

    @property
    def splits_words(self) -> bool:
        """True when at least one word is read as several pieces."""
        return len(self.word_of) > len(self.words)

    def typed_words(self) -> tuple[list[str], tuple[bool, ...]]:
        """(labels, known) of the typed words only, without [CLS] and [SEP]."""
        kept = [i for i, special in enumerate(self.special) if not special]
        return [self.words[i] for i in kept], tuple(self.known[i] for i in kept)

    def membership(self) -> torch.Tensor:
        """C (words × tokens): 1 where the token is a piece of the word."""
        C = torch.zeros(len(self.words), len(self.word_of))
        C[torch.tensor(self.word_of), torch.arange(len(self.word_of))] = 1.0
        return C


def pool_to_words(weights: torch.Tensor, pieces: WordPieces) -> torch.Tensor:
    """(…, tokens, tokens) attention → (…, words, words): to a word summed over its pieces, from a word averaged
    over its pieces. Rows that summed to 1 still do."""
    C = pieces.membership().to(weights.dtype)
    R = C / C.sum(dim=1, keepdim=True)
    return R @ weights @ C.T


def without_special(weights: torch.Tensor, special: tuple[bool, ...]) -> torch.Tensor:
    """Drop the rows and columns of [CLS]/[SEP] and renormalise every row to sum to 1 again."""
    keep = torch.tensor([not s for s in special])
    kept = weights[..., keep, :][..., :, keep]
    return kept / kept.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(kept.dtype).tiny)


@dataclass(frozen=True)
class ShownAttention:
    """Attention as a page draws it: the matrices, the axis labels, and which labels the model could not read."""

    weights: torch.Tensor  # (…, m, m)
    labels: list[str]
    known: tuple[bool, ...]


def shown_attention(
    weights: torch.Tensor,
    token_labels: list[str],
    token_known: tuple[bool, ...],
    pieces: WordPieces,
    *,
    whole_words: bool = True,
    show_special: bool = True,
) -> ShownAttention:
    """Pool a model's (…, tokens, tokens) attention to whole words (or keep the pieces) and show or hide
    [CLS]/[SEP] (renormalised when hidden)."""
    if whole_words:
        weights, labels = pool_to_words(weights, pieces), list(pieces.words)
        known, special = pieces.known, pieces.special
    else:
        labels, known = list(token_labels), token_known
        special = tuple(pieces.special[w] for w in pieces.word_of)
    if not show_special:
        weights = without_special(weights, special)
        labels = [label for label, s in zip(labels, special, strict=True) if not s]
        known = tuple(k for k, s in zip(known, special, strict=True) if not s)
    return ShownAttention(weights, labels, known)


def neighbour_blocks(labels: list[str], max_size: int) -> WordPieces:
    """Groups of k consecutive tokens (k the least that leaves at most max_size groups), labelled by their first
    token: pooled like word pieces, a long sentence's grid of heads stays small enough to send and draw."""
    k = max(1, -(-len(labels) // max_size))
    names = tuple(f"{labels[start]} …" if k > 1 else labels[start] for start in range(0, len(labels), k))
    return WordPieces(names, tuple(i // k for i in range(len(labels))), (False,) * len(names), (True,) * len(names))
