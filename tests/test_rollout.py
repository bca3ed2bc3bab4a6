"""Attention rollout against a hand computation (plain Python loops over numbers, no matrix library)."""

from __future__ import annotations

import torch

from attention_core.models.trained import load_model
from attention_core.story.rollout import attention_rollout
from attention_core.story.text import tokenize


def by_hand(weights: list[list[list[list[float]]]]) -> list[list[list[float]]]:
    """The recipe written out: mean over heads, + identity, halves, rows to 1, products from the first layer up."""
    n_layers, n_heads, n = len(weights), len(weights[0]), len(weights[0][0])
    rolled: list[list[list[float]]] = []
    for layer in range(n_layers):
        mixing = []
        for i in range(n):
            row = [
                0.5 * sum(weights[layer][h][i][j] for h in range(n_heads)) / n_heads + 0.5 * (i == j) for j in range(n)
            ]
            total = sum(row)
            mixing.append([value / total for value in row])
        if not rolled:
            rolled.append(mixing)
            continue
        previous = rolled[-1]
        rolled.append([[sum(mixing[i][k] * previous[k][j] for k in range(n)) for j in range(n)] for i in range(n)])
    return rolled


def test_rollout_matches_the_hand_computation_and_keeps_rows_summing_to_one() -> None:
    weights = torch.softmax(torch.randn(3, 4, 5, 5, generator=torch.Generator().manual_seed(0)), dim=-1)
    rolled = attention_rollout(weights)
    assert torch.allclose(rolled, torch.tensor(by_hand(weights.tolist())), atol=1e-6)
    assert torch.allclose(rolled.sum(-1), torch.ones(3, 5), atol=1e-6)


def test_rollout_of_the_shipped_model_spreads_through_the_layers() -> None:
    """On a real sentence each layer mixes in more of the other words: a word's own share falls layer by layer."""
    analysis = load_model().analyze(tokenize("ذهب الولد إلى المدرسة في الصباح"))
    rolled = attention_rollout(analysis.weights)
    own = torch.diagonal(rolled, dim1=-2, dim2=-1).mean(-1)  # (L,): each word's share from itself, on average
    assert bool((own[1:] < own[:-1]).all()) and float(own[0]) > 0.5  # the residual half keeps a word its own first
