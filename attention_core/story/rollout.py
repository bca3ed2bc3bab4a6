"""Attention rollout (Abnar & Zuidema, ACL 2020): where a word's information came from through all the layers.

One layer's attention says which words a word reads in that layer. Through a stack, the information a word holds
after layer l came through every path of layers 1…l. Rollout follows those paths: per layer, the heads' mean,
mixed half-and-half with the identity (the residual path: a word also keeps what it had), rows renormalised; then
the layers multiplied from the first up. It is a summary of attention, not the whole explanation: the feed-forward
layers and the output projections also move information, and rollout sees neither.
"""

from __future__ import annotations

import torch


def layer_mixing(weights: torch.Tensor) -> torch.Tensor:
    """(L, n, n): per layer, 0.5 · (the heads' mean attention) + 0.5 · I, each row renormalised to sum 1.
    weights: (L, H, n, n), every head of every layer."""
    n = weights.shape[-1]
    mixed = 0.5 * weights.mean(dim=1) + 0.5 * torch.eye(n, dtype=weights.dtype)
    return mixed / mixed.sum(dim=-1, keepdim=True)


def attention_rollout(weights: torch.Tensor) -> torch.Tensor:
    """(L, n, n): row i of entry l is how much of word i's information after layer l+1 (counted from 0: after
    layer l) came from each word of the input, through all layers up to it. Entry 0 is the first layer's mixing."""
    mixing = layer_mixing(weights)
    rolled = [mixing[0]]
    for layer in range(1, mixing.shape[0]):
        rolled.append(mixing[layer] @ rolled[-1])  # the later layer reads what the earlier ones gathered
    return torch.stack(rolled)
