"""Minimal pairs: two sentences that differ in a word or two, and how every head's attention differs between them.

A difference B − A of two attention maps only means something cell by cell when the cells name the same words. So
the two sentences are first aligned (difflib.SequenceMatcher on the words' look-up forms):

- words in both, in the same order, pair up ("it" with "it");
- a run of swapped words of equal length pairs up place by place, with a joint label ("tired / wide");
- a run of unequal length pairs the words that look alike (السميع with سميع: most letters shared) and leaves the
  rest out (هو in «إنه هو السميع» has no partner in «إنه سميع»);
- a word with no partner is left out of the difference (the page names it).

Then both maps are cut to the aligned words (rows and columns, in alignment order) and subtracted. A cut row no
longer sums to 1 when a word was left out: what is compared is how much each shared word gives each other one.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property

import torch

from attention_core.models.interface import Analysis, MaskedWordModel
from attention_core.models.knock_out_effects import GuessChange
from attention_core.story.rounding import without_rounding_noise
from attention_core.story.text import normalize_word

SWAP = " / "  # joins the two words of a swapped pair in its label: "tired / wide"
LOOK_ALIKE = 0.5  # in a run of unequal length, two words pair when this share of their letters match (difflib ratio)


@dataclass(frozen=True)
class Alignment:
    """Which word of sentence A goes with which word of sentence B."""

    a: tuple[int, ...]  # positions in A of the aligned words, in order
    b: tuple[int, ...]  # their partners' positions in B
    labels: tuple[str, ...]  # one per pair: the word, or "a / b" when the two differ
    swapped: tuple[bool, ...]  # one per pair: True where the two words differ
    only_a: tuple[str, ...]  # words of A with no partner in B (left out of the difference)
    only_b: tuple[str, ...]  # words of B with no partner in A

    @property
    def shared(self) -> tuple[bool, ...]:
        """One per pair: True where the two words are the same word."""
        return tuple(not s for s in self.swapped)

    @property
    def is_identical(self) -> bool:
        return not any(self.swapped) and not self.only_a and not self.only_b


def _look_up(word: str) -> str:
    return normalize_word(word)


def _pair_look_alikes(words_a: list[str], words_b: list[str]) -> list[tuple[int, int]]:
    """In a run of swapped words of unequal length: the order-keeping pairs (i, j) whose letters match most (each
    pair's difflib ratio at least LOOK_ALIKE), by dynamic programming over the two short runs."""
    n, m = len(words_a), len(words_b)
    ratio = [[SequenceMatcher(None, _look_up(x), _look_up(y)).ratio() for y in words_b] for x in words_a]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]  # best[i][j]: the largest total ratio of words_a[i:], words_b[j:]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            paired = ratio[i][j] + best[i + 1][j + 1] if ratio[i][j] >= LOOK_ALIKE else -1.0
            best[i][j] = max(paired, best[i + 1][j], best[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if ratio[i][j] >= LOOK_ALIKE and best[i][j] == ratio[i][j] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def align(words_a: list[str], words_b: list[str]) -> Alignment:
    """Pair the words of two sentences (as drawn: typed words, word pieces, [CLS] and [SEP]) as the module says."""
    matcher = SequenceMatcher(None, [_look_up(w) for w in words_a], [_look_up(w) for w in words_b], autojunk=False)
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            pairs += zip(range(i1, i2), range(j1, j2), strict=True)
        elif tag == "replace":
            pairs += [(i1 + i, j1 + j) for i, j in _pair_look_alikes(words_a[i1:i2], words_b[j1:j2])]
    a, b = tuple(i for i, _ in pairs), tuple(j for _, j in pairs)
    swapped = tuple(_look_up(words_a[i]) != _look_up(words_b[j]) for i, j in pairs)
    labels = tuple(
        f"{words_a[i]}{SWAP}{words_b[j]}" if s else words_a[i] for (i, j), s in zip(pairs, swapped, strict=True)
    )
    only_a = tuple(w for i, w in enumerate(words_a) if i not in set(a))
    only_b = tuple(w for j, w in enumerate(words_b) if j not in set(b))
    return Alignment(a, b, labels, swapped, only_a, only_b)


def on_aligned_words(weights: torch.Tensor, index: tuple[int, ...]) -> torch.Tensor:
    """(…, n, n) attention cut to the aligned words' rows and columns, in alignment order: (…, m, m)."""
    keep = torch.tensor(index, dtype=torch.long)
    return weights.index_select(-2, keep).index_select(-1, keep)


@dataclass(frozen=True)
class PairDifference:
    """Two sentences' attention on their aligned words, for any stack of maps (one head, or layers × heads)."""

    alignment: Alignment
    a: torch.Tensor  # (…, m, m) sentence A's attention on the aligned words
    b: torch.Tensor  # (…, m, m) sentence B's

    @cached_property  # a frozen dataclass's cached_property is computed once, on first use
    def difference(self) -> torch.Tensor:
        """(…, m, m) B − A: positive where B's word gives the other more attention than A's; 0 where only float32
        rounding tells them apart (story/rounding.py)."""
        return without_rounding_noise(self.b - self.a, self.a, self.b)

    @cached_property
    def head_change(self) -> torch.Tensor:
        """(…) for every map: the largest |B − A| over the rows of the shared words (all aligned columns). The rows
        of swapped words are left out: a different word reading differently says nothing about the heads."""
        rows = torch.tensor(self.alignment.shared)
        return self.difference[..., rows, :].abs().amax(dim=(-2, -1))

    def largest_change(self, *where: int) -> tuple[int, int]:
        """(row, column) among the aligned words of the map at `where` (e.g. layer, head) whose |B − A| is the
        largest on a shared word's row: the cell head_change reports."""
        difference = self.difference[where].abs() * torch.tensor(self.alignment.shared)[:, None]
        flat = int(difference.argmax())
        return flat // difference.shape[-1], flat % difference.shape[-1]


def compare(weights_a: torch.Tensor, words_a: list[str], weights_b: torch.Tensor, words_b: list[str]) -> PairDifference:
    """Align the two sentences' words and cut both stacks of maps ((…, n_a, n_a) and (…, n_b, n_b)) to them."""
    alignment = align(words_a, words_b)
    return PairDifference(alignment, on_aligned_words(weights_a, alignment.a), on_aligned_words(weights_b, alignment.b))


@torch.no_grad()
def pair_guesses(model: MaskedWordModel, a: Analysis, b: Analysis, k: int = 5) -> list[GuessChange]:
    """The k likeliest words for the first [MASK] of each sentence, each with its probability in both (`before`:
    in A, `after`: in B): A's guesses first, best first, then B's that A's top k lacks."""
    in_a = model.word_probabilities(a.final[model.blank_position(list(a.tokens))])
    in_b = model.word_probabilities(b.final[model.blank_position(list(b.tokens))])
    order = list(dict.fromkeys([*torch.topk(in_a, k).indices.tolist(), *torch.topk(in_b, k).indices.tolist()]))
    return [GuessChange(model.word_shown(i), float(in_a[i]), float(in_b[i])) for i in order]
