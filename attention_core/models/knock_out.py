"""Knocking heads out: what a head does for the model, seen by removing it.

A knocked-out head's output (its weights · V3) is replaced before the layer's output projection mixes the heads:
by zeros ("zero": the head is silent), or by its mean over the sentence's positions ("mean": the head still adds
its average message, but no longer says which word sent what). Heads are (layer, head), both counted from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

Ablation = Literal["zero", "mean"]
HeadSet = Sequence[tuple[int, int]]


def head_masks(knock_out: HeadSet, n_layers: int, n_heads: int) -> list[torch.Tensor | None]:
    """Per layer, a (n_heads,) bool tensor, True for the heads knocked out; None for a layer left whole."""
    masks: list[torch.Tensor | None] = [None] * n_layers
    for layer, head in knock_out:
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ValueError(
                f"no head ({layer}, {head}) in a model of {n_layers} layers × {n_heads} heads (both count from 0)"
            )
        mask = masks[layer]
        if mask is None:
            mask = masks[layer] = torch.zeros(n_heads, dtype=torch.bool)
        mask[head] = True
    return masks


def knock_out_heads(y: torch.Tensor, removed: torch.Tensor, ablation: Ablation = "zero") -> torch.Tensor:
    """y (B, n_heads, T, d_h), every head's output before the output projection, with the `removed` heads
    replaced by zeros or by their mean over the T positions. removed: (n_heads,) bool, the same heads for the whole
    batch, or (B, n_heads), other heads per sentence (head_importance knocks one head out per copy of a sentence)."""
    if ablation not in ("zero", "mean"):
        raise ValueError(f"ablation must be 'zero' or 'mean', got {ablation!r}")
    replacement = y.mean(dim=2, keepdim=True).expand_as(y) if ablation == "mean" else torch.zeros_like(y)
    per_sentence = removed.to(y.device) if removed.dim() == 2 else removed.to(y.device)[None, :]  # (B or 1, nh)
    return torch.where(per_sentence[:, :, None, None], replacement, y)
