"""One head of a trained model, recomputed from its parts so each part can be switched off.

In layer l, head h reads x (what the layer's attention reads: the LayerNorm of the layer's input in our pre-norm
models, the previous layer's output in post-norm BERT) and computes V1 = x·W1 + b1, V2 = x·W2 + b2,
V3 = x·W3 + b3 on its own slice of features h·d_h … (h+1)·d_h; scores = V1·V2ᵀ/√d_h + its position bias;
weights = softmax(scores). Switching a W "off" replaces that projection by the identity on the same slice of x:
the head then compares (or passes on) the raw features, as in the seed's V·Vᵀ story.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from attention_core.models.interface import AttentionModel
from attention_core.story.attention import attention
from attention_core.story.text import Token


@dataclass(frozen=True)
class HeadView:
    tokens: tuple[Token, ...]  # the model's tokens: [CLS], the sentence, and [SEP] for a model that adds it (MiniLM)
    x: torch.Tensor  # (n, d) what the layer's attention reads (normalised)
    V1: torch.Tensor  # (n, d_h) queries
    V2: torch.Tensor  # (n, d_h) keys
    V3: torch.Tensor  # (n, d_h) values
    bias: torch.Tensor  # (n, n) the head's relative-position bias (zeros without one)
    scores: torch.Tensor  # (n, n) V1·V2ᵀ/√d_h + bias
    weights: torch.Tensor  # (n, n) softmax of the scores by row


@torch.no_grad()
def head_view(
    model: AttentionModel,
    tokens: list[Token],
    layer: int,
    head: int,
    *,
    use_W1: bool = True,
    use_W2: bool = True,
    use_W3: bool = True,
    inputs: tuple[torch.Tensor, ...] | None = None,
) -> HeadView:
    """Head `head` of layer `layer`, with each of W1, W2, W3 trained (True) or the identity (False)."""
    if inputs is None:  # a page that has the model's Analysis passes its inputs: no second pass through the layers
        all_tokens, every_input = model.layer_inputs(tokens)
        x = every_input[layer]
    else:
        all_tokens, x = tuple(model.encode(tokens)[0]), inputs[layer]
    block = model.attention_block(layer)
    d_h = block.d_head
    cols = slice(head * d_h, (head + 1) * d_h)

    def project(linear: torch.nn.Linear, use: bool) -> torch.Tensor:
        if not use:
            return x[:, cols]
        projected = x @ linear.weight[cols].T  # only this head's output features
        return projected + linear.bias[cols] if linear.bias is not None else projected

    V1 = project(block.W1, use_W1)
    V2 = project(block.W2, use_W2)
    V3 = project(block.W3, use_W3)
    n = x.shape[0]
    biases = model.position_bias(layer, n)
    bias = biases[head] if biases is not None else torch.zeros(n, n)
    drawn = attention(V1, V2, V3, bias=bias)
    return HeadView(all_tokens, x, V1, V2, V3, bias, drawn.scores, drawn.weights)


def compare_with_raw(view: HeadView) -> tuple[torch.Tensor, torch.Tensor]:
    """(raw, head − raw): raw = softmax(x·xᵀ/√d) of the same layer input, the seed's untrained attention."""
    raw = attention(view.x, view.x, view.x).weights  # no W: the raw story on what this layer reads
    return raw, view.weights - raw


@dataclass(frozen=True)
class CellArithmetic:
    """Where one number of the heatmap comes from: (V1_i · V2_j) / √d_h + B_ij = score → weight."""

    vectors: torch.Tensor  # (2, d_h): V1 of the row word, V2 of the column word
    dot: float
    root: float  # √d_h
    bias: float
    score: float
    weight: float


def explain_cell(view: HeadView, i: int, j: int) -> CellArithmetic:
    return CellArithmetic(
        vectors=torch.stack([view.V1[i], view.V2[j]]),
        dot=float(view.V1[i] @ view.V2[j]),
        root=math.sqrt(view.V1.shape[1]),
        bias=float(view.bias[i, j]),
        score=float(view.scores[i, j]),
        weight=float(view.weights[i, j]),
    )
