"""The attention maths against independent oracles: torch's own modules and the hand formula."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from attention_core import MultiHeadAttention, attend, attend_heads, positional_encoding, similarity

torch.manual_seed(0)


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).detach().abs().max())


def test_positional_encoding_known_values() -> None:
    pe = positional_encoding(4, 6)
    assert pe.shape == (4, 6)
    # Position 0: sin(0) = 0 on even dimensions, cos(0) = 1 on odd ones.
    assert torch.equal(pe[0], torch.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 1.0]))
    # Position 1, pair i: frequency 1 / 10000^(2i/6).
    for i in range(3):
        angle = 1.0 / 10000 ** (2 * i / 6)
        assert pe[1, 2 * i] == pytest.approx(math.sin(angle), abs=1e-6)
        assert pe[1, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-6)
    assert pe[3, 0] == pytest.approx(math.sin(3.0), abs=1e-6)


def test_positional_encoding_odd_width() -> None:
    pe = positional_encoding(5, 7)
    assert pe.shape == (5, 7)
    assert pe[2, 6] == pytest.approx(math.sin(2 / 10000 ** (6 / 7)), abs=1e-6)


def test_similarity_symmetric_and_cosine_diagonal_is_one() -> None:
    V = torch.randn(7, 16)
    dot = similarity(V, "dot")
    assert torch.allclose(dot, dot.T)
    assert torch.allclose(dot, V @ V.T)
    cos = similarity(V, "cosine")
    assert torch.allclose(cos, cos.T)
    assert torch.allclose(torch.diagonal(cos), torch.ones(7), atol=1e-6)
    oracle = F.cosine_similarity(V[:, None, :], V[None, :, :], dim=-1)
    assert max_diff(cos, oracle) < 1e-6


def test_similarity_rejects_unknown_metric() -> None:
    with pytest.raises(ValueError, match="metric"):
        similarity(torch.randn(3, 4), "euclid")  # type: ignore[arg-type]


def test_attend_raw_story_is_vvt_then_vvtv() -> None:
    V = torch.randn(5, 8)
    a = attend(V, scale=False, softmax=False)
    assert torch.allclose(a.weights, V @ V.T)
    assert torch.allclose(a.output, (V @ V.T) @ V, atol=1e-5)


@pytest.mark.parametrize("temperature", [1.0, 0.5, 3.0])
def test_attend_matches_scaled_dot_product_attention(temperature: float) -> None:
    V = torch.randn(6, 16)
    W1, W2, W3 = (torch.randn(16, 16) / 4 for _ in range(3))
    a = attend(V, W1, W2, W3, temperature=temperature)
    oracle = F.scaled_dot_product_attention(V @ W1, V @ W2, V @ W3, scale=1 / (math.sqrt(16) * temperature))
    assert max_diff(a.output, oracle) < 1e-5
    # The hand formula: softmax(V1·V2ᵀ / (√d·T))·V3.
    hand = torch.softmax((V @ W1) @ (V @ W2).T / math.sqrt(16) / temperature, dim=-1) @ (V @ W3)
    assert max_diff(a.output, hand) < 1e-5
    assert torch.allclose(a.weights.sum(-1), torch.ones(6), atol=1e-6)
    assert (a.weights >= 0).all() and (a.weights <= 1).all()


def test_attend_identity_W_is_none() -> None:
    V = torch.randn(4, 6)
    eye = torch.eye(6)
    a, b = attend(V), attend(V, eye, eye, eye)
    assert torch.allclose(a.output, b.output) and torch.allclose(a.scores, b.scores)


def test_attend_heads_matches_torch_multihead_weights() -> None:
    d, n_heads, n = 16, 4, 5
    V = torch.randn(n, d)
    mha = torch.nn.MultiheadAttention(d, n_heads, bias=False, batch_first=True)
    W1, W2, W3 = (w.T for w in mha.in_proj_weight.detach().chunk(3))  # torch stores x·Wᵀ
    heads = attend_heads(V, n_heads, W1, W2, W3)
    _, weights = mha(V[None], V[None], V[None], need_weights=True, average_attn_weights=False)
    for h, head in enumerate(heads):
        assert max_diff(head.weights, weights[0, h]) < 1e-6


def _torch_twin(ours: MultiHeadAttention, d: int, n_heads: int) -> torch.nn.MultiheadAttention:
    twin = torch.nn.MultiheadAttention(d, n_heads, batch_first=True)
    with torch.no_grad():
        twin.in_proj_weight.copy_(torch.cat([ours.W1.weight, ours.W2.weight, ours.W3.weight]))
        twin.in_proj_bias.copy_(torch.cat([ours.W1.bias, ours.W2.bias, ours.W3.bias]))
        twin.out_proj.weight.copy_(ours.out.weight)
        twin.out_proj.bias.copy_(ours.out.bias)
    return twin.eval()


@pytest.mark.parametrize("n_heads", [1, 4])
def test_multihead_matches_torch_multiheadattention(n_heads: int) -> None:
    d = 32
    ours = MultiHeadAttention(d, n_heads).eval()
    twin = _torch_twin(ours, d, n_heads)
    x = torch.randn(3, 7, d)
    padding = torch.zeros(3, 7, dtype=torch.bool)
    padding[1, 5:] = True
    padding[2, 3:] = True
    out, weights = ours(x, padding)
    ref_out, ref_weights = twin(x, x, x, key_padding_mask=padding, need_weights=True, average_attn_weights=False)
    assert weights.shape == (3, n_heads, 7, 7)
    assert max_diff(out, ref_out) < 1e-5
    assert max_diff(weights, ref_weights) < 1e-6
    fused, none = ours(x, padding, need_weights=False)
    assert none is None
    assert max_diff(fused, out) < 1e-5


def test_the_one_formula_with_a_bias_and_a_mask_matches_torchs_fused_attention() -> None:
    """`attention` is every attention in the package (attend, the heads, MultiHeadAttention, head_view); its bias
    and mask against torch's scaled_dot_product_attention: an additive float mask, and is_causal."""
    from attention_core.story.attention import attention, causal_mask

    q, k, v = torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 5)
    bias = torch.randn(3, 6, 6)
    biased = attention(q, k, v, bias=bias)
    assert max_diff(biased.output, F.scaled_dot_product_attention(q, k, v, attn_mask=bias)) < 1e-5
    causal = attention(q, k, v, mask=causal_mask(6))
    assert max_diff(causal.output, F.scaled_dot_product_attention(q, k, v, is_causal=True)) < 1e-5
    above = causal_mask(6).expand_as(causal.weights)
    assert torch.all(causal.weights[above] == 0)  # a word gives the future exactly nothing
    assert torch.allclose(causal.weights.sum(-1), torch.ones(2, 3, 6))  # and its row still sums to 1
    assert causal.weights[..., 0, 0].eq(1).all()  # the first word can only look at itself


def test_with_every_w_off_and_no_softmax_attend_is_the_raw_similarity_story() -> None:
    """By construction, not by coincidence: attend with no W, no scaling and no softmax is V·Vᵀ, and its output
    (V·Vᵀ)·V; and a masked raw story leaves the hidden cells at 0."""
    from attention_core.story.attention import causal_mask

    V = torch.randn(5, 4)
    raw = attend(V, scale=False, softmax=False)
    assert torch.equal(raw.weights, similarity(V)) and torch.allclose(raw.output, V @ V.T @ V)
    hidden = attend(V, scale=False, softmax=False, mask=causal_mask(5))
    assert torch.equal(hidden.weights, torch.tril(similarity(V)))
