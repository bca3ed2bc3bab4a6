"""What each head does on a sentence, by five transparent scores, and the role they name.

Every score is an average over the rows of the real tokens (not [CLS]/[SEP]), so each reads "on average, a word
of this sentence …":
- previous word: the weight a word puts on the token just before it (rows whose previous token is a real one);
- next word: the weight on the token just after it (rows whose next token is a real one);
- self: the weight on itself;
- sink: the weight on [CLS] and [SEP] together, where heads with nothing to look for park their attention;
- broad: the row's entropy divided by the largest it could be, log n (1: spread evenly over every word).

The role is the largest of the first four scores when it is at least ROLE_THRESHOLD (half of a word's attention
goes to that one place); else "broad" when the spread is at least BROAD_THRESHOLD; else "mixed" (a head that reads
by content, e.g. a pronoun looking for its noun, or one that reads several places).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

POSITIONAL_ROLES = ("previous word", "next word", "self", "sink")
ROLES = (*POSITIONAL_ROLES, "broad", "mixed")  # the names the app colours, in the legend's order
ROLE_THRESHOLD = 0.5
BROAD_THRESHOLD = 0.7


@dataclass(frozen=True)
class HeadRoles:
    """Every head's five scores and its role, on one sentence."""

    scores: torch.Tensor  # (n_layers, n_heads, 5): previous word, next word, self, sink, broad; each in [0, 1]
    roles: tuple[tuple[str, ...], ...]  # (n_layers) × (n_heads) role names, from ROLES
    table: tuple[tuple[tuple[float, ...], ...], ...]  # the scores as plain numbers, read per cell by the figures

    def score_of(self, layer: int, head: int) -> float:
        """The score that named the head's role (for "mixed": the largest of the four positional ones)."""
        role, values = self.roles[layer][head], self.table[layer][head]
        return values[ROLES.index(role)] if role != "mixed" else max(values[:4])

    def counts(self) -> dict[str, int]:
        """How many heads have each role, in ROLES order."""
        flat = [role for layer in self.roles for role in layer]
        return {role: flat.count(role) for role in ROLES}


def _mean_over(values: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """(…, n) values averaged over the rows where `rows` (n,) is True; 0 where there is no such row."""
    count = rows.sum()
    return (values * rows).sum(-1) / count if count else values.sum(-1) * 0.0


def role_scores(weights: torch.Tensor, special: list[bool] | tuple[bool, ...]) -> torch.Tensor:
    """(n_layers, n_heads, 5) the five scores for weights (n_layers, n_heads, n, n); special (n,): which tokens are
    [CLS]/[SEP]."""
    n = weights.shape[-1]
    is_special = torch.tensor(special, dtype=torch.bool)
    real = ~is_special
    diagonal = torch.diagonal(weights, dim1=-2, dim2=-1)  # (L, H, n): weight of token i on itself
    previous = torch.diagonal(weights, offset=-1, dim1=-2, dim2=-1)  # (L, H, n−1): token i+1 on token i
    following = torch.diagonal(weights, offset=1, dim1=-2, dim2=-1)  # (L, H, n−1): token i on token i+1
    has_previous = real[1:] & real[:-1]  # row i+1 is real and so is the token before it
    has_next = real[:-1] & real[1:]
    sink = weights[..., is_special].sum(-1)  # (L, H, n): each row's weight on the special tokens
    entropy = -(weights * weights.clamp_min(1e-12).log()).sum(-1)  # (L, H, n)
    spread = entropy / torch.log(torch.tensor(float(n))) if n > 1 else entropy * 0.0
    return torch.stack(
        [
            _mean_over(previous, has_previous),
            _mean_over(following, has_next),
            _mean_over(diagonal, real),
            _mean_over(sink, real),
            _mean_over(spread, real),
        ],
        dim=-1,
    )


def role_of(scores: Sequence[float]) -> str:
    """The role named by one head's five scores (the rule in this module's docstring)."""
    best = max(range(4), key=lambda i: scores[i])
    if scores[best] >= ROLE_THRESHOLD:
        return POSITIONAL_ROLES[best]
    return "broad" if scores[4] >= BROAD_THRESHOLD else "mixed"


def head_roles(weights: torch.Tensor, special: list[bool] | tuple[bool, ...]) -> HeadRoles:
    """Every head's scores and role, for weights (n_layers, n_heads, n, n) over tokens of which `special` are
    [CLS]/[SEP]."""
    scores = role_scores(weights, special)
    table = tuple(tuple(tuple(head) for head in layer) for layer in scores.tolist())  # one copy out of torch
    roles = tuple(tuple(role_of(head) for head in layer) for layer in table)
    return HeadRoles(scores, roles, table)
