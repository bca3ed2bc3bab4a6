"""Counting baselines for the masking task, estimated on the training split only.

- unigram: always guess the most frequent words.
- left+right bigram: score w by P(w | left word) · P(right word | w), each bigram probability interpolated
  with the unigram, P(b | a) = (c(a, b) + β·P(b)) / (c(a) + β), so unseen pairs are not impossible.
  β = 10 scored best on the Qurʾān held-out āyāt among 0.1 … 1000 (27.3 % top-1): the strongest baseline.
These are what a model that learned nothing beyond word frequencies and neighbours would score.
"""

from __future__ import annotations

import torch


def _compressed_rows(
    rows: torch.Tensor, columns: torch.Tensor, values: torch.Tensor, size: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(row starts (size + 1,), columns, values) sorted by row: row r is columns[starts[r]:starts[r + 1]]."""
    order = torch.argsort(rows, stable=True)
    starts = torch.zeros(size + 1, dtype=torch.long)
    starts[1:] = torch.cumsum(torch.bincount(rows, minlength=size), 0)
    return starts, columns[order], values[order]


class BigramCounts:
    """Token and token-pair counts over id sequences; sentence ends are an extra id (n_ids).

    Contexts are any token (rare words and punctuation included); the candidates are the words a model can
    guess, ids n_special … n_output − 1. A context id never seen in training is left out, like a masked one."""

    def __init__(
        self, sequences: list[list[int]], n_ids: int, n_special: int, n_output: int | None = None, beta: float = 10.0
    ) -> None:
        self.n_ids, self.n_special, self.beta = n_ids, n_special, beta
        self.n_output = n_ids if n_output is None else n_output
        self.end = n_ids  # the "word" after the last one; each sequence starts with [CLS] as its start
        size = n_ids + 1
        pairs = torch.tensor([(a, b) for s in sequences for a, b in zip(s, [*s[1:], self.end], strict=True)])
        codes, counts = torch.unique(pairs[:, 0] * size + pairs[:, 1], return_counts=True)
        first, second, counts = codes // size, codes % size, counts.float()
        # The count matrix C[a, b] in compressed-row form twice: rows say what follows a, columns what precedes b.
        self.after = _compressed_rows(first, second, counts, size)
        self.before = _compressed_rows(second, first, counts, size)
        unigram = torch.zeros(size).index_add_(0, second, counts)  # every token once as a right-hand word
        unigram[:n_special] = 0  # [PAD] [UNK] [MASK] [CLS] are never predicted
        self.unigram = unigram / unigram.sum()  # P(w), (n_ids + 1,)
        self.left_total = torch.zeros(size).index_add_(0, first, counts)  # c(a): how often a has a right neighbour

    def _row(self, rows: tuple[torch.Tensor, torch.Tensor, torch.Tensor], index: int) -> torch.Tensor:
        starts, columns, values = rows
        start, end = starts[index], starts[index + 1]
        row = torch.zeros(self.n_ids + 1)
        row[columns[start:end]] = values[start:end]
        return row

    def _seen(self, token: int | None) -> int | None:
        return (
            token
            if token is not None and token <= self.n_ids and self.left_total[token] + self.unigram[token] > 0
            else None
        )

    def context(self, token: int) -> int | None:
        """A neighbour as a context: None for a token first met after counting (a held-out word never seen in
        training), whose id may equal `end`, the sentence end's."""
        return token if token < self.n_ids else None

    def unigram_scores(self) -> torch.Tensor:
        scores = self.unigram[: self.n_output].clone()
        scores[: self.n_special] = 0
        return scores

    def bigram_scores(self, left: int | None, right: int | None) -> torch.Tensor:
        """(n_output,) scores P(w | left) · P(right | w); a side that is None (masked too) is left out."""
        left, right = self._seen(left), (right if right == self.end else self._seen(right))
        scores = self.unigram.clone()
        if left is not None:
            scores = (self._row(self.after, left) + self.beta * scores) / (self.left_total[left] + self.beta)
        if right is not None:
            p_right = (self._row(self.before, right) + self.beta * self.unigram[right]) / (self.left_total + self.beta)
            scores = scores * p_right
        scores = scores[: self.n_output]
        scores[: self.n_special] = 0
        return scores
