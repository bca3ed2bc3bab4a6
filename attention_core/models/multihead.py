"""Multi-head attention with the projections named as the story names them: W1, W2, W3 (Q, K, V) and out.

Head h uses features h·d_h … (h+1)·d_h of each projection, exactly as torch.nn.MultiheadAttention does, so the
two can be loaded with the same weights and compared. The explicit path returns the weights for drawing; the
fused `F.scaled_dot_product_attention` path is used when nobody needs to look at them (training).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from attention_core.models.knock_out import Ablation, knock_out_heads
from attention_core.story.attention import attention


class MultiHeadAttention(nn.Module):
    """Self-attention of a batch of sentences x (B, T, d_model) with n_heads heads of width d_model / n_heads."""

    def __init__(self, d_model: int, n_heads: int, *, dropout: float = 0.0, bias: bool = True) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.dropout = dropout
        self.W1 = nn.Linear(d_model, d_model, bias=bias)  # V1 = x·W1: what each word looks for (query)
        self.W2 = nn.Linear(d_model, d_model, bias=bias)  # V2 = x·W2: what each word offers (key)
        self.W3 = nn.Linear(d_model, d_model, bias=bias)  # V3 = x·W3: what each word passes on (value)
        self.out = nn.Linear(d_model, d_model, bias=bias)  # mixes the heads' outputs back together

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)  # (B, nh, T, hs)

    def forward(
        self,
        x: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        *,
        need_weights: bool = True,
        attn_bias: torch.Tensor | None = None,
        knock_out: torch.Tensor | None = None,
        ablation: Ablation = "zero",
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Return (output (B, T, d_model), weights (B, nh, T, T) or None when need_weights is False).

        key_padding_mask (B, T) is True where a position is padding and must not be attended to, as in torch.
        attn_bias, broadcastable to (B, nh, T, T), is added to the scores before the softmax (position biases).
        knock_out (nh,) bool: those heads' outputs are replaced (zeros, or their mean over positions) before `out`.
        """
        B, T, C = x.shape
        if (
            not need_weights
            and knock_out is not None
            and knock_out.dim() == 1
            and bool(knock_out.all())
            and ablation == "zero"
        ):
            # Every head out and no weights asked for: the heads' outputs are zeros, so `out` adds its bias alone. W1,
            # W2, W3 and the attention are not computed only to be multiplied by zero (MiniLM's six layers over 510
            # pieces: 120 → 72 ms). Asked for weights (a page draws them), it computes them as usual.
            return self.out(x.new_zeros(B, T, C)), None
        q, k, v = self._split(self.W1(x)), self._split(self.W2(x)), self._split(self.W3(x))  # (B, nh, T, hs)
        padding = key_padding_mask[:, None, None, :] if key_padding_mask is not None else None  # (B, 1, 1, T)
        dropout = self.dropout if self.training else 0.0
        if need_weights:
            drawn = attention(q, k, v, bias=attn_bias, mask=padding)  # the package's one formula
            weights = drawn.weights  # (B, nh, T, T)
            y = F.dropout(weights, dropout, self.training) @ v if dropout else drawn.output  # (B, nh, T, hs)
        else:
            # The same formula in torch's fused kernel (training: nobody looks at the weights); its mask is additive.
            mask = attn_bias
            if padding is not None:
                blocked = torch.zeros(B, 1, 1, T, dtype=x.dtype, device=x.device).masked_fill(padding, float("-inf"))
                mask = blocked if mask is None else mask + blocked
            weights = None
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
        if knock_out is not None:
            y = knock_out_heads(y, knock_out, ablation)
        y = y.transpose(1, 2).reshape(B, T, C)  # (B, T, d_model): heads side by side again
        return self.out(y), weights
