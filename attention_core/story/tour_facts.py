"""What the guided tour says about the learner's own sentence, computed (ui/tour/guide.py words it, one fact a step).

Every function takes what a page computes (a sentence's V, attention weights, a model's analysis) and returns the
numbers a step quotes, so the step's claim is true of the sentence on screen, never a canned example.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class Link:
    """One cell of a matrix, by its row and column words: how much `row` gives to, or resembles, `column`."""

    row: str
    column: str
    value: float


def strongest_link(weights: torch.Tensor, labels: list[str], row: int, *, besides_itself: bool = False) -> Link:
    """The largest cell of `row` in a (n, n) matrix; besides_itself: of the other words (not the row's own word,
    wherever else it is typed; a sentence of one word: itself)."""
    values = weights[row].clone()
    if besides_itself:
        same = torch.tensor([label == labels[row] for label in labels])
        if not bool(same.all()):
            values[same] = float("-inf")
    column = int(values.argmax())
    return Link(labels[row], labels[column], float(weights[row, column]))


def most_alike_pair(V: torch.Tensor, labels: list[str]) -> Link | None:
    """The two different words whose vectors have the highest cosine (a word typed twice is not a pair with
    itself); None when the sentence has fewer than two different words."""
    if len(set(labels)) < 2:
        return None
    cosine = _cosines(V)
    same = torch.tensor([[a == b for b in labels] for a in labels])
    cosine[same] = float("-inf")
    row, column = divmod(int(cosine.argmax()), len(labels))
    return Link(labels[row], labels[column], float(cosine[row, column]))


@dataclass(frozen=True)
class PositionChange:
    """What adding positions does to one pair: their cosine with the position vectors and without."""

    first: str
    second: str
    with_positions: float
    without: float


def biggest_position_change(with_p: torch.Tensor, without_p: torch.Tensor, labels: list[str]) -> PositionChange | None:
    """The pair of places whose cosine changes most when the position vectors are taken away."""
    if len(labels) < 2:
        return None
    cos_with = _cosines(with_p)
    cos_without = _cosines(without_p)
    change = (cos_with - cos_without).abs()
    change.fill_diagonal_(float("-inf"))
    row, column = divmod(int(change.argmax()), len(labels))
    return PositionChange(labels[row], labels[column], float(cos_with[row, column]), float(cos_without[row, column]))


def first_single_word(labels: list[str], skip: tuple[str, ...] = ()) -> int:
    """The place of the first word typed only once (and not in `skip`, e.g. [CLS]): a row whose strongest link is
    not simply its twin. 0 if every word repeats."""
    return next((i for i, label in enumerate(labels) if labels.count(label) == 1 and label not in skip), 0)


def repeated_word(labels: list[str]) -> str | None:
    """The first word typed twice (without positions its rows are the same), or None."""
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            return label
        seen.add(label)
    return None


def mean_strongest_weight(weights: torch.Tensor) -> float:
    """(heads, n, n) → the largest weight of a row, averaged over every row of every head: 1 is one word each,
    1/n is attention spread evenly."""
    return float(weights.max(dim=-1).values.mean())


def mean_cosine(vectors: torch.Tensor) -> float:
    """(n, d) → the mean cosine of two different rows (0 for a single row)."""
    n = vectors.shape[0]
    if n < 2:
        return 0.0
    cosine = _cosines(vectors)
    return float((cosine.sum() - cosine.diagonal().sum()) / (n * (n - 1)))


def _cosines(vectors: torch.Tensor) -> torch.Tensor:
    unit = F.normalize(vectors, dim=-1)
    return unit @ unit.T
